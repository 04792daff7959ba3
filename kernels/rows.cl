/*
 * rows.cl -- the scanline algorithm shaped for a GPU: one work-group per row.
 *
 * scanline.cl gives one work-item a whole row.  That is the algorithm, but
 * not the shape a GPU wants: a few thousand busy work-items where the chip
 * holds hundreds of thousands, each writing its own row byte by byte, so
 * neighbouring work-items write far apart and no store is coalesced.
 *
 * Here a whole work-group shares one row, in three steps:
 *
 * 1. Crossings.  The work-items split the polygon's edges between them.
 *    Each crossing flips one parity marker, at column ceil(x_cross) - 1,
 *    exactly as in scanline.cl (the same pm_x_cross, the same clamps), but
 *    the markers are bits in local memory, flipped with atomic_xor.
 * 2. Parity.  Pixel c is inside iff the markers at columns >= c have odd
 *    parity.  Inside a 32-bit word that suffix XOR is five shifts; across
 *    words each work-item needs the parity of the words right of its own,
 *    which is one popcount over a bit set of the work-items' parities.
 * 3. Stores.  Each work-item writes 16 neighbouring pixels with one aligned
 *    16-byte store, and neighbouring work-items write neighbouring bytes:
 *    the row leaves the chip in wide, coalesced stores.  With `packed` set
 *    it writes one bit a pixel instead (np.packbits' layout: a row of
 *    ceil(cols / 8) bytes, the first pixel in each byte's highest bit).
 *
 * Same crossings, same arithmetic, same markers: the same mask as every
 * other kernel and the C++ core, bit for bit.  A row wider than one pass of
 * local memory (PM_PASS_COLUMNS) is done in passes from the right, carrying
 * the parity of the markers already passed.
 *
 * Local memory: 4 KiB of marker bits and 32 bytes of parities.  The host
 * launches work-groups of at most PM_MAX_GROUP work-items, one group per row.
 */
#include "precision.h"
#include "polymask/crossing.h"

#define PM_PASS_WORDS 1024                      /* marker bits of one pass: 4 KiB */
#define PM_PASS_COLUMNS (PM_PASS_WORDS * 32)
#define PM_MAX_GROUP 256                        /* the parities' bit set holds this many work-items */

/* Bit k of the result: XOR of bits k..31 of `word` (the markers at or right of k). */
inline uint pm_suffix_xor(uint word)
{
    word ^= word >> 1;
    word ^= word >> 2;
    word ^= word >> 4;
    word ^= word >> 8;
    word ^= word >> 16;
    return word;
}

/* The 8 pixels of `bits` from bit 0 up, as one byte with the first in its highest bit. */
inline uchar pm_packed_byte(uint bits)
{
    uchar byte = 0;
    for (int k = 0; k < 8; ++k) {
        byte = (uchar)((byte << 1) | ((bits >> k) & 1u));
    }
    return byte;
}

__kernel void pm_mask_rows(__global const PM_REAL *xy, const int n_vertices,
                           __global uchar *mask, const int rows, const int cols, const int packed)
{
    __local uint markers[PM_PASS_WORDS];
    __local uint parities[PM_MAX_GROUP / 32];

    const int row = (int)get_group_id(0);
    const int item = (int)get_local_id(0);
    const int group = (int)get_local_size(0);
    if (row >= rows) {
        return;  /* uniform across the group: no barrier is skipped by only some */
    }
    const size_t row_bytes = packed ? (size_t)((cols + 7) / 8) : (size_t)cols;
    __global uchar *line = mask + (size_t)row * row_bytes;
    const PM_REAL py = (PM_REAL)row;

    /* The parity of every marker right of the current pass. */
    uint carry = 0;
    const int passes = (cols + PM_PASS_COLUMNS - 1) / PM_PASS_COLUMNS;
    for (int pass = passes - 1; pass >= 0; --pass) {
        const int first = pass * PM_PASS_COLUMNS;
        const int end = min(first + PM_PASS_COLUMNS, cols);
        const int words = (end - first + 31) / 32;

        /* 1. Crossings: the group's edges flip markers in this pass's columns. */
        for (int w = item; w < words; w += group) {
            markers[w] = 0;
        }
        for (int k = item; k < PM_MAX_GROUP / 32; k += group) {
            parities[k] = 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = item; i < n_vertices; i += group) {
            const int j = i == 0 ? n_vertices - 1 : i - 1;
            const PM_REAL xi = xy[2 * i], yi = xy[2 * i + 1];
            const PM_REAL xj = xy[2 * j], yj = xy[2 * j + 1];
            if (!pm_edge_crosses_row(yi, yj, py)) {
                continue;
            }
            const PM_REAL x_cross = pm_x_cross(xi, yi, xj, yj, py);
            /* Columns 0 .. ceil(x_cross) - 1 lie left of the crossing; none do
             * when x_cross <= 0 or is NaN.  Clamp before converting: x_cross
             * may be huge or +inf. */
            if (!(x_cross > (PM_REAL)0)) {
                continue;
            }
            const long left_count = x_cross >= (PM_REAL)cols ? (long)cols : min((long)ceil(x_cross), (long)cols);
            const int column = (int)left_count - 1;
            if (column >= first && column < end) {
                const int offset = column - first;
                atomic_xor(&markers[offset >> 5], 1u << (offset & 31));
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        /* 2. Parity: each work-item owns a run of words; first the runs' parities. */
        const int per_item = (words + group - 1) / group;
        const int own_first = min(item * per_item, words);
        const int own_end = min(own_first + per_item, words);
        uint own_parity = 0;
        for (int w = own_first; w < own_end; ++w) {
            own_parity ^= (uint)popcount(markers[w]) & 1u;
        }
        if (own_parity) {
            atomic_or(&parities[item >> 5], 1u << (item & 31));
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* The parity right of this run: the carry, and every later work-item's run. */
        uint right = carry;
        uint total = carry;
        for (int k = 0; k < PM_MAX_GROUP / 32; ++k) {
            const uint set = parities[k];
            const int below = item + 1 - 32 * k;  /* bits of word k that belong to items <= this one */
            const uint later = below <= 0 ? set : (below >= 32 ? 0u : set & ~((1u << below) - 1u));
            right ^= (uint)popcount(later) & 1u;
            total ^= (uint)popcount(set) & 1u;
        }
        /* Each marker word becomes the inside flags of its 32 columns. */
        for (int w = own_end - 1; w >= own_first; --w) {
            const uint word = markers[w];
            const uint suffix = pm_suffix_xor(word);
            markers[w] = right ? ~suffix : suffix;
            right ^= suffix & 1u;  /* bit 0 of the suffix XOR is the word's parity */
        }
        carry = total;
        barrier(CLK_LOCAL_MEM_FENCE);

        /* 3. Stores. */
        if (packed) {
            /* Each work-item writes the bytes of whole words; columns past `end` stay 0. */
            for (int w = item; w < words; w += group) {
                const int column = first + 32 * w;
                const int valid = min(32, end - column);
                const uint flags = valid == 32 ? markers[w] : markers[w] & ((1u << valid) - 1u);
                const int byte = column / 8;
                for (int b = 0; b < 4 && 8 * b < valid; ++b) {
                    line[byte + b] = pm_packed_byte(flags >> (8 * b));
                }
            }
        } else {
            /* 16-byte chunks aligned in the whole buffer, so each full chunk is
             * one aligned store.  A chunk this pass only partly owns (the row's
             * or the pass's ends) is written byte by byte: the neighbouring row
             * or pass writes the rest of it. */
            const size_t start = (size_t)row * row_bytes + (size_t)first;
            const size_t stop = (size_t)row * row_bytes + (size_t)end;
            const size_t chunk_first = start & ~(size_t)15;
            const size_t chunks = (stop - chunk_first + 15) / 16;
            for (size_t chunk = (size_t)item; chunk < chunks; chunk += (size_t)group) {
                const size_t at = chunk_first + 16 * chunk;
                if (at >= start && at + 16 <= stop) {
                    const int offset = (int)(at - start);
                    const int w = offset >> 5, shift = offset & 31;
                    ulong window = (ulong)markers[w];
                    if (w + 1 < words) {
                        window |= (ulong)markers[w + 1] << 32;
                    }
                    const ushort flags = (ushort)(window >> shift);
                    const ushort16 lanes = (ushort16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
                    *(__global uchar16 *)(mask + at) = convert_uchar16(((ushort16)flags >> lanes) & (ushort16)1);
                } else {
                    for (size_t byte = max(at, start); byte < min(at + 16, stop); ++byte) {
                        const int offset = (int)(byte - start);
                        mask[byte] = (uchar)((markers[offset >> 5] >> (offset & 31)) & 1u);
                    }
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
