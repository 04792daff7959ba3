/*
 * crossing.h -- the one definition of "is this point inside the polygon".
 *
 * This header is written in the common subset of C++17 and OpenCL C so that
 * the C++ core and the OpenCL kernels compile the very same lines.  It owns
 * the PNPOLY even-odd crossing rule (W. R. Franklin) and its winding-number
 * twin, evaluated exactly as the mask contract spells it:
 *
 *     x_cross = (x[j] - x[i]) * (py - y[i]) / (y[j] - y[i]) + x[i]
 *
 * Same operations, same order.  Whoever compiles this must turn floating-point
 * contraction off (no fused multiply-add), or results stop being bit-identical
 * across backends.
 *
 * Vertices are stored interleaved, (x0, y0, x1, y1, ...), which is exactly the
 * memory of a C-contiguous NumPy array of shape (N, 2).
 *
 * Knobs for the OpenCL side (the C++ side uses the defaults):
 *   PM_REAL          the arithmetic type: double (default) or float
 *   PM_VERTEX_SPACE  address space of vertex pointers: __global in OpenCL
 */
#ifndef POLYMASK_CROSSING_H
#define POLYMASK_CROSSING_H

#ifndef PM_REAL
#define PM_REAL double
#endif

#if defined(__OPENCL_C_VERSION__) || defined(__OPENCL_VERSION__)
#define PM_FUNC inline
#ifndef PM_VERTEX_SPACE
#define PM_VERTEX_SPACE __global
#endif
#else
#define PM_FUNC inline
#ifndef PM_VERTEX_SPACE
#define PM_VERTEX_SPACE
#endif
namespace polymask {
#endif

/* Does the edge with end-point ordinates yi, yj cross the horizontal line
 * y = py?  The comparison is half-open: a vertex exactly on the line counts
 * as below it, so each crossing is seen once and shared edges never double. */
PM_FUNC bool pm_edge_crosses_row(PM_REAL yi, PM_REAL yj, PM_REAL py)
{
    return (yi > py) != (yj > py);
}

/* Where the edge from (xi, yi) to (xj, yj) meets the line y = py.  Only
 * meaningful when pm_edge_crosses_row() holds, so yj != yi. */
PM_FUNC PM_REAL pm_x_cross(PM_REAL xi, PM_REAL yi, PM_REAL xj, PM_REAL yj, PM_REAL py)
{
    return (xj - xi) * (py - yi) / (yj - yi) + xi;
}

/* Even-odd rule for one closed ring of n vertices: an odd number of edges
 * crossing the row to the right of px means inside. */
PM_FUNC bool pm_ring_parity(const PM_VERTEX_SPACE PM_REAL *xy, int n, PM_REAL px, PM_REAL py)
{
    bool inside = false;
    for (int i = 0, j = n - 1; i < n; j = i++) {
        const PM_REAL xi = xy[2 * i], yi = xy[2 * i + 1];
        const PM_REAL xj = xy[2 * j], yj = xy[2 * j + 1];
        if (pm_edge_crosses_row(yi, yj, py) && px < pm_x_cross(xi, yi, xj, yj, py)) {
            inside = !inside;
        }
    }
    return inside;
}

/* Winding-number contribution of one ring: the same crossings, each counted
 * +1 or -1 by the direction the edge runs (upward in y is +1). */
PM_FUNC int pm_ring_winding(const PM_VERTEX_SPACE PM_REAL *xy, int n, PM_REAL px, PM_REAL py)
{
    int winding = 0;
    for (int i = 0, j = n - 1; i < n; j = i++) {
        const PM_REAL xi = xy[2 * i], yi = xy[2 * i + 1];
        const PM_REAL xj = xy[2 * j], yj = xy[2 * j + 1];
        if (pm_edge_crosses_row(yi, yj, py) && px < pm_x_cross(xi, yi, xj, yj, py)) {
            winding += (yi > yj) ? 1 : -1;
        }
    }
    return winding;
}

#if !(defined(__OPENCL_C_VERSION__) || defined(__OPENCL_VERSION__))
}  // namespace polymask
#endif

#endif /* POLYMASK_CROSSING_H */
