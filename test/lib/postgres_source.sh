#!/usr/bin/env bash
# postgres_source.sh: PostgreSQL majors that Debian 12 does not ship (17, 18),
# built from the upstream source that Debian's archive carries.
#
#   source test/lib/postgres_source.sh
#   gh_pg_source_install 18      # builds and installs /usr/local/pgsql-18 once
#
# Debian 12 packages PostgreSQL 15 only. Trixie's and sid's binary packages of
# 17 and 18 need glibc 2.38 or newer, and Debian 12 has 2.36, so they cannot
# be installed here or on the GPU host; their source can, and builds with this
# machine's compiler in about two minutes on two cores. The tarball comes from
# the archive's pool through a private apt configuration (trixie and sid
# deb-src), never through the system's sources.
#
# What gets installed into the prefix: the server, psql and the client tools,
# PGXS (pg_config, headers, pg_regress) and the contrib modules the tests use
# (postgres_fdw, dblink, pg_prewarm, pg_buffercache).

GH_PG_SOURCE_CACHE=${GH_PG_SOURCE_CACHE:-/var/cache/gpu_histogram}

# The upstream release each major is built from. Debian's
# trixie index names 17.12, but the pool lost 17.12's tarball while it still
# holds 17.11's; a pinned release keeps every machine on the same server.
gh_pg_source_release() { # major -> version
    case $1 in
        17) echo 17.11 ;;
        18) echo 18.6 ;;
        *) return 1 ;;
    esac
}

gh_pg_source_prefix() { echo "/usr/local/pgsql-$1"; }

# The cache folder, made (under /var/cache, as root) and given to whoever
# runs the tests, so that a user who can sudo writes the downloads there.
gh_pg_source_cache() {
    [ -d "$GH_PG_SOURCE_CACHE" ] && [ -w "$GH_PG_SOURCE_CACHE" ] && return 0
    mkdir -p "$GH_PG_SOURCE_CACHE" 2>/dev/null ||
        { gh_as_root mkdir -p "$GH_PG_SOURCE_CACHE" && gh_as_root chown "$(id -u):$(id -g)" "$GH_PG_SOURCE_CACHE"; }
}

# Runs a long step (its output in a log) and says every 30 s that it still
# runs, so that minutes of compiling do not look like a hang.
gh_pg_source_step() { # label log command...
    local label=$1 log=$2 pid start=$SECONDS
    shift 2
    echo "  $label (log: $log)"
    "$@" >"$log" 2>&1 &
    pid=$!
    while ! gh_pg_source_ended "$pid" 30; do
        echo "  $label: $((SECONDS - start)) s"
    done
    wait "$pid"
}

# Whether process pid ended within seconds (true), polling each second.
gh_pg_source_ended() { # pid seconds
    local i
    for ((i = 0; i < $2; i++)); do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 1
    done
    ! kill -0 "$1" 2>/dev/null
}

# apt-get with a configuration of its own that knows only trixie's and sid's
# source indexes; sid's Release file has expired in the archive, so validity
# dates are not checked.
gh_pg_source_apt() {
    local dir=$GH_PG_SOURCE_CACHE/apt
    if [ ! -f "$dir/apt.conf" ]; then
        gh_pg_source_cache || return 1
        mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
        cat >"$dir/sources.list" <<EOF
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main
EOF
        cat >"$dir/apt.conf" <<EOF
Dir::Etc::SourceList "$dir/sources.list";
Dir::Etc::SourceParts "/nonexistent";
Dir::State::Lists "$dir/lists";
Dir::Cache "$dir/cache";
Acquire::Check-Valid-Until "false";
EOF
    fi
    APT_CONFIG=$dir/apt.conf "$@"
}

# The pool's URL of a source package's file, from the private index: the
# directory the index gives for the package, and the file name asked for.
gh_pg_source_url() { # package file
    local pooldir
    pooldir=$(gh_pg_source_apt apt-cache showsrc "$1" 2>/dev/null |
              awk '/^Directory:/ {print $2; exit}')
    [ -n "$pooldir" ] || pooldir="pool/main/p/$1"
    echo "http://deb.debian.org/debian/$pooldir/$2"
}

# Downloads the upstream tarball of a major into the cache; prints its path.
gh_pg_source_fetch() { # major
    local major=$1 version tarball url
    read -r version _ < <(gh_pg_source_release "$major") || gh_die "no source release known for PostgreSQL $major"
    tarball=$GH_PG_SOURCE_CACHE/postgresql-${major}_$version.orig.tar.bz2
    if [ ! -s "$tarball" ]; then
        gh_pg_source_cache || gh_die "cannot make $GH_PG_SOURCE_CACHE"
        [ -f "$GH_PG_SOURCE_CACHE/apt/lists/lock" ] || gh_pg_source_apt apt-get update -qq >&2 ||
            echo "apt-get update of the private trixie/sid index failed; trying the pool directly" >&2
        url=$(gh_pg_source_url "postgresql-$major" "postgresql-${major}_$version.orig.tar.bz2")
        echo "downloading $url" >&2
        curl -fsS --retry 3 -o "$tarball.part" "$url" ||
            { rm -f "$tarball.part"; gh_die "could not download $url"; }
        mv "$tarball.part" "$tarball"
    fi
    echo "$tarball"
}

# Builds and installs one major into its prefix unless it is there already.
gh_pg_source_install() { # major
    local major=$1 prefix tarball src jobs
    prefix=$(gh_pg_source_prefix "$major")
    if [ -x "$prefix/bin/postgres" ] && [ -f "$prefix/lib/pgxs/src/makefiles/pgxs.mk" ] &&
       [ -f "$prefix/.gh-complete" ]; then
        return 0
    fi
    gh_step "PostgreSQL $major from source into $prefix"
    local need=()
    command -v bison >/dev/null 2>&1 || need+=(bison)
    command -v flex >/dev/null 2>&1 || need+=(flex)
    command -v curl >/dev/null 2>&1 || need+=(curl)
    dpkg -s libreadline-dev >/dev/null 2>&1 || need+=(libreadline-dev)
    dpkg -s zlib1g-dev >/dev/null 2>&1 || need+=(zlib1g-dev)
    dpkg -s libicu-dev >/dev/null 2>&1 || need+=(libicu-dev)
    dpkg -s pkg-config >/dev/null 2>&1 || need+=(pkg-config)
    [ ${#need[@]} = 0 ] || gh_apt_install "${need[@]}" || gh_die "could not install: ${need[*]}"
    tarball=$(gh_pg_source_fetch "$major") || exit 1
    src=$(mktemp -d "/var/tmp/gh-postgresql-$major.XXXXXX")
    tar -xjf "$tarball" -C "$src" --strip-components=1
    jobs=$(nproc)
    (
        set -e
        cd "$src"
        gh_pg_source_step configure "$src/configure.log" ./configure --prefix="$prefix" --with-icu \
            --with-readline --with-zlib --without-llvm || { tail -n 30 "$src/configure.log"; exit 1; }
        gh_pg_source_step "compiling on $jobs cores" "$src/build.log" make -s -j"$jobs" ||
            { tail -n 40 "$src/build.log"; exit 1; }
        gh_pg_source_step "installing" "$src/install.log" gh_as_root make -s install ||
            { tail -n 20 "$src/install.log"; exit 1; }
        for module in postgres_fdw dblink pg_prewarm pg_buffercache; do
            make -s -C "contrib/$module" -j"$jobs" >>"$src/contrib.log" 2>&1
            gh_as_root make -s -C "contrib/$module" install >>"$src/install.log" 2>&1
        done
    ) || gh_die "building PostgreSQL $major failed (logs in $src)"
    gh_as_root touch "$prefix/.gh-complete"
    rm -rf "$src"
    echo "installed $("$prefix/bin/pg_config" --version) into $prefix"
}
