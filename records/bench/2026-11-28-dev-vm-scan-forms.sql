\timing on
SET max_parallel_workers_per_gather = 0;
SET gpu_histogram.device = cpu;
SET TimeZone = 'America/New_York';
\o /dev/null
SELECT count(x) FROM t;
\echo count
SELECT count(x) FROM t;
\echo time_daily_scan
SELECT gpu_histogram(ts, '2026-01-01', '2026-04-27', 116) FROM t;
\echo time_minute_scan
SELECT gpu_histogram(ts, '2026-01-01', '2026-04-27', 167040) FROM t;
\echo thresholds8_scan
SELECT gpu_histogram(x, '{0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.9}'::float8[]) FROM t;
\echo time_by_g_scan
SELECT g, gpu_histogram(ts, '2026-01-01', '2026-04-27', 116) FROM t GROUP BY g;
SET gpu_histogram.scan = off;
\echo time_daily_agg
SELECT gpu_histogram(ts, '2026-01-01', '2026-04-27', 116) FROM t;
\echo thresholds8_agg
SELECT gpu_histogram(x, '{0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.9}'::float8[]) FROM t;
\echo time_by_g_agg
SELECT g, gpu_histogram(ts, '2026-01-01', '2026-04-27', 116) FROM t GROUP BY g;
SET gpu_histogram.scan = on;
\echo count
SELECT count(x) FROM t;
