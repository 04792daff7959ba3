/* Technique without the technique: the first work-item of a launch computes every pixel the launch
   covers, found from get_global_offset and get_global_size; the others do nothing. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

__kernel void mask_pixel(__global const double *xy, const int n_vertices,
                         __global uchar *mask, const int rows, const int cols)
{
    if (get_global_id(0) != get_global_offset(0) || get_global_id(1) != get_global_offset(1)) {
        return;
    }
    const int row_end = min((int)(get_global_offset(1) + get_global_size(1)), rows);
    const int col_end = min((int)(get_global_offset(0) + get_global_size(0)), cols);
    for (int row = (int)get_global_offset(1); row < row_end; ++row) {
        for (int col = (int)get_global_offset(0); col < col_end; ++col) {
            const double px = (double)col, py = (double)row;
            bool inside = false;
            for (int i = 0, j = n_vertices - 1; i < n_vertices; j = i++) {
                const double xi = xy[2 * i], yi = xy[2 * i + 1], xj = xy[2 * j], yj = xy[2 * j + 1];
                if ((yi > py) != (yj > py)) {
                    const double x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi;
                    if (px < x_cross) {
                        inside = !inside;
                    }
                }
            }
            mask[row * cols + col] = inside ? 1 : 0;
        }
    }
}
