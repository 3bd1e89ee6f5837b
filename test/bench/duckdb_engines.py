"""duckdb_engines.py: the two ways the dashboards benchmark reaches DuckDB.

Issue 28 wants DuckDB from npm on both machines: @duckdb/node-api on the dev
VM, and on the GPU host, which has Python 3 but no node and no network, the
same package's libduckdb.so through DuckDB's C API (ctypes).  Both answer
run(sql, values) with (ms, rows, values), so that duckdb_side.py loads the
data, checks and times with one code path and the same SQL.  Timed, in both,
is duckdb_query: the query executed and its result materialized in DuckDB,
not converted to the client language's values.
"""
import ctypes
import json
import lzma
import os
import shutil
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CARRIED = os.path.join(ROOT, ".duckdb")         # libduckdb.so.xz, what the GPU host gets
CACHE = os.path.join(ROOT, "build", "duckdb")   # node-api and the unpacked .so, never carried
NODE_MODULES = os.path.join(CACHE, "node", "node_modules")


class DuckDBError(Exception):
    pass


class NodeEngine:
    name = "@duckdb/node-api"

    def __init__(self):
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "duckdb_node.cjs")
        self.proc = subprocess.Popen(["node", script, NODE_MODULES], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)

    def run(self, sql, values=False):
        self.proc.stdin.write(json.dumps({"sql": sql, "values": values}) + "\n")
        line = self.proc.stdout.readline()
        if not line:
            raise DuckDBError(f"node exited ({self.proc.wait()}) on: {sql}")
        answer = json.loads(line)
        if "error" in answer:
            raise DuckDBError(f"{answer['error']}\n  in: {sql}")
        return answer["ms"], answer["rows"], answer.get("values")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


class _Result(ctypes.Structure):
    # duckdb_result of duckdb.h (1.x): only internal_data matters to the API
    _fields_ = [("column_count", ctypes.c_uint64), ("row_count", ctypes.c_uint64),
                ("rows_changed", ctypes.c_uint64), ("columns", ctypes.c_void_p),
                ("error_message", ctypes.c_char_p), ("internal_data", ctypes.c_void_p)]


def _library_path():
    """libduckdb.so: GH_DUCKDB_LIB, or the one in .duckdb/, unpacked once."""
    if os.environ.get("GH_DUCKDB_LIB"):
        return os.environ["GH_DUCKDB_LIB"]
    so, xz = os.path.join(CACHE, "libduckdb.so"), os.path.join(CARRIED, "libduckdb.so.xz")
    if not os.path.exists(so) or (os.path.exists(xz) and os.path.getmtime(so) < os.path.getmtime(xz)):
        if not os.path.exists(xz):
            return None
        try:
            _unpack(xz, so)
        except OSError:  # a read-only checkout: unpack it elsewhere
            so = os.path.join(tempfile.gettempdir(), f"gh_libduckdb_{os.getpid()}.so")
            _unpack(xz, so)
    return so


def _unpack(xz, so):
    os.makedirs(os.path.dirname(so), exist_ok=True)
    with lzma.open(xz) as src, open(so + ".part", "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 22)
    os.replace(so + ".part", so)


class CapiEngine:
    name = "C API (ctypes)"

    def __init__(self):
        path = _library_path()
        if path is None:
            raise DuckDBError("no libduckdb.so (.duckdb/libduckdb.so.xz or GH_DUCKDB_LIB)")
        lib = self.lib = ctypes.CDLL(path)
        u64, vp = ctypes.c_uint64, ctypes.c_void_p
        lib.duckdb_row_count.restype = u64
        lib.duckdb_column_count.restype = u64
        lib.duckdb_result_error.restype = ctypes.c_char_p
        lib.duckdb_value_is_null.restype = ctypes.c_bool
        lib.duckdb_value_is_null.argtypes = [vp, u64, u64]
        lib.duckdb_value_varchar.restype = vp
        lib.duckdb_value_varchar.argtypes = [vp, u64, u64]
        lib.duckdb_free.argtypes = [vp]
        self.db, self.con = vp(), vp()
        if lib.duckdb_open(None, ctypes.byref(self.db)) != 0 or \
                lib.duckdb_connect(self.db, ctypes.byref(self.con)) != 0:
            raise DuckDBError(f"duckdb_open or duckdb_connect failed ({path})")

    def run(self, sql, values=False):
        lib, res = self.lib, _Result()
        start = time.perf_counter()
        state = lib.duckdb_query(self.con, sql.encode(), ctypes.byref(res))
        ms = (time.perf_counter() - start) * 1e3
        try:
            if state != 0:
                raise DuckDBError(f"{lib.duckdb_result_error(ctypes.byref(res)).decode()}\n  in: {sql}")
            rows = lib.duckdb_row_count(ctypes.byref(res))
            out = None
            if values:
                cols, out, r = lib.duckdb_column_count(ctypes.byref(res)), [], ctypes.addressof(res)
                for i in range(rows):
                    row = []
                    for c in range(cols):
                        if lib.duckdb_value_is_null(r, c, i):
                            row.append(None)
                            continue
                        p = lib.duckdb_value_varchar(r, c, i)
                        row.append(ctypes.string_at(p).decode())
                        lib.duckdb_free(p)
                    out.append(row)
            return ms, rows, out
        finally:
            lib.duckdb_destroy_result(ctypes.byref(res))

    def close(self):
        self.lib.duckdb_disconnect(ctypes.byref(self.con))
        self.lib.duckdb_close(ctypes.byref(self.db))


def open_engine(kind):
    """kind: node, capi or auto (node where it is installed, else the C API).
    Returns (engine, None), or (None, why not)."""
    have_node = shutil.which("node") and os.path.isdir(os.path.join(NODE_MODULES, "@duckdb", "node-api"))
    if kind == "auto":
        kind = "node" if have_node else "capi"
    try:
        if kind == "node":
            if not have_node:
                return None, "no node, or no @duckdb/node-api in build/duckdb/ (bash test/lib/duckdb_fetch.sh)"
            return NodeEngine(), None
        return CapiEngine(), None
    except (DuckDBError, OSError) as e:
        return None, str(e)
