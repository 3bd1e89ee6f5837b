/*
 * observability.cpp: gpu_histogram_devices() and gpu_histogram_stats(), what
 * this backend sees of the GPU and where its values were binned.
 */
#include "pg_headers.h"

#include "gpu_binning.h"
#include "histogram_state.h"
#include "settings.h"

/*
 * One row per CUDA device this backend sees, or a single row whose `status`
 * says why there is none.  Starts CUDA in this backend unless device = 'cpu'.
 */
GH_FUNCTION(gpu_histogram_devices)
{
    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo *rsinfo = (ReturnSetInfo *)fcinfo->resultinfo;

    gh::DeviceInfo devices[16];
    int count = 0;
    gh::Status s = gh::Status::not_built;
    const char *why = "gpu_histogram.device is 'cpu': CUDA is not touched";
    if (gh_device_mode != DEVICE_CPU) {
        s = gh::gpu_devices(devices, 16, &count);
        why = gh::gpu_last_error();
    }
    for (int i = 0; i < count && s == gh::Status::ok; i++) {
        const gh::DeviceInfo &d = devices[i];
        Datum values[7] = {Int32GetDatum(d.ordinal), CStringGetTextDatum(d.name),
                           Int64GetDatum(static_cast<int64>(d.total_memory)),
                           Int64GetDatum(static_cast<int64>(d.free_memory)),
                           CStringGetTextDatum(psprintf("%d.%d", d.cc_major, d.cc_minor)),
                           Int32GetDatum(d.multiprocessors), CStringGetTextDatum("usable")};
        bool nulls[7] = {false, false, false, false, false, false, false};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
    if (count == 0 || s != gh::Status::ok) {
        Datum values[7] = {0, 0, 0, 0, 0, 0,
                           CStringGetTextDatum(psprintf("no GPU: %s%s%s",
                                                        gh_device_mode == DEVICE_CPU ? "" : gh::status_text(s),
                                                        gh_device_mode == DEVICE_CPU ? "" : ": ", why))};
        bool nulls[7] = {true, true, true, true, true, true, false};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
    return (Datum)0;
}

/* This backend's counters since it started. */
GH_FUNCTION(gpu_histogram_stats)
{
    TupleDesc tupdesc;
    if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
        elog(ERROR, "gpu_histogram_stats must return a record");
    tupdesc = BlessTupleDesc(tupdesc);

    gh::GpuCounters c = gh::gpu_counters();
    Datum values[8] = {Int64GetDatum(gh_values_binned_on_cpu), Int64GetDatum(c.values_binned),
                       Int64GetDatum(c.batches), Float8GetDatum(c.startup_ms),
                       BoolGetDatum(gh::gpu_started()), Int64GetDatum(c.pinned_bytes),
                       Int64GetDatum(c.pinned_buffers), Int32GetDatum(gh_active_leases)};
    bool nulls[8] = {false, false, false, false, false, false, false, false};
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
