/*
 * pixel.cl -- the OpenCL rung of the ladder: one work-item per pixel.
 *
 * Each work-item asks the shared predicate (csrc/include/polymask/crossing.h,
 * the very lines the C++ core compiles) whether its pixel centre (x = col,
 * y = row) is inside the polygon.  O(rows * cols * N) work, all of it
 * independent: the data-parallel shape a GPU is built for.
 *
 * Host-side knobs (build options, see polymask/opencl/__init__.py):
 *   -D PM_USE_DOUBLE=1|0   arithmetic in double (bit-identical to the
 *                          contract) or float (devices without fp64)
 *   -I <kernels dir>       where "polymask/crossing.h" is found
 */
#include "precision.h"
#include "polymask/crossing.h"

/* The NDRange is (cols, rows) rounded up to whole work-groups, so the
 * work-items past the image edge do nothing. */
__kernel void pm_mask_pixel(__global const PM_REAL *xy, const int n_vertices,
                            __global uchar *mask, const int rows, const int cols)
{
    const int col = (int)get_global_id(0);
    const int row = (int)get_global_id(1);
    if (col >= cols || row >= rows) {
        return;
    }
    mask[(size_t)row * (size_t)cols + (size_t)col] =
        pm_ring_parity(xy, n_vertices, (PM_REAL)col, (PM_REAL)row) ? 1 : 0;
}
