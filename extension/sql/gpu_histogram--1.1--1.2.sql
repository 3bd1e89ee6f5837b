-- gpu_histogram 1.1 -> 1.2: the GPU service.  CREATE EXTENSION installs 1.0
-- and applies every update; ALTER EXTENSION gpu_histogram UPDATE runs this
-- on an installed 1.1.

\echo Use "ALTER EXTENSION gpu_histogram UPDATE TO '1.2'" to load this file. \quit

-- The GPUs now belong to one background worker, the GPU service, so the
-- observability functions report it instead of this backend's CUDA context
-- and pinned memory.  Their result types change: drop and create them again.

DROP FUNCTION gpu_histogram_devices();

CREATE FUNCTION gpu_histogram_devices(
    OUT ordinal integer, OUT name text, OUT total_memory bigint, OUT free_memory bigint,
    OUT compute_capability text, OUT multiprocessors integer, OUT status text,
    OUT batches bigint, OUT values_binned bigint, OUT device_histograms integer)
RETURNS SETOF record AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpu_histogram_devices() IS
'the GPUs the GPU service uses, with the batches and values it binned on each and the device histograms open there, or one row saying why there is none';

DROP FUNCTION gpu_histogram_stats();

CREATE FUNCTION gpu_histogram_stats(
    OUT values_cpu bigint, OUT values_gpu bigint, OUT gpu_batches bigint, OUT device_histograms integer,
    OUT service_state text, OUT service_pid integer, OUT service_starts integer,
    OUT service_cuda_startup_ms float8, OUT service_devices integer,
    OUT service_slots integer, OUT service_slots_in_use integer,
    OUT service_device_histograms integer, OUT service_device_bytes bigint,
    OUT service_batches bigint, OUT service_values bigint, OUT service_message text)
RETURNS record AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpu_histogram_stats() IS
'this backend''s values binned on the CPU and sent to the GPU service, its batches and open device histograms; and the service: state, pid, starts, CUDA start-up, devices, slots in use, device histograms and memory, batches, values, last message';
