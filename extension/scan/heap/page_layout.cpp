/*
 * page_layout.cpp: checks gpu/specs/page_spec.h against this server's headers and
 * describes a column for the page kernel.
 */
#include "page_layout.h"

#include "numeric_values.h"

extern "C" {
#include "access/tupdesc_details.h"
#include "storage/bufpage.h"
#include "storage/itemid.h"
#include "utils/uuid.h"
}

#include <cstddef>

namespace gpu_histogram {

namespace hl = gh::heap_layout;

static_assert(offsetof(PageHeaderData, pd_lower) == hl::kPdLowerOffset, "pd_lower moved");
static_assert(SizeOfPageHeaderData == hl::kLinePointers, "the line pointer array moved");
static_assert(sizeof(ItemIdData) == 4, "a line pointer is not 4 bytes");
static_assert(LP_NORMAL == hl::kLpNormal, "LP_NORMAL changed");
static_assert(offsetof(HeapTupleHeaderData, t_infomask2) == hl::kInfomask2Offset, "t_infomask2 moved");
static_assert(offsetof(HeapTupleHeaderData, t_infomask) == hl::kInfomaskOffset, "t_infomask moved");
static_assert(offsetof(HeapTupleHeaderData, t_hoff) == hl::kHoffOffset, "t_hoff moved");
static_assert(offsetof(HeapTupleHeaderData, t_bits) == hl::kBitsOffset, "t_bits moved");
static_assert(MAXALIGN(SizeofHeapTupleHeader) == hl::kMinHoff, "the tuple header's size changed");
static_assert(HEAP_HASNULL == hl::kHasNull, "HEAP_HASNULL changed");
static_assert(HEAP_NATTS_MASK == hl::kNattsMask, "HEAP_NATTS_MASK changed");
static_assert(VARTAG_ONDISK == hl::kVarTagOnDisk, "VARTAG_ONDISK changed");
static_assert(VARHDRSZ_EXTERNAL + sizeof(varatt_external) == hl::kVarOnDiskBytes, "a TOAST pointer's size changed");

bool page_layout_matches(void)
{
    /* the block size and the bit fields' order are the compiler's and the build's, not the standard's */
    if (BLCKSZ != hl::kPageBytes || MaxHeapTuplesPerPage != hl::kMaxTuplesPerPage)
        return false;
    ItemIdData item;
    ItemIdSetNormal(&item, 0x1234, 0x567);
    uint32 word;
    memcpy(&word, &item, sizeof word);
    return (word & hl::kLpOffMask) == 0x1234 && ((word >> hl::kLpFlagsShift) & 3) == LP_NORMAL &&
           (word >> hl::kLpLenShift) == 0x567;
}

namespace {

uint8 align_bytes(char align)
{
    switch (align) {
    case TYPALIGN_CHAR: return 1;
    case TYPALIGN_SHORT: return ALIGNOF_SHORT;
    case TYPALIGN_INT: return ALIGNOF_INT;
    default: return ALIGNOF_DOUBLE;
    }
}

bool value_type(Oid type, gh::PageValueType *out)
{
    switch (type) {
    case FLOAT8OID: *out = gh::PageValueType::float8; return true;
    case FLOAT4OID: *out = gh::PageValueType::float4; return true;
    case INT2OID: *out = gh::PageValueType::int2; return true;
    case INT4OID: *out = gh::PageValueType::int4; return true;
    case INT8OID: *out = gh::PageValueType::int8; return true;
    case BOOLOID: *out = gh::PageValueType::boolean; return true; /* a key only */
    case DATEOID: *out = gh::PageValueType::int4; return true;
    case TIMESTAMPOID:
    case TIMESTAMPTZOID: *out = gh::PageValueType::int8; return true;
    }
    return false;
}

/* The missing value as the float8 the implicit cast gives, as heap_columns.cpp converts stored values. */
double missing_as_float8(Oid type, Datum d)
{
    switch (type) {
    case FLOAT8OID: return DatumGetFloat8(d);
    case FLOAT4OID: return DatumGetFloat4(d);
    case INT2OID: return DatumGetInt16(d);
    case INT4OID: return DatumGetInt32(d);
    case BOOLOID: return DatumGetBool(d) ? 1.0 : 0.0; /* never binned: a key's column */
    default: return static_cast<double>(DatumGetInt64(d));
    }
}

/* An integer-like column's missing value as stored (date an int4, timestamps an int8, a boolean 0 or 1). */
int64 missing_as_word(Oid type, Datum d)
{
    switch (type) {
    case BOOLOID: return DatumGetBool(d) ? 1 : 0;
    case INT2OID: return DatumGetInt16(d);
    case INT4OID:
    case DATEOID: return DatumGetInt32(d);
    case INT8OID:
    case TIMESTAMPOID:
    case TIMESTAMPTZOID: return DatumGetInt64(d);
    default: return 0; /* float columns: never read as words */
    }
}

/* The earlier columns' layouts; false for a cstring (only system catalogs have them), which is left to the host. */
bool copy_prefix(const HeapColumn &col, gh::PageColumn *out)
{
    out->attno = col.attno;
    out->nprefix = col.nprefix;
    for (int i = 0; i < col.nprefix; i++) {
        if (col.prefix[i].len <= 0 && col.prefix[i].len != gh::kVarlenaLen)
            return false;
        out->prefix[i] = gh::PageAttr{col.prefix[i].len, align_bytes(col.prefix[i].align)};
    }
    return true;
}

/* A tuple stored before ADD COLUMN ... DEFAULT has the default, as getmissingattr() gives: false where none. */
bool missing_of(TupleDesc desc, AttrNumber attno, Datum *value)
{
    if (!TupleDescAttr(desc, attno - 1)->atthasmissing || desc->constr == NULL || desc->constr->missing == NULL ||
        !desc->constr->missing[attno - 1].am_present)
        return false;
    *value = desc->constr->missing[attno - 1].am_value;
    return true;
}

/* A varlena column of the type as the kernel walks to it (no fixed offset: padded or not by its header). */
bool varlena_column(const HeapColumn &col, gh::PageValueType type, gh::PageColumn *out)
{
    *out = gh::PageColumn{};
    if (col.nprefix > gh::kMaxPagePrefix || col.len != gh::kVarlenaLen)
        return false;
    out->type = type;
    out->attr = gh::PageAttr{gh::kVarlenaLen, align_bytes(col.align)};
    out->fixed_offset = -1;
    return copy_prefix(col, out);
}

} // namespace

bool page_text_column_for(TupleDesc desc, const HeapColumn &col, gh::PageColumn *out, Datum *missing)
{
    *missing = 0;
    if ((col.type != TEXTOID && col.type != VARCHAROID) || !varlena_column(col, gh::PageValueType::text, out))
        return false;
    out->has_missing = missing_of(desc, col.attno, missing);
    return true;
}

bool page_uuid_column_for(TupleDesc desc, const HeapColumn &col, gh::PageColumn *out, Datum *missing)
{
    *missing = 0;
    *out = gh::PageColumn{};
    if (col.type != UUIDOID || col.len != UUID_LEN || col.nprefix > gh::kMaxPagePrefix)
        return false;
    out->type = gh::PageValueType::uuid;
    out->attr = gh::PageAttr{col.len, align_bytes(col.align)};
    out->fixed_offset = col.fixed_offset;
    if (!copy_prefix(col, out))
        return false;
    out->has_missing = missing_of(desc, col.attno, missing);
    return true;
}

bool page_numeric_column_for(TupleDesc desc, const HeapColumn &col, gh::PageColumn *out)
{
    if (col.type != NUMERICOID || !varlena_column(col, gh::PageValueType::numeric, out))
        return false;
    Datum missing;
    if (missing_of(desc, col.attno, &missing)) {
        out->has_missing = true;
        out->missing_value = numeric_float8_of(DatumGetPointer(missing));
    }
    return true;
}

bool page_column_for(TupleDesc desc, const HeapColumn &col, gh::PageColumn *out)
{
    *out = gh::PageColumn{};
    if (col.nprefix > gh::kMaxPagePrefix || col.len <= 0 || !value_type(col.type, &out->type))
        return false;
    out->attr = gh::PageAttr{col.len, align_bytes(col.align)};
    out->fixed_offset = col.fixed_offset;
    if (!copy_prefix(col, out))
        return false;
    Datum missing;
    if (missing_of(desc, col.attno, &missing)) {
        out->has_missing = true;
        out->missing_value = missing_as_float8(col.type, missing);
        out->missing_word = missing_as_word(col.type, missing);
    }
    return true;
}

} // namespace gpu_histogram
