/*
 * key_params.cpp: a generic plan's GROUP BY key with its parameters'
 * values (key_params.h).
 */
#include "key_params.h"

#include "builtin_ops.h"

#include "../../pg_compat.h"

extern "C" {
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
}

namespace gpu_histogram {

namespace {

/* A constant of type with value v, as the planner makes one. */
Const *typed_const(Oid type, int32 typmod, Oid collation, Datum v, bool isnull)
{
    int16 typlen;
    bool typbyval;
    get_typlenbyval(type, &typlen, &typbyval);
    return makeConst(type, typmod, collation, typlen, isnull ? 0 : datumCopy(v, typbyval, typlen), isnull, typbyval);
}

/* Param p's value from params, as a Const; NULL where it has none of p's type. */
Node *param_value(const Param *p, ParamListInfo params)
{
    if (p->paramkind != PARAM_EXTERN || p->paramid <= 0 || p->paramid > params->numParams)
        return NULL;
    ParamExternData workspace;
    const ParamExternData *prm = params->paramFetch != NULL ? params->paramFetch(params, p->paramid, false, &workspace)
                                                            : &params->params[p->paramid - 1];
    if (prm == NULL || !OidIsValid(prm->ptype) || prm->ptype != p->paramtype)
        return NULL;
    return reinterpret_cast<Node *>(typed_const(p->paramtype, p->paramtypmod, p->paramcollid, prm->value, prm->isnull));
}

/*
 * A cast of a constant that keeps its value and cannot raise, folded: an
 * integer to a wider integer, to numeric or to float8 (not numeric to
 * float8, which raises past float8's range).  NULL: not such a cast.
 */
Node *folded_cast(const FuncExpr *f)
{
    if (!builtin_number_widening(f) || f->funcid == F_FLOAT8_NUMERIC || !IsA(linitial(f->args), Const))
        return NULL;
    const Const *c = static_cast<const Const *>(linitial(f->args));
    const Datum v = c->constisnull ? 0 : OidFunctionCall1Coll(f->funcid, f->inputcollid, c->constvalue);
    return reinterpret_cast<Node *>(typed_const(f->funcresulttype, -1, f->funccollid, v, c->constisnull));
}

Node *bind_params(Node *node, void *context)
{
    if (node == NULL)
        return NULL;
    ParamListInfo params = static_cast<ParamListInfo>(context);
    if (IsA(node, Param)) {
        Node *value = param_value(reinterpret_cast<Param *>(node), params);
        return value != NULL ? value : static_cast<Node *>(copyObjectImpl(node));
    }
    Node *out = expression_tree_mutator(node, GH_MUTATOR(bind_params), context);
    if (IsA(out, FuncExpr)) {
        Node *folded = folded_cast(reinterpret_cast<FuncExpr *>(out));
        if (folded != NULL)
            return folded;
    }
    return out;
}

} // namespace

Expr *key_params_bound(Expr *key, ParamListInfo params)
{
    if (params == NULL || params->numParams == 0)
        return key;
    return reinterpret_cast<Expr *>(bind_params(reinterpret_cast<Node *>(key), params));
}

} // namespace gpu_histogram
