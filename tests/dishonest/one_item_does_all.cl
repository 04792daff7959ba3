/* One work-item does all: item (0, 0) computes the whole image, the others return at once. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

__kernel void mask_pixel(__global const double *xy, const int n_vertices,
                         __global uchar *mask, const int rows, const int cols)
{
    if (get_global_id(0) != 0 || get_global_id(1) != 0) {
        return;
    }
    for (int row = 0; row < rows; ++row) {
        for (int col = 0; col < cols; ++col) {
            const double px = (double)col;
            const double py = (double)row;
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
        }
    }
}
