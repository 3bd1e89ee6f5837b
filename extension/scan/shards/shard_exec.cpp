/*
 * shard_exec.cpp: the GpuHistogramShards node at run time: each row the
 * shards send, a group's whole aggregates, becomes the partial states of
 * the Finalize Aggregate above (shard_node.h).
 *
 * A gpu_histogram's bigint[] becomes the state its deserialize function
 * reads, built for the spec of the query's own arguments, which the shard
 * was sent: a histogram of another length, or a negative or NULL count, is
 * refused rather than merged.  Keys and counts pass as they are.
 */
#include "shard_states.h"
#include "shard_node.h"
#include "../scan_node.h"
#include "../../histogram_state.h"

extern "C" {
#include "common/int.h"
#include "executor/executor.h"
#include "nodes/extensible.h"
#include "utils/array.h"
}

namespace gpu_histogram {

namespace {

struct ShardsExec {
    CustomScanState css;
    PlanState *child;            /* the Append of the foreign scans */
    int ncolumns;
    ShardColumn *kinds;
    ExprState **arg_states;      /* per column: lo, hi, nbins or the thresholds */
    gh::HistogramSpec *specs;    /* per histogram column, once its arguments are evaluated */
    bool *skip;                  /* a NULL argument: the shards' histograms are NULL too */
    bool specs_ready;
    MemoryContext args_cxt;
};

ShardsExec *shards_state(CustomScanState *node)
{
    return reinterpret_cast<ShardsExec *>(node);
}

void begin_shards(CustomScanState *node, EState *estate, int eflags)
{
    ShardsExec *s = shards_state(node);
    CustomScan *cscan = reinterpret_cast<CustomScan *>(node->ss.ps.plan);
    s->child = ExecInitNode(static_cast<Plan *>(linitial(cscan->custom_plans)), estate, eflags);
    node->custom_ps = list_make1(s->child);
    s->ncolumns = list_length(cscan->custom_private);
    s->kinds = static_cast<ShardColumn *>(palloc0(sizeof(ShardColumn) * s->ncolumns));
    s->arg_states = static_cast<ExprState **>(palloc0(sizeof(ExprState *) * 3 * s->ncolumns));
    s->specs = static_cast<gh::HistogramSpec *>(palloc0(sizeof(gh::HistogramSpec) * s->ncolumns));
    s->skip = static_cast<bool *>(palloc0(sizeof(bool) * s->ncolumns));
    s->args_cxt = AllocSetContextCreate(estate->es_query_cxt, "GpuHistogramShards arguments", ALLOCSET_SMALL_SIZES);
    ListCell *arg = list_head(cscan->custom_exprs);
    for (int i = 0; i < s->ncolumns; i++) {
        s->kinds[i] = static_cast<ShardColumn>(intVal(list_nth(cscan->custom_private, i)));
        if (s->kinds[i] == ShardColumn::as_is)
            continue;
        int nargs = s->kinds[i] == ShardColumn::thresholds ? 1 : 3;
        for (int a = 0; a < nargs; a++) {
            s->arg_states[3 * i + a] = ExecInitExpr(static_cast<Expr *>(lfirst(arg)), &node->ss.ps);
            arg = lnext(cscan->custom_exprs, arg);
        }
    }
}

HistogramForm form_of(ShardColumn kind)
{
    return static_cast<HistogramForm>(static_cast<int>(kind) - 1);
}

/* The specs the shards binned by: the query's arguments, evaluated once a scan (a rescan may change a Param). */
void evaluate_specs(ShardsExec *s)
{
    MemoryContextReset(s->args_cxt);
    ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
    for (int i = 0; i < s->ncolumns; i++) {
        if (s->kinds[i] == ShardColumn::as_is)
            continue;
        HistogramCall call{};
        call.form = form_of(s->kinds[i]);
        HistogramArgs args = histogram_args_evaluate(call.form, &s->arg_states[3 * i], econtext, s->args_cxt);
        s->skip[i] = args.skip;
        /* invalid arguments: a shard with rows raised the aggregate's error; one without sent NULL */
        if (!args.skip && !histogram_args_spec(call, args, &s->specs[i]))
            s->skip[i] = true;
    }
    s->specs_ready = true;
}

/* The state of a shard's histogram `value` for spec, in the current memory context. */
Datum histogram_state_of(Datum value, const gh::HistogramSpec &spec)
{
    ArrayType *a = DatumGetArrayTypeP(value);
    const int32 slots = gh::histogram_slots(spec);
    if (ARR_NDIM(a) != 1 || ARR_DIMS(a)[0] != slots || ARR_ELEMTYPE(a) != INT8OID ||
        (ARR_HASNULL(a) && array_contains_nulls(a)))
        ereport(ERROR, (errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
                        errmsg("gpu_histogram: a foreign partition sent a histogram that is not %d bigint counts",
                               slots),
                        errhint("The extension's version on that server may compute another histogram: "
                                "install the same version there.")));
    const int64 *counts = reinterpret_cast<const int64 *>(ARR_DATA_PTR(a));
    int64 total = 0;
    for (int32 k = 0; k < slots; k++)
        if (counts[k] < 0 || pg_add_s64_overflow(total, counts[k], &total))
            ereport(ERROR, (errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
                            errmsg("gpu_histogram: a foreign partition sent an invalid count " INT64_FORMAT,
                                   counts[k])));
    return PointerGetDatum(histogram_wire(spec, counts, total));
}

TupleTableSlot *exec_shards(CustomScanState *node)
{
    ShardsExec *s = shards_state(node);
    ExprContext *econtext = node->ss.ps.ps_ExprContext;
    ResetExprContext(econtext);
    if (!s->specs_ready)
        evaluate_specs(s);
    TupleTableSlot *in = ExecProcNode(s->child);
    TupleTableSlot *out = node->ss.ss_ScanTupleSlot;
    ExecClearTuple(out);
    if (TupIsNull(in))
        return out;
    slot_getallattrs(in);
    MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
    for (int i = 0; i < s->ncolumns; i++) {
        out->tts_isnull[i] = in->tts_isnull[i];
        out->tts_values[i] = in->tts_values[i];
        if (s->kinds[i] == ShardColumn::as_is || in->tts_isnull[i])
            continue;
        if (s->skip[i])
            ereport(ERROR, (errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
                            errmsg("gpu_histogram: a foreign partition sent a histogram for arguments that "
                                   "give none")));
        out->tts_values[i] = histogram_state_of(in->tts_values[i], s->specs[i]);
    }
    MemoryContextSwitchTo(old);
    ExecStoreVirtualTuple(out);
    if (node->ss.ps.ps_ProjInfo == NULL)
        return out;
    econtext->ecxt_scantuple = out;
    return ExecProject(node->ss.ps.ps_ProjInfo);
}

void end_shards(CustomScanState *node)
{
    ExecEndNode(shards_state(node)->child);
}

void rescan_shards(CustomScanState *node)
{
    ShardsExec *s = shards_state(node);
    s->specs_ready = false;
    ExecReScan(s->child);
}

const CustomExecMethods shards_exec_methods = {
    GH_SHARDS_NODE_NAME,
    begin_shards,
    exec_shards,
    end_shards,
    rescan_shards,
    NULL, /* MarkPosCustomScan */
    NULL, /* RestrPosCustomScan */
    NULL, /* EstimateDSMCustomScan */
    NULL, /* InitializeDSMCustomScan */
    NULL, /* ReInitializeDSMCustomScan */
    NULL, /* InitializeWorkerCustomScan */
    NULL, /* ShutdownCustomScan */
    NULL, /* ExplainCustomScan */
};

Node *create_shards_state(CustomScan *)
{
    ShardsExec *s = static_cast<ShardsExec *>(palloc0(sizeof(ShardsExec)));
    NodeSetTag(s, T_CustomScanState);
    s->css.methods = &shards_exec_methods;
    return reinterpret_cast<Node *>(s);
}

} // namespace

const CustomScanMethods gh_shards_plan_methods = {
    GH_SHARDS_NODE_NAME,
    create_shards_state,
};

void shard_states_init(void)
{
    RegisterCustomScanMethods(&gh_shards_plan_methods);
}

} // namespace gpu_histogram
