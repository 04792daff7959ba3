# points.pxd -- Cython's view of csrc/include/polymask/points.hpp.
#
# Every call checks for Ctrl-C while it builds and between blocks of points:
# `except +raise_py_error` (core.pxd) raises KeyboardInterrupt.
from libc.stdint cimport int64_t, uint8_t

from polymask.core cimport FillRule, Polygon, raise_py_error

cdef extern from "polymask/points.hpp" namespace "polymask" nogil:
    # The edge index of one polygon, built from rings as Polygon takes them.
    cdef cppclass PointIndex:
        PointIndex(const double *xy, int64_t n_vertices, const int64_t *ring_ends,
                   int64_t n_rings) except +raise_py_error
    void contains_points(const PointIndex &index, const double *x, const double *y, int64_t n, uint8_t *out,
                         FillRule rule, int threads) except +raise_py_error
    void contains_grid(const PointIndex &index, const double *x, int64_t width, const double *y, int64_t height,
                       uint8_t *out, FillRule rule, int threads) except +raise_py_error
    void contains_points(const Polygon &polygon, const double *x, const double *y, int64_t n, uint8_t *out,
                         FillRule rule, int threads) except +raise_py_error
    void contains_grid(const Polygon &polygon, const double *x, int64_t width, const double *y, int64_t height,
                       uint8_t *out, FillRule rule, int threads) except +raise_py_error
    void which_polygon(const Polygon *polygons, int64_t n_polygons, const double *x, const double *y, int64_t n,
                       int64_t *out, FillRule rule, int threads) except +raise_py_error

    # Many polygons (flat rings, as polygons_from_rings takes them): which
    # holds each point.  Refers to xy and ring_ends, which must outlive it.
    cdef cppclass LabelIndex:
        LabelIndex(const double *xy, int64_t n_vertices, const int64_t *ring_ends, int64_t n_rings,
                   const int64_t *polygon_ends, int64_t n_polygons) except +raise_py_error
        void which(const double *x, const double *y, int64_t n, int64_t *out, FillRule rule,
                   int threads) except +raise_py_error
        void which_grid(const double *x, int64_t width, const double *y, int64_t height, int64_t *out,
                        FillRule rule, int threads) except +raise_py_error
        int64_t polygon_count()
        int64_t indexed_polygons()
        int64_t memory_bytes()
