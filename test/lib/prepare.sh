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
#   PG_CONFIG     the pg_config of the server to build for; default
#                 /usr/lib/postgresql/$GH_PG_MAJOR/bin/pg_config (not
#                 /usr/bin/pg_config, which may be libpq-dev's or another
#                 major version's)
#   GH_PG_MAJOR   PostgreSQL major version whose packages to install; 15
#   WITH_CUDA     yes or no, passed to make (default: yes when nvcc is found)

GH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GH_PG_MAJOR=${GH_PG_MAJOR:-15}

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
    if [ -z "${GH_USER_PG_CONFIG:-}" ]; then
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

# Sets PG_CONFIG (and PG_BIN, which pg_temp_server.sh reads) and checks it.
gh_find_pg_config() {
    if [ -n "${PG_CONFIG:-}" ]; then
        GH_USER_PG_CONFIG=$PG_CONFIG
    else
        PG_CONFIG=/usr/lib/postgresql/$GH_PG_MAJOR/bin/pg_config
    fi
    export PG_CONFIG
}

gh_check_pg_config() {
    [ -x "$PG_CONFIG" ] || command -v "$PG_CONFIG" >/dev/null 2>&1 || gh_die "PG_CONFIG=$PG_CONFIG is not executable"
    local pgxs
    pgxs=$("$PG_CONFIG" --pgxs)
    [ -f "$pgxs" ] || gh_die "$PG_CONFIG --pgxs names $pgxs, which does not exist (postgresql-server-dev missing?)"
    PG_BIN=$("$PG_CONFIG" --bindir)
    export PG_BIN
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
}

# "yes" or "no": whether the engine was built with its CUDA backend.
gh_cuda_backend_built() {
    if grep -q '^GH_WITH_CUDA:BOOL=ON' "$GH_ROOT/build/CMakeCache.txt" 2>/dev/null; then
        echo yes
    else
        echo no
    fi
}

gh_build_and_install() {
    gh_make_vars
    gh_step "make"
    make -C "$GH_ROOT" -j"$(nproc)" "${GH_MAKE_VARS[@]}" || gh_die "make failed (see above)"
    gh_step "make install"
    gh_as_root make -C "$GH_ROOT" "${GH_MAKE_VARS[@]}" install || gh_die "make install failed (see above)"
    echo "installed into $("$PG_CONFIG" --pkglibdir) (CUDA backend built: $(gh_cuda_backend_built))"
}

gh_prepare() {
    gh_find_pg_config
    gh_step "dependencies"
    gh_install_dependencies
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
