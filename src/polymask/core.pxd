# core.pxd -- Cython's view of the C++ core, csrc/include/polymask/core.hpp.
#
# Declarations only, mirroring the header: every function that can throw is
# marked `except +` so a C++ exception becomes a Python one, and the whole
# block is `nogil` because the core never touches Python objects.
from libc.stdint cimport int64_t, uint8_t
from libcpp cimport bool
from libcpp.string cimport string
from libcpp.vector cimport vector

# Fills throw polymask::Interrupted when the caller's interrupt check (set by
# _core.pyx: Ctrl-C) asked them to stop; the check has then already set
# KeyboardInterrupt.  Cython's plain `except +` would replace it with a
# RuntimeError, so fills are declared `except +raise_py_error`: it keeps a
# pending Python error and otherwise translates like `except +` does.
cdef extern from *:
    """
    #include <cstring>
    #include <new>
    #include <stdexcept>
    #include <typeinfo>
    #include "polymask/core.hpp"
    /* The core names its own functions ("polymask::coverage: vertices must
     * be finite"); Python users called polymask.something, so the C++ name
     * is dropped and the rest, which says what was wrong, is kept. */
    static inline const char *polymask_public_words(const char *what)
    {
        if (std::strncmp(what, "polymask::", 10) != 0) return what;
        const char *rest = std::strstr(what, ": ");
        return rest != nullptr ? rest + 2 : what;
    }
    static inline void polymask_raise_py_error(void)
    {
        if (PyErr_Occurred()) return;  /* KeyboardInterrupt from the interrupt check */
        try {
            throw;
        } catch (const polymask::Interrupted &) {
            PyErr_SetNone(PyExc_KeyboardInterrupt);
        } catch (const std::bad_alloc &) {
            PyErr_SetString(PyExc_MemoryError, "polymask: out of memory");
        } catch (const std::invalid_argument &error) {
            PyErr_SetString(PyExc_ValueError, polymask_public_words(error.what()));
        } catch (const std::domain_error &error) {
            PyErr_SetString(PyExc_ValueError, polymask_public_words(error.what()));
        } catch (const std::out_of_range &error) {
            PyErr_SetString(PyExc_IndexError, polymask_public_words(error.what()));
        } catch (const std::overflow_error &error) {
            PyErr_SetString(PyExc_OverflowError, polymask_public_words(error.what()));
        } catch (const std::exception &error) {
            PyErr_SetString(PyExc_RuntimeError, polymask_public_words(error.what()));
        } catch (...) {
            PyErr_SetString(PyExc_RuntimeError, "polymask: unknown C++ exception");
        }
    }

    """
    void raise_py_error "polymask_raise_py_error"() except *


cdef extern from "polymask/core.hpp" namespace "polymask" nogil:
    enum class FillRule(int):
        even_odd
        nonzero

    cdef cppclass Window:
        int64_t row0
        int64_t col0
        int64_t height
        int64_t width

    cdef cppclass ConstSpan[T]:
        const T *data()
        size_t size()

    cdef cppclass Polygon:
        Polygon() except +raise_py_error
        Polygon(const double *xy, int64_t n_vertices) except +raise_py_error
        Polygon(const double *xy, int64_t n_vertices,
                const int64_t *ring_ends, int64_t n_rings) except +raise_py_error
        int64_t vertex_count()
        int64_t ring_count()
        ConstSpan[double] xy()
        bool contains(double px, double py, FillRule rule)

    # The Polygon objects alive in the process, and the vertices and bytes they hold.
    cdef struct PolygonCensus:
        int64_t polygons
        int64_t vertices
        int64_t bytes
    PolygonCensus polygon_census()

    void fill_per_pixel(const Polygon &polygon, const Window &window, uint8_t *out,
                        int64_t row_stride, FillRule rule, int threads) except +raise_py_error
    void fill_scanline(const Polygon &polygon, const Window &window, uint8_t *out,
                       int64_t row_stride, FillRule rule, int threads) except +raise_py_error
    void fill_scanline_spans(const Polygon &polygon, const Window &window, uint8_t *out,
                             int64_t row_stride, FillRule rule, int threads) except +raise_py_error
    int64_t crossed_rows(const Polygon &polygon, const Window &window)
    int resolve_threads(int threads)

    # Threads and interrupts (csrc/src/thread_counts.cpp, interrupts.cpp).
    int hardware_threads()
    int thread_cap()
    int default_threads()
    ctypedef bool (*InterruptCheck)(void *context) noexcept nogil
    InterruptCheck set_interrupt_check(InterruptCheck check, void *context, void **previous_context)
    # One check for every thread that has none of its own: _core.pyx installs Ctrl-C with it.
    InterruptCheck set_process_interrupt_check(InterruptCheck check, void *context)
    # A loop of a binding's own polls the same check between steps.
    void throw_if_interrupted() except +raise_py_error
    cdef cppclass PoolStatistics:
        int64_t threaded_calls
        int64_t unpaid_calls
        int64_t waited_ns
        int64_t longest_wait_ns
        int penalty
    PoolStatistics pool_statistics()
    void reset_pool_learning(bool adaptive)

    cdef cppclass BuildInfo:
        string version
        string compiler
        string build_type
        bool openmp
        int openmp_version
        int max_threads
        string threading
        int thread_cap

    BuildInfo build_info()


# Label images: csrc/include/polymask/rasterize.hpp.  rasterize and
# rasterize_touched are templates over the label type, explicitly
# instantiated for uint8, uint16, int32, uint32, int64, float and double in
# csrc/src/rasterize.cpp and csrc/src/touched.cpp.
cdef extern from "polymask/rasterize.hpp" namespace "polymask" nogil:
    void polygons_from_rings(const double *xy, int64_t n_vertices,
                             const int64_t *ring_ends, int64_t n_rings,
                             const int64_t *polygon_ends, int64_t n_polygons,
                             vector[Polygon] &polygons, int threads) except +raise_py_error
    void rasterize[Label](const Polygon *polygons, int64_t n_polygons, const Label *values,
                          const Window &window, Label *out, int64_t row_stride,
                          FillRule rule, int threads, bool add,
                          bool *overlap) except +raise_py_error
    # all_touched: each polygon's touched cells (csrc/src/touched.cpp), later over earlier.
    void rasterize_touched[Label](const Polygon *polygons, int64_t n_polygons, const Label *values,
                                  const Window &window, Label *out, int64_t row_stride,
                                  FillRule rule, int threads, double side_tolerance,
                                  bool add) except +raise_py_error


# Many instance masks in one call: csrc/include/polymask/masks.hpp.
cdef extern from "polymask/masks.hpp" namespace "polymask" nogil:
    cdef cppclass MaskBox:
        int64_t row0
        int64_t col0
        int64_t height
        int64_t width

    void fill_masks(const Polygon *polygons, int64_t n_polygons, const Window &window, uint8_t *out,
                    int64_t row_stride, int64_t mask_stride, FillRule rule, int threads,
                    bool zeroed) except +raise_py_error
    void mask_boxes(const Polygon *polygons, int64_t n_polygons, const Window &window,
                    MaskBox *boxes, FillRule rule, int threads) except +raise_py_error
    void fill_mask_crops(const Polygon *polygons, int64_t n_polygons, const MaskBox *boxes,
                         uint8_t *out, const int64_t *offsets, FillRule rule, int threads) except +raise_py_error
