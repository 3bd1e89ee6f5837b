/*
 * heap_pages.h: heap pages written the way PostgreSQL 15 writes them, for
 * the page kernel's tests (cuda_pages_test.cu) and its benchmark
 * (test/bench/kernel_bench_pages.cuh).
 *
 * The layout is spelled out here again, from PostgreSQL's own description
 * rather than from page_spec.h: PageInit and PageAddItem (bufpage.c) for
 * the page, heap_form_tuple and heap_fill_tuple (heaptuple.c) for the
 * tuple.  A page that the kernel reads differently from how these
 * functions lay it out then shows as a wrong histogram, instead of the
 * test and the kernel agreeing on the same mistake.  Plain C++: no CUDA,
 * no GoogleTest.
 */
#ifndef GH_TEST_HEAP_PAGES_H
#define GH_TEST_HEAP_PAGES_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "specs/page_spec.h"

namespace heap_pages {

constexpr uint32_t kBlockSize = 8192;      /* BLCKSZ */
constexpr uint32_t kPageHeaderSize = 24;   /* SizeOfPageHeaderData */
constexpr uint32_t kTupleHeaderSize = 23;  /* offsetof(HeapTupleHeaderData, t_bits) */
constexpr uint32_t kMaxHeapTuples = 291;   /* MaxHeapTuplesPerPage */
enum LinePointerFlags : uint32_t { lp_unused = 0, lp_normal = 1, lp_redirect = 2, lp_dead = 3 };

inline uint32_t align_to(uint32_t n, uint32_t align) { return (n + align - 1) / align * align; }
inline uint32_t maxalign(uint32_t n) { return align_to(n, 8); }

/*
 * One column's value as stored, or NULL: a fixed-width one's bytes
 * little-endian in the low attlen bytes of `bits`; a varlena's bytes as
 * the tuple holds them, header first.
 */
struct Datum {
    bool null = true;
    uint64_t bits = 0;
    std::vector<unsigned char> varlena;
};
inline Datum null_datum() { return Datum{}; }
inline Datum float8_datum(double v)
{
    Datum d{false, 0};
    std::memcpy(&d.bits, &v, 8);
    return d;
}
inline Datum float4_datum(float v)
{
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return Datum{false, b};
}
/* int2, int4, int8 and any other fixed-width filler: the low bytes are what is stored */
inline Datum int_datum(int64_t v) { return Datum{false, static_cast<uint64_t>(v), {}}; }
/* a fixed-width value wider than a word (a uuid's 16 bytes): its bytes as stored, in `varlena` */
inline Datum fixed_bytes_datum(const std::vector<unsigned char> &bytes) { return Datum{false, 0, bytes}; }

/*
 * A varlena as heap_fill_tuple stores it (SET_VARSIZE and its kin): with a 1-byte header
 * (SET_VARSIZE_SHORT: the length, header included, shifted up one, low bit
 * set) up to 126 bytes in all; else a 4-byte header (SET_VARSIZE, or
 * SET_VARSIZE_COMPRESSED with its 0x02 bit).  `fill` is each payload byte.
 */
inline Datum varlena_datum(uint32_t payload, bool compressed = false, unsigned char fill = 'x')
{
    Datum d{false, 0, {}};
    if (!compressed && payload + 1 <= 0x7F) {
        d.varlena.push_back(static_cast<unsigned char>((payload + 1) << 1 | 1));
    } else {
        const uint32_t header = (payload + 4) << 2 | (compressed ? 2u : 0u);
        for (int k = 0; k < 4; k++)
            d.varlena.push_back(static_cast<unsigned char>(header >> (8 * k)));
    }
    d.varlena.insert(d.varlena.end(), payload, fill);
    return d;
}

/* An on-disk TOAST pointer: 0x01, VARTAG_ONDISK (18), then varatt_external's 16 bytes. */
inline Datum toast_pointer_datum(uint32_t value_id)
{
    Datum d{false, 0, {0x01, 18}};
    const uint32_t words[4] = {100000, 90000, value_id, 16384}; /* rawsize, extinfo, value id, toast relation */
    for (uint32_t w : words)
        for (int k = 0; k < 4; k++)
            d.varlena.push_back(static_cast<unsigned char>(w >> (8 * k)));
    return d;
}

/*
 * A numeric's bytes after its varlena header, as numeric.c's make_result
 * writes the decimal text `dec` ("-12.3400", "0.001", "NaN", "Infinity"):
 * the display scale is its number of fraction digits; base-10000 digits
 * aligned at the decimal point, without leading or trailing zero digits;
 * the short form (one 16-bit word: sign, display scale, weight) where the
 * scale is at most 63 and the weight within [-64, 63], else the long form
 * (sign and scale, then a 16-bit weight).  Written from numeric.c's
 * description, not from the engine's reader.
 */
inline std::vector<unsigned char> numeric_payload(const std::string &dec)
{
    auto word = [](std::vector<unsigned char> *out, uint16_t w) {
        out->push_back(static_cast<unsigned char>(w & 0xFF));
        out->push_back(static_cast<unsigned char>(w >> 8));
    };
    std::vector<unsigned char> out;
    if (dec == "NaN" || dec == "Infinity" || dec == "-Infinity") {
        word(&out, dec == "NaN" ? 0xC000 : dec == "Infinity" ? 0xD000 : 0xF000);
        return out;
    }
    const bool negative = dec[0] == '-';
    const std::string body = negative ? dec.substr(1) : dec;
    const size_t point = body.find('.');
    std::string ip = body.substr(0, point), fp = point == std::string::npos ? "" : body.substr(point + 1);
    const int dscale = static_cast<int>(fp.size());
    ip = std::string((4 - ip.size() % 4) % 4, '0') + ip;
    fp += std::string((4 - fp.size() % 4) % 4, '0');
    const std::string all = ip + fp;
    std::vector<uint16_t> digits;
    for (size_t k = 0; k < all.size(); k += 4)
        digits.push_back(static_cast<uint16_t>(std::stoi(all.substr(k, 4))));
    int weight = static_cast<int>(ip.size() / 4) - 1;
    size_t first = 0, last = digits.size();
    while (first < last && digits[first] == 0) {
        first++;
        weight--;
    }
    while (last > first && digits[last - 1] == 0)
        last--;
    const bool zero = first == last;
    if (zero)
        weight = 0;
    const bool sign = negative && !zero;
    if (dscale <= 63 && weight >= -64 && weight <= 63) {
        word(&out, static_cast<uint16_t>(0x8000 | (sign ? 0x2000 : 0) | dscale << 7 |
                                         (weight < 0 ? 0x40 : 0) | (weight & 0x3F)));
    } else {
        word(&out, static_cast<uint16_t>((sign ? 0x4000 : 0) | dscale));
        word(&out, static_cast<uint16_t>(static_cast<int16_t>(weight)));
    }
    for (size_t k = first; k < last; k++)
        word(&out, digits[k]);
    return out;
}

/* The numeric `dec` as heap_fill_tuple stores it: a 1-byte header, or a 4-byte one where `long_header`. */
inline Datum numeric_datum(const std::string &dec, bool long_header = false)
{
    const std::vector<unsigned char> payload = numeric_payload(dec);
    Datum d{false, 0, {}};
    if (!long_header) {
        d.varlena.push_back(static_cast<unsigned char>((payload.size() + 1) << 1 | 1));
    } else {
        const uint32_t header = static_cast<uint32_t>(payload.size() + 4) << 2;
        for (int k = 0; k < 4; k++)
            d.varlena.push_back(static_cast<unsigned char>(header >> (8 * k)));
    }
    d.varlena.insert(d.varlena.end(), payload.begin(), payload.end());
    return d;
}

/* Whether heap_fill_tuple aligns a varlena: only one with a 4-byte header, whose first byte's low bit is 0. */
inline bool varlena_aligned(const Datum &d) { return (d.varlena[0] & 1) == 0; }

/* The stored value read back as the float8 PostgreSQL's cast from its type gives. */
inline double as_float8(const Datum &d, gh::PageValueType type)
{
    switch (type) {
    case gh::PageValueType::float8: {
        double v;
        std::memcpy(&v, &d.bits, 8);
        return v;
    }
    case gh::PageValueType::float4: {
        float v;
        uint32_t b = static_cast<uint32_t>(d.bits);
        std::memcpy(&v, &b, 4);
        return static_cast<double>(v);
    }
    case gh::PageValueType::int2: return static_cast<double>(static_cast<int16_t>(d.bits));
    case gh::PageValueType::int4: return static_cast<double>(static_cast<int32_t>(d.bits));
    case gh::PageValueType::int8: return static_cast<double>(static_cast<int64_t>(d.bits));
    case gh::PageValueType::boolean: return (d.bits & 0xFF) != 0 ? 1 : 0; /* never binned */
    }
    return 0;
}

/* A table's columns: attlen (gh::kVarlenaLen for a varlena) and attalign (bytes) of each, in attribute order. */
using Layout = std::vector<gh::PageAttr>;

/* What one line pointer of a page was made as: its flags and, for a tuple, the values it holds. */
struct Line {
    uint32_t flags;
    std::vector<Datum> values; /* natts of them */
};

/*
 * The column `attno` of `type` as PageColumn describes it: where the
 * value lies in a tuple without NULLs is heap_compute_data_size's walk.
 */
inline gh::PageColumn page_column(const Layout &layout, int attno, gh::PageValueType type, bool has_missing = false,
                                  double missing_value = 0)
{
    gh::PageColumn col{};
    col.attno = attno;
    col.type = type;
    col.attr = layout[static_cast<size_t>(attno - 1)];
    col.nprefix = attno - 1;
    uint32_t at = 0;
    bool fixed = true;
    for (int a = 0; a < attno - 1; a++) {
        col.prefix[a] = layout[static_cast<size_t>(a)];
        fixed = fixed && col.prefix[a].len > 0;
        at = align_to(at, col.prefix[a].align) + static_cast<uint32_t>(fixed ? col.prefix[a].len : 0);
    }
    /* after a varlena no offset is the same for every tuple */
    col.fixed_offset = fixed ? static_cast<int32_t>(align_to(at, col.attr.align)) : -1;
    col.has_missing = has_missing;
    col.missing_value = missing_value;
    return col;
}

/* What a scan of the column finds in a line: nothing (not a tuple, or NULL), or the value as a float8. */
inline std::optional<double> column_value(const Line &line, const gh::PageColumn &col)
{
    if (line.flags != lp_normal)
        return std::nullopt;
    if (line.values.size() < static_cast<size_t>(col.attno)) /* stored before the column was added */
        return col.has_missing ? std::optional<double>(col.missing_value) : std::nullopt;
    const Datum &d = line.values[static_cast<size_t>(col.attno - 1)];
    if (d.null)
        return std::nullopt;
    return as_float8(d, col.type);
}

/* Writes one 8 kB heap page in place, as PageInit, then PageAddItem for each tuple, leave it. */
class PageWriter {
  public:
    explicit PageWriter(unsigned char *page) : page_(page)
    {
        std::memset(page_, 0, kBlockSize);
        put16(10, 0x0004);                         /* pd_flags: PD_ALL_VISIBLE, as the scan's pages are */
        put16(12, kPageHeaderSize);                /* pd_lower */
        put16(14, kBlockSize);                     /* pd_upper: a heap page has no special space */
        put16(16, kBlockSize);                     /* pd_special */
        put16(18, static_cast<uint16_t>(kBlockSize | 4)); /* pd_pagesize_version: layout version 4 */
    }

    unsigned char *page() const { return page_; }
    const std::vector<Line> &lines() const { return lines_; }
    uint32_t line_count() const { return (get16(12) - kPageHeaderSize) / 4; }

    /*
     * heap_form_tuple over the first values.size() columns of `layout`
     * (natts = values.size()), then PageAddItem.  False, changing nothing,
     * when the page is full.
     */
    bool add_tuple(const Layout &layout, const std::vector<Datum> &values)
    {
        const uint32_t natts = static_cast<uint32_t>(values.size());
        bool hasnull = false;
        uint32_t data = 0;
        for (uint32_t a = 0; a < natts; a++) {
            if (values[a].null)
                hasnull = true;
            else
                data = place(layout[a], values[a], data) + stored_bytes(layout[a], values[a]);
        }
        const uint32_t hoff = maxalign(kTupleHeaderSize + (hasnull ? (natts + 7) / 8 : 0));
        const uint32_t size = hoff + data;
        uint32_t off = 0;
        if (!reserve(size, &off))
            return false;
        unsigned char *t = page_ + off;
        put32(t + 0, 1000);        /* t_xmin: long frozen */
        put32(t + 4, 0);           /* t_xmax */
        put16(t + 12, 0);          /* t_ctid: block 0 ... */
        put16(t + 16, static_cast<uint16_t>(lines_.size() + 1)); /* ... this offset */
        put16(t + 18, static_cast<uint16_t>(natts));             /* t_infomask2 */
        put16(t + 20, static_cast<uint16_t>((hasnull ? 0x0001 : 0) | 0x0100 | 0x0800)); /* HASNULL, XMIN_COMMITTED, XMAX_INVALID */
        t[22] = static_cast<unsigned char>(hoff);
        uint32_t at = 0;
        for (uint32_t a = 0; a < natts; a++) {
            if (values[a].null)
                continue; /* its bit stays 0 */
            if (hasnull)
                t[kTupleHeaderSize + a / 8] |= static_cast<unsigned char>(1u << (a % 8));
            at = place(layout[a], values[a], at);
            if (layout[a].len == gh::kVarlenaLen)
                std::memcpy(t + hoff + at, values[a].varlena.data(), values[a].varlena.size());
            else if (values[a].varlena.size() == static_cast<size_t>(layout[a].len))
                std::memcpy(t + hoff + at, values[a].varlena.data(), values[a].varlena.size());
            else
                for (int k = 0; k < layout[a].len; k++)
                    t[hoff + at + static_cast<uint32_t>(k)] = static_cast<unsigned char>(values[a].bits >> (8 * (k % 8)));
            at += stored_bytes(layout[a], values[a]);
        }
        set_line(static_cast<uint32_t>(lines_.size()), lp_normal, off, size);
        lines_.push_back(Line{lp_normal, values});
        put16(12, static_cast<uint16_t>(get16(12) + 4));
        return true;
    }

    /* A line pointer with no tuple of its own: unused, a redirect, a dead item, or a damaged one. */
    bool add_line_pointer(uint32_t flags, uint32_t off, uint32_t len)
    {
        if (lines_.size() >= kMaxHeapTuples || get16(12) + 4 > get16(14))
            return false;
        set_line(static_cast<uint32_t>(lines_.size()), flags, off, len);
        lines_.push_back(Line{flags == lp_normal ? 0xFFu : flags, {}}); /* a damaged "normal" one is never counted */
        put16(12, static_cast<uint16_t>(get16(12) + 4));
        return true;
    }

    /* Changes line i's flags, keeping its offset and length (as ItemIdMarkDead does). */
    void set_flags(uint32_t i, uint32_t flags)
    {
        const uint32_t word = get32(page_ + kPageHeaderSize + 4 * i);
        set_line(i, flags, word & 0x7FFF, word >> 17);
        lines_[i].flags = flags;
    }

    /* Rewrites line i's pointer as given, keeping what the line is expected to hold (to damage it). */
    void rewrite_line(uint32_t i, uint32_t flags, ptrdiff_t off, uint32_t len)
    {
        set_line(i, flags, static_cast<uint32_t>(off), len);
    }

    /* Line i's tuple, to damage it; its offset and length. */
    unsigned char *tuple(uint32_t i) const { return page_ + (get32(page_ + kPageHeaderSize + 4 * i) & 0x7FFF); }
    uint32_t tuple_length(uint32_t i) const { return get32(page_ + kPageHeaderSize + 4 * i) >> 17; }
    /* Marks line i as one the scan must not count, whatever it holds (for damaged tuples). */
    void expect_skipped(uint32_t i) { lines_[i].flags = 0xFF; }

  private:
    /* Where heap_fill_tuple puts a value after `at` bytes: aligned, but for a varlena without a 4-byte header. */
    static uint32_t place(const gh::PageAttr &attr, const Datum &d, uint32_t at)
    {
        return attr.len == gh::kVarlenaLen && !varlena_aligned(d) ? at : align_to(at, attr.align);
    }
    static uint32_t stored_bytes(const gh::PageAttr &attr, const Datum &d)
    {
        return attr.len == gh::kVarlenaLen ? static_cast<uint32_t>(d.varlena.size()) : static_cast<uint32_t>(attr.len);
    }

    /* PageAddItem's room check: a line pointer and the MAXALIGNed tuple, below MaxHeapTuplesPerPage. */
    bool reserve(uint32_t size, uint32_t *off)
    {
        const uint32_t lower = get16(12) + 4;
        const uint32_t aligned = maxalign(size);
        if (lines_.size() >= kMaxHeapTuples || get16(14) < aligned || lower > get16(14) - aligned)
            return false;
        *off = get16(14) - aligned;
        put16(14, static_cast<uint16_t>(*off));
        return true;
    }
    /* ItemIdData: lp_off:15, lp_flags:2, lp_len:15, low bits first (little-endian bit-fields). */
    void set_line(uint32_t i, uint32_t flags, uint32_t off, uint32_t len)
    {
        put32(page_ + kPageHeaderSize + 4 * i, (off & 0x7FFF) | (flags & 3) << 15 | (len & 0x7FFF) << 17);
    }
    uint32_t get16(uint32_t at) const { return static_cast<uint32_t>(page_[at] | page_[at + 1] << 8); }
    static uint32_t get32(const unsigned char *p)
    {
        return static_cast<uint32_t>(p[0] | p[1] << 8 | p[2] << 16) | static_cast<uint32_t>(p[3]) << 24;
    }
    void put16(uint32_t at, uint32_t v) { put16(page_ + at, v); }
    static void put16(unsigned char *p, uint32_t v)
    {
        p[0] = static_cast<unsigned char>(v);
        p[1] = static_cast<unsigned char>(v >> 8);
    }
    static void put32(unsigned char *p, uint32_t v)
    {
        put16(p, v);
        put16(p + 2, v >> 16);
    }

    unsigned char *page_;
    std::vector<Line> lines_;
};

} // namespace heap_pages

#endif /* GH_TEST_HEAP_PAGES_H */
