/*
 * tsdb_bucket.h: TimescaleDB's time_bucket() as a GROUP BY key of the scan.
 *
 * Dashboards over hypertables group by time_bucket(width, ts [, origin |
 * offset | timezone, origin, offset]) over timestamptz, timestamp and date.
 * The extension has no link to TimescaleDB: the planner recognizes the
 * function by its name and the schema the timescaledb extension lives in,
 * and only when that extension is installed in the database.
 *
 * TimescaleDB's own function is the reference, and every key comes from it:
 * the scan calls it for a row whose ts lies outside the intervals it already
 * knows, then asks it for the bucket at the ends of the widest candidate
 * interval around ts.  Where both ends give the same bucket, every ts
 * between does, so later rows in the interval cost a comparison.  That
 * holds because the local time is ts plus a constant offset inside an
 * interval with no transition of the zones involved (the interval is cut at
 * them), bucketing local time by a fixed width or by months is monotonic,
 * and the interval is kept narrower than one bucket: at most two buckets
 * meet in it, and both ends equal means both are the same one.  So the
 * answer is TimescaleDB's, whatever its release computes, including its
 * errors (which its function raises from the row that causes them).
 */
#ifndef GH_SCAN_TSDB_BUCKET_H
#define GH_SCAN_TSDB_BUCKET_H

#include "time_keys.h"

namespace gpu_histogram {

/* Every time_bucket() form takes the column as its second argument. */
constexpr int kTsdbTsArg = 1;

/* The planner's view of one time_bucket() key. */
struct TsdbBucketDef {
    Oid funcid;
    int nargs;      /* 2 to 5: the function's arguments after defaults were added */
    Expr *args[5];  /* the others, fixed for the scan; NULL at kTsdbTsArg */
};

/*
 * Whether f is TimescaleDB's time_bucket over a timestamptz, timestamp or
 * date column of relid (the column's type is also the key's), with the other
 * arguments fixed for the scan.  Fills *def, *attno and *type.
 */
bool tsdb_bucket_parse(const FuncExpr *f, Index relid, TsdbBucketDef *def, AttrNumber *attno, Oid *type);

/* One time_bucket() key at run time. */
struct TsdbBucket {
    FmgrInfo flinfo;
    int nargs;
    Oid coltype;
    Oid argtypes[5];
    Datum args[5];        /* the fixed arguments, evaluated once */
    bool nulls[5];
    int64 span;           /* the widest interval that can be verified, minus one; 0: none */
    int nzones;           /* the zones whose transitions cut intervals */
    TzOffsetCache zones[2];
    const char *zone_name; /* the timezone argument, for EXPLAIN; NULL without one */
    int64 hit_lo;         /* every ts in [hit_lo, hit_hi] has key hit_result */
    int64 hit_hi;
    int64 hit_result;
    BinInterval *cache;   /* kBinCacheSize verified intervals, by bucket number */
};

/* Sets up the key; allocations in the current memory context. */
void tsdb_bucket_init(TsdbBucket *b, const TsdbBucketDef &def, Oid coltype);

/* The fixed arguments' values (a NULL where the argument is NULL); before the first row. */
void tsdb_bucket_set_args(TsdbBucket *b, const Datum *values, const bool *nulls);

/* The key of ts (microseconds, or a date's day number); false where it is NULL. */
bool tsdb_bucket_compute(TsdbBucket *b, int64 ts, int64 *key);

static inline bool tsdb_bucket_value(TsdbBucket *b, int64 ts, int64 *key)
{
    if (likely(ts >= b->hit_lo && ts <= b->hit_hi)) {
        *key = b->hit_result; /* time-ordered rows: most rows */
        return true;
    }
    return tsdb_bucket_compute(b, ts, key);
}

/*
 * Whether the function may be called for any timestamp at least 400 days
 * inside the type's range with no error to raise, so that the key's
 * buckets can be verified over a range no row need cover (the GPU's
 * interval tables, key_tables.h): a timestamp or timestamptz column,
 * intervals cacheable, a width of at most 366 days without negative parts,
 * an origin inside the same range and an offset of at most 31 days.  Then
 * a bucket's start lies within a width, an offset and a zone's day of its
 * value, far from the range's ends.
 */
bool tsdb_bucket_range_safe(const TsdbBucket *b);

/* "time_bucket" and its zone, for EXPLAIN. */
const char *tsdb_bucket_describe(const TsdbBucket *b);

} // namespace gpu_histogram

#endif /* GH_SCAN_TSDB_BUCKET_H */
