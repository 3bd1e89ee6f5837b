/*
 * observability.cpp: gpu_histogram_devices() and gpu_histogram_stats(): the
 * GPU service as every session sees it, and where this backend's values
 * were binned.  Neither touches CUDA: the service publishes what it knows in
 * shared memory.
 */
#include "pg_headers.h"

#include "histogram_state.h"
#include "service/service_shared.h"

namespace gpu_histogram {

namespace {

const char *state_name(ServiceState state)
{
    switch (state) {
    case SERVICE_DOWN: return "down";
    case SERVICE_STARTING: return "starting";
    case SERVICE_UP: return "up";
    case SERVICE_NO_GPU: return "no GPU";
    }
    return "unknown";
}

/*
 * The columns the database declared for fn are the ones this library
 * fills: the types in order.  A database whose extension is older than
 * the library (CREATE EXTENSION ... VERSION '1.0', or a library upgraded
 * without ALTER EXTENSION ... UPDATE) declared other columns, 1.0's
 * gpu_histogram_stats() a boolean where 1.2 puts text; filled by 1.2's
 * positions, a datum of one type would be read as another.  Refused
 * instead, with the command that brings the declaration up to date.
 */
void require_declared_columns(const char *fn, TupleDesc declared, const Oid *types, int ncolumns)
{
    bool same = declared->natts == ncolumns;
    for (int i = 0; same && i < ncolumns; i++) {
        Form_pg_attribute att = TupleDescAttr(declared, i);
        same = !att->attisdropped && att->atttypid == types[i];
    }
    if (!same)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("%s() is declared by an older version of the gpu_histogram extension than its library",
                        fn),
                 errdetail("The library fills %d columns; the function is declared with %d.", ncolumns,
                           declared->natts),
                 errhint("Run ALTER EXTENSION gpu_histogram UPDATE.")));
}

constexpr Oid kDeviceColumns[] = {INT4OID, TEXTOID, INT8OID, INT8OID, TEXTOID,
                                  INT4OID, TEXTOID, INT8OID, INT8OID, INT4OID};
constexpr Oid kStatsColumns[] = {INT8OID, INT8OID, INT8OID, INT4OID, TEXTOID, INT4OID, INT4OID, FLOAT8OID,
                                 INT4OID, INT4OID, INT4OID, INT4OID, INT8OID, INT8OID, INT8OID, TEXTOID};

/* A copy of the service's shared state, taken under its lock. */
ServiceShared snapshot(void)
{
    ServiceShared copy;
    service_lock();
    memcpy(&copy, gh_service, sizeof copy);
    service_unlock();
    return copy;
}

} // namespace

/*
 * One row per GPU the service uses, with what it has binned there, or a
 * single row whose `status` says why there is none and what happens instead.
 */
GH_FUNCTION(gpu_histogram_devices)
{
    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo *rsinfo = (ReturnSetInfo *)fcinfo->resultinfo;
    require_declared_columns("gpu_histogram_devices", rsinfo->setDesc, kDeviceColumns, lengthof(kDeviceColumns));

    const char *why;
    if (gh_service == NULL) {
        why = "no GPU: gpu_histogram is not in shared_preload_libraries, so the GPU service is not running and "
              "every value is binned on the CPU";
    } else {
        ServiceShared s = snapshot();
        if (s.state == SERVICE_UP) {
            for (int i = 0; i < s.ndevices; i++) {
                const ServiceDevice &d = s.devices[i];
                Datum values[10] = {Int32GetDatum(d.info.ordinal), CStringGetTextDatum(d.info.name),
                                    Int64GetDatum(static_cast<int64>(d.info.total_memory)),
                                    Int64GetDatum(static_cast<int64>(d.info.free_memory)),
                                    CStringGetTextDatum(psprintf("%d.%d", d.info.cc_major, d.info.cc_minor)),
                                    Int32GetDatum(d.info.multiprocessors), CStringGetTextDatum("usable"),
                                    Int64GetDatum(d.batches), Int64GetDatum(d.values), Int32GetDatum(d.histograms)};
                bool nulls[10] = {};
                tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
            }
            return (Datum)0;
        }
        why = psprintf("no GPU: the GPU service %s (%s); values are binned on the CPU",
                       s.state == SERVICE_NO_GPU     ? "found none"
                       : s.state == SERVICE_STARTING ? "is starting"
                                                     : "is not running",
                       s.message);
    }
    Datum values[10] = {};
    bool nulls[10] = {true, true, true, true, true, true, false, true, true, true};
    values[6] = CStringGetTextDatum(why);
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    return (Datum)0;
}

/* This backend's counters since it started, and the service's now. */
GH_FUNCTION(gpu_histogram_stats)
{
    TupleDesc tupdesc;
    if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
        elog(ERROR, "gpu_histogram_stats must return a record");
    constexpr int kColumns = lengthof(kStatsColumns);
    require_declared_columns("gpu_histogram_stats", tupdesc, kStatsColumns, kColumns);
    tupdesc = BlessTupleDesc(tupdesc);

    Datum values[kColumns] = {Int64GetDatum(gh_values_binned_on_cpu), Int64GetDatum(gh_values_sent_to_gpu),
                              Int64GetDatum(gh_batches_sent_to_gpu), Int32GetDatum(gh_histograms_open)};
    bool nulls[kColumns] = {};
    if (gh_service == NULL) {
        values[4] = CStringGetTextDatum("not preloaded");
        for (int i = 5; i < kColumns; i++)
            nulls[i] = true;
    } else {
        ServiceShared s = snapshot();
        values[4] = CStringGetTextDatum(state_name(s.state));
        values[5] = Int32GetDatum(s.pid);
        nulls[5] = s.pid == 0;
        values[6] = Int32GetDatum(s.starts);
        values[7] = Float8GetDatum(s.startup_ms);
        values[8] = Int32GetDatum(s.state == SERVICE_UP ? s.ndevices : 0);
        values[9] = Int32GetDatum(s.nslots);
        values[10] = Int32GetDatum(s.slots_in_use);
        values[11] = Int32GetDatum(s.histograms_open);
        values[12] = Int64GetDatum(s.device_bytes);
        values[13] = Int64GetDatum(s.batches);
        values[14] = Int64GetDatum(s.values);
        /* why there is no GPU, or else the last fatal CUDA error, if any */
        values[15] = CStringGetTextDatum(s.message[0] != '\0' ? s.message : s.last_failure);
    }
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

} // namespace gpu_histogram
