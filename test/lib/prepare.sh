#!/usr/bin/env bash
# prepare.sh: what the demo and the test runner share, sourced by both.
#
#   source test/lib/prepare.sh
#   gh_prepare            # install what is missing, make, make install
#   gh_start_server       # a throwaway server (test/pg_temp_server.sh)
#
# Only packages that are missing are installed (apt-get, Debian/Ubuntu), so a
# second run installs nothing and `make` rebuilds only what changed.
#
# Settings, all optional, read from the environment:
#   GH_PG_MAJOR   the PostgreSQL major to build for and test against: 15
#                 (the default), 16, 17 or 18.  A major that apt can install
#                 comes from its Debian packages, into
#                 /usr/lib/postgresql/$GH_PG_MAJOR; 17 and 18, which Debian
#                 12 lacks, are built once from source into
#                 /usr/local/pgsql-$GH_PG_MAJOR (test/lib/postgres_source.sh)
#   PG_CONFIG     the pg_config of a server installed some other way; it
#                 overrides GH_PG_MAJOR, and nothing is installed for it
#   WITH_CUDA     yes or no, passed to make (default: yes when nvcc is found)
#   GH_CUDA_ARCHITECTURES  the CUDA targets, passed to make (default: the
#                 CMake list, every GPU generation CUDA 13 compiles for)

GH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GH_PG_MAJOR=${GH_PG_MAJOR:-15}
# shellcheck source=SCRIPTDIR/postgres_source.sh
source "$GH_ROOT/test/lib/postgres_source.sh"
# shellcheck source=SCRIPTDIR/timescaledb_source.sh
source "$GH_ROOT/test/lib/timescaledb_source.sh"

gh_step() { printf '\n==> %s\n' "$*"; }
gh_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Runs a command as root: directly if we are root, else through sudo.
gh_as_root() {
    if [ "$(id -u)" = 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        gh_die "this step needs root (or sudo): $*"
    fi
}

# The Debian packages this project needs that are not installed yet, one a line.
gh_missing_packages() {
    local pgdir=/usr/lib/postgresql/$GH_PG_MAJOR
    if [ -z "${GH_USER_PG_CONFIG:-}" ] && [ "$GH_PG_SOURCE" = no ]; then
        [ -x "$pgdir/bin/postgres" ] || echo "postgresql-$GH_PG_MAJOR"
        [ -x "$pgdir/bin/psql" ] || echo "postgresql-client-$GH_PG_MAJOR"
        [ -f "$pgdir/lib/pgxs/src/makefiles/pgxs.mk" ] && \
            [ -f "/usr/include/postgresql/$GH_PG_MAJOR/server/postgres.h" ] || \
            echo "postgresql-server-dev-$GH_PG_MAJOR"
    fi
    [ -f /usr/include/gtest/gtest.h ] || [ -f /usr/local/include/gtest/gtest.h ] || echo libgtest-dev
    command -v cmake >/dev/null 2>&1 || echo cmake
    command -v g++ >/dev/null 2>&1 || echo g++
    command -v make >/dev/null 2>&1 || echo make
    command -v python3 >/dev/null 2>&1 || echo python3
    return 0
}

# Installs Debian packages with apt-get, updating the package lists and
# trying again if the first attempt fails.  Returns non-zero if it cannot.
gh_apt_install() { # package...
    command -v apt-get >/dev/null 2>&1 || { echo "no apt-get to install $* with"; return 1; }
    echo "installing: $*"
    if ! gh_as_root env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y --no-install-recommends "$@"; then
        echo "apt-get install failed; updating the package lists and trying again"
        gh_as_root apt-get update || return 1
        gh_as_root env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y --no-install-recommends "$@"
    fi
}

gh_install_dependencies() {
    local missing
    missing=$(gh_missing_packages | tr '\n' ' ')
    if [ -z "${missing// /}" ]; then
        echo "all build and test dependencies are installed"
        return 0
    fi
    command -v apt-get >/dev/null 2>&1 ||
        gh_die "missing packages ($missing) and no apt-get to install them with; install them and run again"
    # shellcheck disable=SC2086  # one word per package
    gh_apt_install $missing || gh_die "could not install: $missing"
}

# Whether apt knows a package (an installed one, or one it could install).
gh_apt_has() {
    dpkg -s "$1" >/dev/null 2>&1 && return 0
    command -v apt-cache >/dev/null 2>&1 || return 1
    [ -n "$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ && $2 != "(none)" {print $2}')" ]
}

# Sets PG_CONFIG, and GH_PG_SOURCE (yes: built from source here, no: Debian's
# packages or the user's own server).
gh_find_pg_config() {
    GH_PG_SOURCE=no
    if [ -n "${PG_CONFIG:-}" ]; then
        GH_USER_PG_CONFIG=$PG_CONFIG
    elif [ -x "/usr/lib/postgresql/$GH_PG_MAJOR/bin/postgres" ] ||
         gh_apt_has "postgresql-server-dev-$GH_PG_MAJOR"; then
        PG_CONFIG=/usr/lib/postgresql/$GH_PG_MAJOR/bin/pg_config
    elif gh_pg_source_release "$GH_PG_MAJOR" >/dev/null; then
        GH_PG_SOURCE=yes
        PG_CONFIG=$(gh_pg_source_prefix "$GH_PG_MAJOR")/bin/pg_config
    else
        gh_die "PostgreSQL $GH_PG_MAJOR has no package here and no known source; install it (for example from the PGDG apt repository) and run again with PG_CONFIG=/path/to/its/pg_config"
    fi
    export PG_CONFIG
}

gh_check_pg_config() {
    [ -x "$PG_CONFIG" ] || command -v "$PG_CONFIG" >/dev/null 2>&1 || gh_die "PG_CONFIG=$PG_CONFIG is not executable"
    local pgxs
    pgxs=$("$PG_CONFIG" --pgxs)
    [ -f "$pgxs" ] || gh_die "$PG_CONFIG --pgxs names $pgxs, which does not exist (postgresql-server-dev missing?)"
    PG_BIN=$("$PG_CONFIG" --bindir)
    GH_PG_SERVER_MAJOR=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
    export PG_BIN GH_PG_SERVER_MAJOR
    # psql, pg_ctl and pg_regress of the same server first on PATH
    case ":$PATH:" in *":$PG_BIN:"*) ;; *) PATH=$PG_BIN:$PATH ;; esac
    export PATH
    echo "building for $("$PG_CONFIG" --version) ($PG_CONFIG)"
}

# make's command-line variables, repeated for `sudo make install` (sudo drops
# the environment, and a different WITH_CUDA would rebuild the engine).
gh_make_vars() {
    GH_MAKE_VARS=("PG_CONFIG=$PG_CONFIG")
    [ -z "${WITH_CUDA:-}" ] || GH_MAKE_VARS+=("WITH_CUDA=$WITH_CUDA")
    [ -z "${NVCC:-}" ] || GH_MAKE_VARS+=("NVCC=$NVCC")
    [ -z "${CUDA_HOME:-}" ] || GH_MAKE_VARS+=("CUDA_HOME=$CUDA_HOME")
    [ -z "${GH_CUDA_ARCHITECTURES:-}" ] || GH_MAKE_VARS+=("GH_CUDA_ARCHITECTURES=$GH_CUDA_ARCHITECTURES")
}

# "yes" or "no": whether the engine was built with its CUDA backend.
gh_cuda_backend_built() {
    if grep -q '^GH_WITH_CUDA:BOOL=ON' "$GH_ROOT/build/CMakeCache.txt" 2>/dev/null; then
        echo yes
    else
        echo no
    fi
}

# Runs a build step with its output in a log: one line here, and the log's
# end only if the step fails.
gh_logged() { # label log command...
    local label=$1 log=$2
    shift 2
    mkdir -p "$(dirname "$log")"
    echo "$label (log: ${log#"$GH_ROOT"/})"
    if ! "$@" >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        gh_die "$label failed; the whole output is in $log"
    fi
}

gh_build_and_install() {
    gh_make_vars
    local logs=${GH_LOG_DIR:-$GH_ROOT/build/logs}
    gh_step "make"
    gh_logged "building the engine and the extension" "$logs/make.log" \
        make -C "$GH_ROOT" -j"$(nproc)" "${GH_MAKE_VARS[@]}"
    gh_step "make install"
    gh_logged "installing" "$logs/make-install.log" gh_as_root make -C "$GH_ROOT" "${GH_MAKE_VARS[@]}" install
    echo "installed into $("$PG_CONFIG" --pkglibdir) (CUDA backend built: $(gh_cuda_backend_built))"
}

gh_prepare() {
    gh_find_pg_config
    gh_step "dependencies"
    gh_install_dependencies
    [ "$GH_PG_SOURCE" = no ] || gh_pg_source_install "$GH_PG_MAJOR"
    gh_check_pg_config
    gh_build_and_install
}

# Starts a throwaway server; its EXIT trap stops it.  Extra arguments are
# postgres options (-c name=value).  Inside this function the positional
# parameters are only those, not the calling script's.
gh_start_server() {
    gh_step "starting a throwaway PostgreSQL server"
    # shellcheck source=SCRIPTDIR/../pg_temp_server.sh
    source "$GH_ROOT/test/pg_temp_server.sh" "$@"
    echo "server on port $PGPORT, socket in $PGHOST, user $PGUSER (log: $PG_TEMP_DIR/server.log)"
}
