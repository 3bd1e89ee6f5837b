#!/usr/bin/env bash
# duckdb_fetch.sh: DuckDB for the dashboards benchmark's comparison column,
# from npm, into ignored folders (never committed).
#
#   bash test/lib/duckdb_fetch.sh     # on a machine with the npm registry
#
# build/duckdb/node: @duckdb/node-api, what the dev VM runs.
# .duckdb/libduckdb.so.xz: for the GPU host, which has no network and gets
#   the checkout plus at most 64 MiB of ignored paths.  npm's libduckdb.so
#   (in @duckdb/node-bindings-linux-x64, which node-api pulls in) is 67 MiB,
#   so it is stripped of its debugging symbols (the C API's dynamic symbols
#   stay) and xz-compressed: 14.3 MiB, the one folder to carry.
#   duckdb_engines.py unpacks it into build/duckdb/.
# A second run fetches nothing; after `make clean` only node-api again.
set -euo pipefail
GH_DUCKDB_VERSION=${GH_DUCKDB_VERSION:-1.5.6-r.1}   # npm's version; DuckDB 1.5.6, as in issue 28
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
carry=$root/.duckdb
cache=$root/build/duckdb
fresh() { [ -f "$1/version" ] && [ "$(cat "$1/version")" = "$GH_DUCKDB_VERSION" ]; }
if fresh "$carry" && fresh "$cache"; then exit 0; fi
for tool in npm strip xz; do
    command -v $tool >/dev/null 2>&1 || { echo "duckdb_fetch.sh: no $tool here" >&2; exit 1; }
done
if ! fresh "$cache"; then
    rm -rf "$cache" && mkdir -p "$cache/node"
    echo "fetching @duckdb/node-api@$GH_DUCKDB_VERSION from npm into $cache/node"
    # node-api pins node-bindings to its own version
    npm install --prefix "$cache/node" --no-audit --no-fund --no-save "@duckdb/node-api@$GH_DUCKDB_VERSION" >/dev/null
    echo "$GH_DUCKDB_VERSION" >"$cache/version"
fi
if ! fresh "$carry"; then
    so=$cache/node/node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so
    [ -f "$so" ] || { echo "duckdb_fetch.sh: $so is missing (not linux-x64?)" >&2; exit 1; }
    rm -rf "$carry" && mkdir -p "$carry"
    strip -o "$cache/libduckdb.so" "$so"
    xz -T0 -c "$cache/libduckdb.so" >"$carry/libduckdb.so.xz"
    echo "$GH_DUCKDB_VERSION" >"$carry/version"
    echo "libduckdb.so: $(stat -c %s "$so") bytes from npm, $(stat -c %s "$carry/libduckdb.so.xz") in .duckdb/libduckdb.so.xz"
fi
