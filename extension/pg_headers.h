/*
 * pg_headers.h: PostgreSQL's C headers, seen from C++.
 *
 * Every file in extension/ includes PostgreSQL through this one header so
 * that the headers always get C linkage and postgres.h always comes first.
 * GH_FUNCTION declares a SQL-callable function with the C linkage and the
 * V1 info record the function manager looks up; C linkage keeps both
 * symbols plain although the functions are defined in namespace
 * gpu_histogram.  This header declares nothing of ours, so it stays
 * outside the namespace; so does pg_compat.h, whose aliases and one static
 * inline function only spell PostgreSQL's types and calls for each major.
 */
#ifndef GH_PG_HEADERS_H
#define GH_PG_HEADERS_H

extern "C" {
#include "postgres.h"

#include "fmgr.h"
#include "access/parallel.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
}

#define GH_FUNCTION(name)                                                                          \
    extern "C" {                                                                                   \
    PG_FUNCTION_INFO_V1(name);                                                                     \
    }                                                                                              \
    extern "C" Datum name(PG_FUNCTION_ARGS)

#endif /* GH_PG_HEADERS_H */
