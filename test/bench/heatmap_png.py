#!/usr/bin/env python3
"""heatmap_png.py: draws a latency heatmap from gpu_histogram() rows.

    psql -X -At -F '|' -c "SELECT date_bin(...), gpu_histogram(latency, lo, hi, n) ... ORDER BY 1" \\
        | heatmap_png.py OUT.png [--lo 0 --hi 1000] [--tick-rows 10] [--tick-cols 12]

One input line per time bin: the bin, '|', the histogram as psql prints a
bigint[] ({c0,c1,...}).  The picture has one column per time bin (oldest
left) and one row per inner bucket (lowest at the bottom; the outer buckets,
below lo and above hi, are left out), coloured by log(1 + count) from dark
blue through green to yellow.  Tick marks every --tick-cols columns and
--tick-rows rows, labelled with the column index and the bucket's lower
bound.  Only the standard library (zlib), so it runs where matplotlib does
not.
"""
import argparse
import math
import struct
import sys
import zlib

# 3x5 digits for the tick labels
FONT = {
    "0": ["111", "101", "101", "101", "111"], "1": ["010", "110", "010", "010", "111"],
    "2": ["111", "001", "111", "100", "111"], "3": ["111", "001", "111", "001", "111"],
    "4": ["101", "101", "111", "001", "001"], "5": ["111", "100", "111", "001", "111"],
    "6": ["111", "100", "111", "101", "111"], "7": ["111", "001", "010", "010", "010"],
    "8": ["111", "101", "111", "101", "111"], "9": ["111", "101", "111", "001", "111"],
    ":": ["000", "010", "000", "010", "000"], ".": ["000", "000", "000", "000", "010"],
}
# a viridis-like ramp: (position, r, g, b)
RAMP = [(0.0, 68, 1, 84), (0.25, 59, 82, 139), (0.5, 33, 145, 140), (0.75, 94, 201, 98), (1.0, 253, 231, 37)]


def colour(t):
    for (p0, *c0), (p1, *c1) in zip(RAMP, RAMP[1:]):
        if t <= p1:
            f = (t - p0) / (p1 - p0)
            return tuple(round(a + (b - a) * f) for a, b in zip(c0, c1))
    return tuple(RAMP[-1][1:])


def write_png(path, pixels):
    h, w = len(pixels), len(pixels[0])
    raw = b"".join(b"\x00" + bytes(v for px in row for v in px) for row in pixels)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def text(pixels, x, y, s, scale=2, ink=(40, 40, 40)):
    for ch in s:
        for r, line in enumerate(FONT.get(ch, ["000"] * 5)):
            for c, bit in enumerate(line):
                if bit == "1":
                    for dy in range(scale):
                        for dx in range(scale):
                            yy, xx = y + r * scale + dy, x + c * scale + dx
                            if 0 <= yy < len(pixels) and 0 <= xx < len(pixels[0]):
                                pixels[yy][xx] = ink
        x += 4 * scale


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--lo", type=float, default=0)
    ap.add_argument("--hi", type=float, default=1000)
    ap.add_argument("--tick-rows", type=int, default=10)
    ap.add_argument("--tick-cols", type=int, default=12)
    ap.add_argument("--cell", type=int, default=10)
    args = ap.parse_args()

    columns = []
    for line in sys.stdin:
        if "|" not in line:
            continue
        _, hist = line.rstrip("\n").rsplit("|", 1)
        counts = [int(c) for c in hist.strip("{}").split(",")]
        columns.append(counts[1:-1])  # the inner buckets
    if not columns:
        sys.exit("no rows on stdin")
    nbins, ncols = len(columns[0]), len(columns)
    top = max(max(c) for c in columns) or 1
    cw, ch = args.cell, max(4, args.cell * 4 // 5)
    left, bottom, right, upper = 44, 24, 12, 10
    width, height = left + ncols * cw + right, upper + nbins * ch + bottom
    px = [[(255, 255, 255)] * width for _ in range(height)]
    for x, counts in enumerate(columns):
        for b, n in enumerate(counts):
            c = colour(math.log1p(n) / math.log1p(top))
            y0 = upper + (nbins - 1 - b) * ch
            for yy in range(y0, y0 + ch):
                for xx in range(left + x * cw, left + (x + 1) * cw):
                    px[yy][xx] = c
    axis = (40, 40, 40)
    for yy in range(upper, upper + nbins * ch + 1):
        px[yy][left - 1] = axis
    for xx in range(left - 1, left + ncols * cw):
        px[upper + nbins * ch][xx] = axis
    step = (args.hi - args.lo) / nbins
    for b in range(0, nbins + 1, args.tick_rows):
        y = upper + (nbins - b) * ch
        for xx in range(left - 5, left - 1):
            px[min(y, height - 1)][xx] = axis
        label = f"{args.lo + b * step:g}"
        text(px, left - 7 - 8 * len(label), max(0, y - 5), label)
    for x in range(0, ncols + 1, args.tick_cols):
        xx = left + x * cw - (1 if x == ncols else 0)
        for yy in range(upper + nbins * ch, upper + nbins * ch + 5):
            px[yy][xx] = axis
        text(px, xx - 3, upper + nbins * ch + 8, str(x // args.tick_cols))
    write_png(args.out, px)
    print(f"wrote {args.out}: {ncols} time bins x {nbins} buckets, largest count {top}")


if __name__ == "__main__":
    main()
