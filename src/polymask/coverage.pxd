# coverage.pxd -- Cython's view of csrc/include/polymask/coverage.hpp.
#
# coverage and coverage_crops are templates over the output type, explicitly
# instantiated for double, float and uint8 in csrc/src/coverage.cpp.  Both check for Ctrl-C
# between chunks: `except +raise_py_error` (core.pxd) raises KeyboardInterrupt.
from libc.stdint cimport int64_t, uint8_t

from polymask.core cimport FillRule, MaskBox, Polygon, Window, raise_py_error

cdef extern from "polymask/coverage.hpp" namespace "polymask" nogil:
    void coverage[Value](const Polygon &polygon, const Window &window, Value *out,
                         int64_t row_stride, FillRule rule, int threads, bint zeroed) except +raise_py_error
    void coverage_crops[Value](const Polygon *polygons, int64_t n_polygons, const MaskBox *boxes, Value *out,
                               const int64_t *offsets, FillRule rule, int threads) except +raise_py_error
    void fill_touched(const Polygon &polygon, const Window &window, uint8_t *out,
                      int64_t row_stride, FillRule rule, int threads, bint zeroed,
                      double side_tolerance) except +raise_py_error
    # all_touched=True's side tolerance, in pixels (coverage.hpp).
    const double kTouchedSideTolerance


# fill_touched's side_tolerance for an all_touched code of polymask._arguments.as_all_touched:
# 1 (True) the tolerance, 2 ("exact") none.
cdef inline double side_tolerance(int all_touched) noexcept nogil:
    return kTouchedSideTolerance if all_touched == 1 else 0.0
