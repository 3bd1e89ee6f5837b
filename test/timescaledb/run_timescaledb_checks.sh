#!/usr/bin/env bash
# run_timescaledb_checks.sh: gpu_histogram's scan over TimescaleDB hypertables
# (test/timescaledb/sql/timescaledb.sql, a pg_regress topic of its own), on
# one PostgreSQL major.
#
#   bash test/timescaledb/run_timescaledb_checks.sh 17
#   bash test/timescaledb/run_timescaledb_checks.sh 18
#
# 17: TimescaleDB 2.19.3 built from Debian's source into the server built
#     from source (test/lib/timescaledb_source.sh), beside the extension that
#     run_suite.sh installed there.
# 18: Debian's archive has no TimescaleDB source for 18, and sid's binaries
#     need a newer glibc: the topic runs inside a sid chroot
#     (test/lib/debian_chroot.sh) against sid's PostgreSQL 18 and TimescaleDB
#     2.31.0, with the extension built there from this tree's tracked files.
# Other majors: skipped (exit 77).  Exit 0 when the topic passes.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
major=${1:?usage: run_timescaledb_checks.sh MAJOR}
inside=${2:-}

# Starts a server with TimescaleDB and the extension preloaded and runs the
# topic; PG_CONFIG names the server.  The job scheduler is off: Debian's
# TimescaleDB is Apache-only, and its default job is not.
run_topic() {
    local bindir pgxs out
    bindir=$("$PG_CONFIG" --bindir)
    pgxs=$(dirname "$("$PG_CONFIG" --pgxs)")
    out=$PWD/build/timescaledb-pg$major
    rm -rf "$out"
    mkdir -p "$out"
    chmod 777 "$out"
    PG_BIN=$bindir
    # shellcheck source=SCRIPTDIR/../pg_temp_server.sh
    source test/pg_temp_server.sh -c shared_preload_libraries=timescaledb,gpu_histogram \
        -c timescaledb.max_background_workers=0 -c timescaledb.telemetry_level=off
    echo "server $("$bindir/postgres" --version) with timescaledb, port $PGPORT"
    set +e
    "$pgxs/../test/regress/pg_regress" --inputdir=test/timescaledb --outputdir="$out" \
        --bindir="$bindir" --dbname=timescaledb_regression timescaledb
    local rc=$?
    set -e
    [ "$rc" = 0 ] || cat "$out/regression.diffs" 2>/dev/null || true
    pg_temp_stop
    trap - EXIT
    return "$rc"
}

if [ "$inside" = --inside-chroot ]; then
    # In the chroot, as root: build and install against sid's server, then run.
    PG_CONFIG=/usr/lib/postgresql/$major/bin/pg_config
    make -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" WITH_CUDA=no >build-chroot.log 2>&1 ||
        { tail -n 40 build-chroot.log; exit 1; }
    make -s PG_CONFIG="$PG_CONFIG" WITH_CUDA=no install >/dev/null
    run_topic
    exit $?
fi

source test/lib/prepare.sh
case $major in
    17)
        GH_PG_MAJOR=17
        gh_find_pg_config
        gh_timescaledb_install 17
        gh_check_pg_config >/dev/null
        gh_make_vars
        make -s -j"$(nproc)" "${GH_MAKE_VARS[@]}" >/dev/null
        gh_as_root make -s "${GH_MAKE_VARS[@]}" install >/dev/null
        run_topic
        ;;
    18)
        # shellcheck source=SCRIPTDIR/../lib/debian_chroot.sh
        source test/lib/debian_chroot.sh
        read -r -a packages <<<"$(gh_chroot_pg_packages 18)"
        gh_chroot_ensure sid "${packages[@]}"
        # the tracked files (and the uncommitted changes to them), not this
        # tree's build products, which belong to the host's compiler
        src=$(mktemp -d /var/tmp/gh-chroot-src.XXXXXX)
        git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$src"
        chmod -R a+rX "$src"
        set +e
        GH_CHROOT_BIND=$src gh_chroot_run sid bash test/timescaledb/run_timescaledb_checks.sh 18 --inside-chroot
        rc=$?
        set -e
        mkdir -p build
        rm -rf build/timescaledb-pg18
        cp -r "$src/build/timescaledb-pg18" build/ 2>/dev/null || true
        rm -rf "$src"
        exit "$rc"
        ;;
    *)
        echo "SKIPPED: TimescaleDB checks run on PostgreSQL 17 and 18 only"
        exit 77
        ;;
esac
