#!/usr/bin/env bash
# pg_temp_server.sh: a throwaway PostgreSQL for the demo and the tests.
#
#   source test/pg_temp_server.sh [postgres -c options...]
#
# PostgreSQL refuses to run as root, so when we are root the server runs as
# an unprivileged user (postgres if the package made one, else gh_pg).  Its
# data directory and socket live under a fresh temporary folder; afterwards
# PGHOST, PGPORT, PGUSER and PGDATABASE point at it, `pg_temp_stop` stops it
# and removes the folder, and an EXIT trap does the same if the caller forgets.
# The server preloads gpu_histogram (installed before this runs), so that its
# planner hook (the custom scan) is there for every session's first query.
PG_BIN=${PG_BIN:-$(pg_config --bindir)}
PG_TEMP_DIR=$(mktemp -d /tmp/gpu_histogram_pg.XXXXXX)
chmod 755 "$PG_TEMP_DIR"
if [ "$(id -u)" = 0 ]; then
    PG_TEMP_USER=postgres
    id "$PG_TEMP_USER" >/dev/null 2>&1 || { PG_TEMP_USER=gh_pg; id gh_pg >/dev/null 2>&1 || useradd -M -d /tmp gh_pg; }
    chown "$PG_TEMP_USER" "$PG_TEMP_DIR"
    pg_as_server_user() { runuser -u "$PG_TEMP_USER" -- "$@"; }
else
    PG_TEMP_USER=$(id -un)
    pg_as_server_user() { "$@"; }
fi
# A port nobody listens on: start from 54320 and probe.
PGPORT=${GH_PGPORT:-54320}
while [ -e "/tmp/.s.PGSQL.$PGPORT" ] || [ -e "$PG_TEMP_DIR/.s.PGSQL.$PGPORT" ] || \
      (exec 3<>/dev/tcp/127.0.0.1/$PGPORT) 2>/dev/null; do PGPORT=$((PGPORT + 1)); done
export PGHOST=$PG_TEMP_DIR PGPORT PGUSER=$PG_TEMP_USER PGDATABASE=postgres

pg_as_server_user "$PG_BIN/initdb" -D "$PG_TEMP_DIR/data" -A trust -U "$PG_TEMP_USER" -E UTF8 \
    --locale=C >"$PG_TEMP_DIR/initdb.log" 2>&1 || { cat "$PG_TEMP_DIR/initdb.log"; return 1 2>/dev/null || exit 1; }
pg_as_server_user "$PG_BIN/pg_ctl" -D "$PG_TEMP_DIR/data" -l "$PG_TEMP_DIR/server.log" -w \
    -o "-p $PGPORT -k $PG_TEMP_DIR -c listen_addresses= -c jit=off -c shared_preload_libraries=gpu_histogram $*" start >/dev/null ||
    { cat "$PG_TEMP_DIR/server.log"; return 1 2>/dev/null || exit 1; }

pg_temp_stop() {
    pg_as_server_user "$PG_BIN/pg_ctl" -D "$PG_TEMP_DIR/data" -m fast stop >/dev/null 2>&1
    rm -rf "$PG_TEMP_DIR"
}
trap pg_temp_stop EXIT
