# core.pxd -- Cython's view of the C++ core, csrc/include/polymask/core.hpp.
#
# Declarations only, mirroring the header: every function that can throw is
# marked `except +` so a C++ exception becomes a Python one, and the whole
# block is `nogil` because the core never touches Python objects.
from libc.stdint cimport int64_t, uint8_t
from libcpp cimport bool
from libcpp.string cimport string
from libcpp.vector cimport vector

cdef extern from "polymask/core.hpp" namespace "polymask" nogil:
    enum class FillRule(int):
        even_odd
        nonzero

    cdef cppclass Window:
        int64_t row0
        int64_t col0
        int64_t height
        int64_t width

    cdef cppclass Polygon:
        Polygon() except +
        Polygon(const double *xy, int64_t n_vertices) except +
        Polygon(const double *xy, int64_t n_vertices,
                const int64_t *ring_ends, int64_t n_rings) except +
        int64_t vertex_count()
        int64_t ring_count()
        const vector[double] &xy()
        bool contains(double px, double py, FillRule rule)

    void fill_per_pixel(const Polygon &polygon, const Window &window, uint8_t *out,
                        int64_t row_stride, FillRule rule, int threads) except +
    void fill_scanline(const Polygon &polygon, const Window &window, uint8_t *out,
                       int64_t row_stride, FillRule rule, int threads) except +
    void fill_scanline_spans(const Polygon &polygon, const Window &window, uint8_t *out,
                             int64_t row_stride, FillRule rule, int threads) except +
    int resolve_threads(int threads)

    cdef cppclass BuildInfo:
        string version
        string compiler
        string build_type
        bool openmp
        int openmp_version
        int max_threads

    BuildInfo build_info()


# Label images: csrc/include/polymask/rasterize.hpp.  rasterize is a template
# over the label type, explicitly instantiated for uint8, uint16, int32,
# uint32, int64, float and double in csrc/src/rasterize.cpp.
cdef extern from "polymask/rasterize.hpp" namespace "polymask" nogil:
    void polygons_from_rings(const double *xy, int64_t n_vertices,
                             const int64_t *ring_ends, int64_t n_rings,
                             const int64_t *polygon_ends, int64_t n_polygons,
                             vector[Polygon] &polygons) except +
    void rasterize[Label](const Polygon *polygons, int64_t n_polygons, const Label *values,
                          const Window &window, Label *out, int64_t row_stride,
                          FillRule rule, int threads) except +


# Many instance masks in one call: csrc/include/polymask/masks.hpp.
cdef extern from "polymask/masks.hpp" namespace "polymask" nogil:
    cdef cppclass MaskBox:
        int64_t row0
        int64_t col0
        int64_t height
        int64_t width

    void fill_masks(const Polygon *polygons, int64_t n_polygons, const Window &window, uint8_t *out,
                    int64_t row_stride, int64_t mask_stride, FillRule rule, int threads,
                    bool zeroed) except +
    void mask_boxes(const Polygon *polygons, int64_t n_polygons, const Window &window,
                    MaskBox *boxes, FillRule rule, int threads) except +
    void fill_mask_crops(const Polygon *polygons, int64_t n_polygons, const MaskBox *boxes,
                         uint8_t *out, const int64_t *offsets, FillRule rule, int threads) except +
