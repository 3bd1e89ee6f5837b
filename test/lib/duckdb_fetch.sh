#!/usr/bin/env bash
# duckdb_fetch.sh: DuckDB for the dashboards benchmark's comparison column,
# from npm, into the ignored folder .duckdb/ (never committed).
#
#   bash test/lib/duckdb_fetch.sh     # once, on a machine with the npm registry
#
# The GPU host has no network; it gets the checkout plus at most 64 MiB of
# ignored paths.  npm's libduckdb.so is 67 MiB, so besides node_modules (what
# the dev VM runs through @duckdb/node-api) this leaves the same library,
# stripped of its debugging symbols (the C API's dynamic symbols stay) and
# xz-compressed, as .duckdb/libduckdb.so.xz, about 15 MiB: the one path to
# carry.  duckdb_side.py unpacks it there.  A second run fetches nothing.
set -euo pipefail
GH_DUCKDB_VERSION=${GH_DUCKDB_VERSION:-1.5.6-r.1}   # npm's version; DuckDB 1.5.6, as in issue 28
dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.duckdb
stamp=$dir/version
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$GH_DUCKDB_VERSION" ] && [ -f "$dir/libduckdb.so.xz" ] &&
   [ -d "$dir/node/node_modules/@duckdb/node-api" ]; then
    exit 0
fi
for tool in npm strip xz; do
    command -v $tool >/dev/null 2>&1 || { echo "duckdb_fetch.sh: no $tool here" >&2; exit 1; }
done
rm -rf "$dir" && mkdir -p "$dir/node"
echo "fetching @duckdb/node-api@$GH_DUCKDB_VERSION from npm into $dir"
# node-api pins node-bindings to its own version, whose linux-x64 package holds libduckdb.so
npm install --prefix "$dir/node" --no-audit --no-fund --no-save "@duckdb/node-api@$GH_DUCKDB_VERSION" >/dev/null
so=$dir/node/node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so
[ -f "$so" ] || { echo "duckdb_fetch.sh: $so is missing (not linux-x64?)" >&2; exit 1; }
strip -o "$dir/libduckdb.so" "$so"
xz -T0 -c "$dir/libduckdb.so" >"$dir/libduckdb.so.xz.part"
mv "$dir/libduckdb.so.xz.part" "$dir/libduckdb.so.xz"
echo "$GH_DUCKDB_VERSION" >"$stamp"
echo "libduckdb.so: $(stat -c %s "$so") bytes from npm, $(stat -c %s "$dir/libduckdb.so.xz") bytes as .duckdb/libduckdb.so.xz"
