#!/usr/bin/env bash
# timescaledb_source.sh: TimescaleDB for the PostgreSQL majors built from
# source (17, 18; test/lib/postgres_source.sh), built from the source that
# Debian's archive carries.
#
#   source test/lib/timescaledb_source.sh   # prepare.sh does this
#   gh_timescaledb_install 17   # builds and installs into /usr/local/pgsql-17 once
#   gh_timescaledb_version 17   # prints "2.19.3 2.19.3+dfsg-1+deb13u1"
#
# Why: TimescaleDB's time_bucket() and histogram() are what gpu_histogram is
# compared with, and Debian 12 has no timescaledb package at all; trixie's
# and sid's binary packages are built for their own PostgreSQL packages (and
# glibc), not for the servers in /usr/local/pgsql-MAJOR. Their source builds
# here with cmake in about a minute on two cores. It comes from the
# archive's pool through postgres_source.sh's private apt configuration
# (trixie and sid deb-src), never through the system's sources.
#
# Debian's tarballs are "+dfsg": the Timescale-License directory tsl/ is
# removed, so the build is Apache-only (as Debian's own package is). What
# stays is what a comparison with gpu_histogram needs: hypertables, chunk
# exclusion, drop_chunks, time_bucket() (every signature, timezone, origin
# and offset included) and the histogram() aggregate. Compression, continuous
# aggregates, time_bucket_gapfill and the job policies are TSL: absent, or
# declared but refusing to run.
#
# The server needs shared_preload_libraries='timescaledb' before
# CREATE EXTENSION timescaledb works. Start it with
# -c timescaledb.max_background_workers=0 too: otherwise the job scheduler
# runs the "Job History Log Retention Policy" job, which is TSL, and logs an
# ERROR ("functionality not supported under the current apache license") at
# every start.

GH_PG_SOURCE_CACHE=${GH_PG_SOURCE_CACHE:-/var/cache/gpu_histogram}

# The release each major gets: upstream version, then Debian's source version.
# 2.19.3 (trixie) supports PostgreSQL 14 to 17 only; 18 needs a later
# release, and 2.31.0 is sid's. (Where the archive's pool lacks a tarball
# that its index names, the fetch fails and says where to put the file.)
gh_timescaledb_version() { # major -> "upstream debian-version"
    case $1 in
        17) echo "2.19.3 2.19.3+dfsg-1+deb13u1" ;;
        18) echo "2.31.0 2.31.0+dfsg-1" ;;
        *) return 1 ;;
    esac
}

# The SHA-256 that the private index gives for a file of a source version.
gh_timescaledb_sha256() { # debian-version file
    gh_pg_source_apt apt-cache showsrc timescaledb 2>/dev/null |
        awk -v RS= -v v="$1" -v f="$2" '
            index($0 "\n", "\nVersion: " v "\n") {
                n = split($0, line, "\n"); sha = 0
                for (i = 1; i <= n; i++) {
                    if (line[i] ~ /^[^ ]/) sha = (line[i] ~ /^Checksums-Sha256:/)
                    else if (sha) { split(line[i], w, " "); if (w[3] == f) { print w[1]; exit } }
                }
            }'
}

# Downloads Debian's .orig tarball of a major's release into the cache, checks
# it against the index's SHA-256 and prints its path. apt-get source first;
# if it refuses, the file straight from the pool directory the index names.
gh_timescaledb_fetch() { # major
    local major=$1 upstream debver file tarball want dl url
    read -r upstream debver < <(gh_timescaledb_version "$major") ||
        gh_die "no TimescaleDB release known for PostgreSQL $major"
    file=timescaledb_$upstream+dfsg.orig.tar.xz
    tarball=$GH_PG_SOURCE_CACHE/$file
    gh_pg_source_cache || gh_die "cannot make $GH_PG_SOURCE_CACHE"
    want=$(gh_timescaledb_sha256 "$debver" "$file")
    if [ -z "$want" ]; then
        gh_pg_source_apt apt-get update -qq >&2 ||
            echo "apt-get update of the private trixie/sid index failed" >&2
        want=$(gh_timescaledb_sha256 "$debver" "$file")
    fi
    [ -n "$want" ] || echo "the private trixie/sid index does not name timescaledb $debver; its tarball is not checked" >&2
    if [ -s "$tarball" ] && [ -n "$want" ] &&
       [ "$(sha256sum "$tarball" | cut -d' ' -f1)" != "$want" ]; then
        echo "$tarball does not match the index's SHA-256; downloading it again" >&2
        rm -f "$tarball"
    fi
    if [ ! -s "$tarball" ]; then
        dl=$(mktemp -d "$GH_PG_SOURCE_CACHE/timescaledb-dl.XXXXXX")
        # apt's download sandbox user must be able to write there
        [ "$(id -u)" != 0 ] || ! id _apt >/dev/null 2>&1 || chown _apt "$dl"
        echo "downloading timescaledb $debver (apt-get source)" >&2
        if (cd "$dl" && gh_pg_source_apt apt-get source --download-only -qq \
                "timescaledb=$debver") >"$dl/apt.log" 2>&1 && [ -s "$dl/$file" ]; then
            mv "$dl/$file" "$tarball"
        else
            sed 's/^/  /' "$dl/apt.log" >&2
            url=$(gh_pg_source_url timescaledb "$file")
            echo "apt-get source failed; downloading $url" >&2
            curl -fsS --retry 3 -o "$tarball.part" "$url" || {
                rm -rf "$tarball.part" "$dl"
                gh_die "could not download timescaledb $debver for PostgreSQL $major: the archive's pool has no $file (put it, sha256 ${want:-unknown}, at $tarball and run again)"
            }
            mv "$tarball.part" "$tarball"
        fi
        rm -rf "$dl"
        if [ -n "$want" ] && [ "$(sha256sum "$tarball" | cut -d' ' -f1)" != "$want" ]; then
            rm -f "$tarball"
            gh_die "$file from the archive does not match the index's SHA-256 $want"
        fi
    fi
    echo "$tarball"
}

# Builds and installs a major's TimescaleDB into that server's prefix unless
# the same release is there already (stamp: $prefix/.gh-timescaledb-complete).
gh_timescaledb_install() { # major
    local major=$1 upstream debver prefix pg_config stamp tarball src jobs started
    read -r upstream debver < <(gh_timescaledb_version "$major") ||
        gh_die "no TimescaleDB release known for PostgreSQL $major"
    prefix=$(gh_pg_source_prefix "$major")
    stamp=$prefix/.gh-timescaledb-complete
    pg_config=$prefix/bin/pg_config
    if [ -x "$pg_config" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$debver" ] &&
       [ -f "$("$pg_config" --pkglibdir)/timescaledb-$upstream.so" ] &&
       [ -f "$("$pg_config" --sharedir)/extension/timescaledb.control" ]; then
        return 0
    fi
    gh_pg_source_install "$major"
    [ -x "$pg_config" ] || gh_die "no $pg_config to build TimescaleDB against"
    gh_step "TimescaleDB $upstream (Debian $debver) for PostgreSQL $major into $prefix"
    started=$SECONDS
    local need=()
    command -v cmake >/dev/null 2>&1 || need+=(cmake)
    command -v make >/dev/null 2>&1 || need+=(make)
    command -v cc >/dev/null 2>&1 || need+=(gcc)
    command -v xz >/dev/null 2>&1 || need+=(xz-utils)
    command -v curl >/dev/null 2>&1 || need+=(curl)
    [ ${#need[@]} = 0 ] || gh_apt_install "${need[@]}" || gh_die "could not install: ${need[*]}"
    tarball=$(gh_timescaledb_fetch "$major") || exit 1
    src=$(mktemp -d "/var/tmp/gh-timescaledb-$major.XXXXXX")
    tar -xJf "$tarball" -C "$src" --strip-components=1
    jobs=$(nproc)
    # OpenSSL off: postgres_source.sh builds the server without it, and
    # TimescaleDB refuses OpenSSL when the server lacks it. Telemetry off as
    # in Debian's package (the tests have no network).
    (
        set -e
        cmake -S "$src" -B "$src/build" -DPG_CONFIG="$pg_config" \
            -DCMAKE_BUILD_TYPE=Release -DAPACHE_ONLY=ON \
            -DREGRESS_CHECKS=OFF -DTAP_CHECKS=OFF -DWARNINGS_AS_ERRORS=OFF \
            -DUSE_OPENSSL=OFF -DUSE_TELEMETRY=OFF -DSEND_TELEMETRY_DEFAULT=OFF \
            >"$src/cmake.log" 2>&1 || { tail -n 30 "$src/cmake.log"; exit 1; }
        cmake --build "$src/build" -j "$jobs" >"$src/build.log" 2>&1 ||
            { tail -n 40 "$src/build.log"; exit 1; }
        gh_as_root cmake --install "$src/build" >"$src/install.log" 2>&1 ||
            { tail -n 20 "$src/install.log"; exit 1; }
    ) || gh_die "building TimescaleDB $upstream for PostgreSQL $major failed (logs in $src)"
    [ -f "$("$pg_config" --pkglibdir)/timescaledb-$upstream.so" ] ||
        gh_die "TimescaleDB $upstream installed no timescaledb-$upstream.so (logs in $src)"
    echo "$debver" | gh_as_root tee "$stamp" >/dev/null
    rm -rf "$src"
    echo "installed TimescaleDB $upstream for $("$pg_config" --version) into $prefix in $((SECONDS - started)) s"
}
