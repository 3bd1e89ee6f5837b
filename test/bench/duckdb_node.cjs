// duckdb_node.cjs: DuckDB through @duckdb/node-api (the client issue 28 names
// for the dev VM), as a statement executor for duckdb_side.py, which holds
// the SQL, the timing rounds and the checks, so that this client and the C
// API through ctypes (the GPU host's) share one code path.
//
//   node duckdb_node.cjs NODE_MODULES_DIR   (JSON lines on stdin and stdout)
//
// Each request {"sql": ..., "values": bool} is answered with {"ms", "rows"}
// and, when values is set, "values": every row, each column as a string (the
// checks cast to VARCHAR), or with {"error"}.  Timed is run(): DuckDB's
// duckdb_query, the query executed and its result materialized in DuckDB,
// not yet turned into JavaScript values, as the C API side times it.
'use strict';
const path = require('path');
const readline = require('readline');
const { DuckDBInstance } = require(path.resolve(process.argv[2], '@duckdb/node-api'));

(async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const lines = readline.createInterface({ input: process.stdin });
    for await (const line of lines) {
        if (!line.trim()) continue;
        const request = JSON.parse(line);
        let answer;
        try {
            const start = process.hrtime.bigint();
            const result = await connection.run(request.sql);
            const ms = Number(process.hrtime.bigint() - start) / 1e6;
            answer = { ms, rows: result.rowCount };
            if (request.values) {
                const rows = [];
                for (let chunk; (chunk = await result.fetchChunk()) && chunk.rowCount > 0;) {
                    for (const row of chunk.getRows()) rows.push(row.map((v) => (v === null ? null : String(v))));
                }
                answer.values = rows;
            }
        } catch (e) {
            answer = { error: String(e && e.message ? e.message : e) };
        }
        process.stdout.write(JSON.stringify(answer) + '\n');
    }
    connection.closeSync();
    instance.closeSync();
})();
