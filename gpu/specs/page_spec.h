/*
 * page_spec.h: what the engine needs to know to read one column straight
 * out of PostgreSQL heap pages, as plain data.
 *
 * The GPU service registers the server's shared buffer pool with CUDA once.
 * A scan then sends, instead of values, the numbers of the buffers that hold
 * all-visible pages it has pinned, each with the number of line pointers it
 * saw under the page's share lock; the page kernel walks those line
 * pointers, reads each normal tuple's header and NULL bitmap, extracts the
 * column and bins it.  Pages stay pinned until that kernel is done, so no
 * tuple it reads can move.
 *
 * The engine includes no PostgreSQL header, so the layout it reads is
 * spelled out here (bufpage.h, itemid.h, htup_details.h, for the default
 * BLCKSZ of 8192); the extension checks every constant against the
 * server's own headers at compile time and at load.
 */
#ifndef GH_PAGE_SPEC_H
#define GH_PAGE_SPEC_H

#include <cstdint>

namespace gh {

namespace heap_layout {
constexpr uint32_t kPageBytes = 8192;        /* BLCKSZ */
constexpr uint32_t kPdLowerOffset = 12;      /* PageHeaderData.pd_lower, uint16 */
constexpr uint32_t kLinePointers = 24;       /* SizeOfPageHeaderData: ItemIdData[] starts here */
constexpr uint32_t kMaxTuplesPerPage = 291;  /* MaxHeapTuplesPerPage */
/* ItemIdData, one little-endian uint32: lp_off:15, lp_flags:2, lp_len:15 */
constexpr uint32_t kLpOffMask = 0x7FFF;
constexpr uint32_t kLpFlagsShift = 15;
constexpr uint32_t kLpLenShift = 17;
constexpr uint32_t kLpNormal = 1;            /* LP_NORMAL */
/* HeapTupleHeaderData */
constexpr uint32_t kInfomask2Offset = 18;    /* t_infomask2, uint16 */
constexpr uint32_t kInfomaskOffset = 20;     /* t_infomask, uint16 */
constexpr uint32_t kHoffOffset = 22;         /* t_hoff, uint8 */
constexpr uint32_t kBitsOffset = 23;         /* t_bits[]: the NULL bitmap */
constexpr uint32_t kMinHoff = 24;            /* SizeofHeapTupleHeader, MAXALIGNed */
constexpr uint16_t kHasNull = 0x0001;        /* HEAP_HASNULL */
constexpr uint16_t kNattsMask = 0x07FF;      /* HEAP_NATTS_MASK */
/* varlena headers (postgres.h's VARATT_ macros), little-endian: a varlena column's length is read from its first bytes */
constexpr uint8_t kVarExternal = 0x01;        /* VARATT_IS_1B_E: a TOAST pointer, then its tag */
constexpr uint8_t kVarTagOnDisk = 18;         /* VARTAG_ONDISK: the only pointer stored in a table */
constexpr uint32_t kVarOnDiskBytes = 2 + 16;  /* VARHDRSZ_EXTERNAL + sizeof(varatt_external) */
} // namespace heap_layout

/*
 * One pinned page of a batch: the buffer's index in the pool (buffer id,
 * from 0) and how many line pointers the page had under its share lock.
 * Line pointers past that number may be added after the lock is released;
 * they are never read.
 */
inline uint64_t page_word(uint64_t buffer_index, uint32_t lines) { return buffer_index << 16 | lines; }
inline uint64_t page_word_buffer(uint64_t word) { return word >> 16; }
inline uint32_t page_word_lines(uint64_t word) { return static_cast<uint32_t>(word & 0xFFFF); }

/*
 * The column's storage type; a binned value is the float8 it casts to.
 * date is stored as an int4, timestamp and timestamptz as an int8.  A
 * boolean (one byte, 0 or 1) is only ever a grouped scan's key, read as
 * a word: page_column_fits() refuses it as a value.  A text (or varchar)
 * column is only ever a WHERE clause's or a key's, compared as bytes; its
 * length is its varlena header's.  A numeric is only ever a histogram's
 * value, converted as numeric_float8 does where the GPU can
 * (formulas/numeric_float8.h), its page handed back where it cannot.  A
 * uuid is a WHERE clause's or a text key's dictionary's (PageKeyKind::text),
 * compared as its 16 stored bytes, as uuid_eq does.
 */
enum class PageValueType : int32_t { float8 = 0, float4, int2, int4, int8, boolean, text, numeric, uuid };

/*
 * A column's storage: attlen and attalign in bytes.  A column the page
 * kernel reads is fixed width; one it only walks over may be a varlena
 * (text, numeric, jsonb, arrays), whose length its header gives.
 */
constexpr int16_t kVarlenaLen = -1; /* attlen of a varlena */
/*
 * Packed: three bytes, not four.  Every PageColumn holds 64 of them, and
 * a grouped spec (a kernel parameter, by value) holds eleven columns;
 * the byte saved on each is what lets four keys fit in 4 KB.
 */
struct __attribute__((packed)) PageAttr {
    int16_t len;   /* > 0, or kVarlenaLen (a text column's own) */
    uint8_t align; /* 1, 2, 4 or 8 */
};
static_assert(sizeof(PageAttr) == 3, "PageAttr is packed");

/* The page kernel walks over at most this many earlier columns; a later column stays on the CPU path. */
constexpr int kMaxPagePrefix = 64;

/*
 * Where a column lies in a tuple.  Its earlier columns (dropped ones
 * included: they keep their storage) are fixed width or varlenas.  Where
 * all are fixed width, a tuple without NULLs has the value at t_hoff +
 * fixed_offset; a tuple with NULLs, and every tuple of a column after a
 * varlena (fixed_offset -1), walks the earlier columns as
 * heap_deform_tuple does, skipping those its bitmap marks NULL.
 * A tuple with fewer than attno attributes (stored before ADD COLUMN) has
 * the column's missing value: NULL, or missing_value if has_missing.
 */
struct PageColumn {
    int32_t attno;        /* 1-based */
    PageValueType type;
    PageAttr attr;        /* the column's own storage */
    int32_t fixed_offset; /* from t_hoff, with no NULL before it; -1 after a varlena */
    int32_t nprefix;      /* attno - 1 */
    PageAttr prefix[kMaxPagePrefix];
    bool has_missing;
    /*
     * The time form's value (a date or timestamp column binned as its
     * stored integer): the integer's bits in the kernel's double, as
     * histogram_state.h carries a time histogram's values.
     */
    bool as_word;
    double missing_value; /* already cast to float8 */
    int64_t missing_word; /* an integer type's missing value as stored (keys and WHERE columns) */
};

/*
 * Most thresholds a threshold histogram's pages are binned by on the GPU:
 * the page kernel keeps a copy of them in shared memory beside the page
 * (8 KB each, 24 KB in all with the counters).  A longer array's pages
 * are parsed by the host.
 */
constexpr int32_t kMaxPageThresholds = 1024;

} // namespace gh

#endif /* GH_PAGE_SPEC_H */
