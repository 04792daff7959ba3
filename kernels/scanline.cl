/*
 * scanline.cl -- the algorithmic lesson on a device: one work-item per row.
 *
 * The per-pixel kernel tests every edge at every pixel, O(rows * cols * N).
 * Here each work-item owns one row: it computes the contract's x_cross once
 * per edge that crosses the row (the shared header's pm_x_cross), then fills
 * the row in one pass, O(rows * (N + cols)).
 *
 * The C++ core sorts the crossings and fills spans between pairs.  Sorting
 * an unbounded list is awkward in a kernel (no dynamic memory), so this
 * kernel uses the same fact another way: pixel c is inside iff an odd number
 * of crossings have c < x_cross, i.e. c < ceil(x_cross).  Each crossing
 * flips a parity marker at column ceil(x_cross) - 1, and a running XOR from
 * the right end of the row turns the markers into the mask.  Same
 * crossings, same arithmetic, so the same mask as the per-pixel rule, bit
 * for bit -- no sort, no pairing, no extra memory.
 */
#include "precision.h"
#include "polymask/crossing.h"

__kernel void pm_mask_scanline(__global const PM_REAL *xy, const int n_vertices,
                               __global uchar *mask, const int rows, const int cols)
{
    const int row = (int)get_global_id(0);
    if (row >= rows) {
        return;
    }
    __global uchar *line = mask + (size_t)row * (size_t)cols;
    for (int col = 0; col < cols; ++col) {
        line[col] = 0;
    }

    const PM_REAL py = (PM_REAL)row;
    for (int i = 0, j = n_vertices - 1; i < n_vertices; j = i++) {
        const PM_REAL xi = xy[2 * i], yi = xy[2 * i + 1];
        const PM_REAL xj = xy[2 * j], yj = xy[2 * j + 1];
        if (!pm_edge_crosses_row(yi, yj, py)) {
            continue;
        }
        const PM_REAL x_cross = pm_x_cross(xi, yi, xj, yj, py);
        /* Columns 0 .. ceil(x_cross) - 1 are left of the crossing.  None
         * are when x_cross <= 0 (or NaN: px < NaN is false for every px). */
        if (!(x_cross > (PM_REAL)0)) {
            continue;
        }
        /* Clamp before converting: x_cross may be huge or +inf. */
        const long left_count = x_cross >= (PM_REAL)cols ? (long)cols : min((long)ceil(x_cross), (long)cols);
        line[left_count - 1] ^= (uchar)1;
    }

    /* Suffix XOR: pixel c is inside iff the markers at columns >= c have
     * odd parity, i.e. an odd number of crossings lie right of c. */
    uchar inside = 0;
    for (int col = cols - 1; col >= 0; --col) {
        inside ^= line[col];
        line[col] = inside;
    }
}
