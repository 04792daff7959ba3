# views.pxd -- what the Cython bindings (_core.pyx, _coco.pyx,
# _coverage_sweep.pyx) share: typed memoryviews turned into the pointers,
# windows, fill rules and polygons the C++ core takes (core.pxd declares
# them).  Inline helpers only; the arguments were validated in Python.
from libc.stdint cimport int64_t
from libcpp.vector cimport vector

from polymask.core cimport FillRule, Polygon, Window, crossed_rows, polygons_from_rings


cdef inline const double *first_vertex(const double[:, ::1] vertices) except? NULL:
    """The (x, y) pairs as the core reads them (NULL for none); ValueError unless two columns."""
    if vertices.shape[1] != 2:
        raise ValueError(f"vertices must have 2 columns, got {vertices.shape[1]}")
    return &vertices[0, 0] if vertices.shape[0] > 0 else NULL


cdef inline const int64_t *first_end(const int64_t[::1] ends) noexcept:
    """Cumulative ends (of rings, parts, polygons) as the core reads them (NULL for none)."""
    return &ends[0] if ends.shape[0] > 0 else NULL


cdef inline FillRule as_rule(int rule) noexcept nogil:
    """The core's fill rule of _core.EVEN_ODD / _core.NONZERO."""
    return FillRule.nonzero if rule == <int>FillRule.nonzero else FillRule.even_odd


cdef inline Window window_at(int64_t row0, int64_t col0, int64_t height, int64_t width) noexcept nogil:
    """The window of an output buffer whose top-left pixel is (row0, col0)."""
    cdef Window window
    window.row0 = row0
    window.col0 = col0
    window.height = height
    window.width = width
    return window


cdef inline Polygon *new_polygon(const double[:, ::1] vertices, const int64_t[::1] ring_ends) except NULL:
    """A new core Polygon, owned by the caller; ring_ends None means one ring."""
    cdef const double *xy = first_vertex(vertices)
    cdef int64_t n_vertices = vertices.shape[0]
    cdef int64_t single_ring_end = n_vertices
    cdef const int64_t *ends = &single_ring_end
    cdef int64_t n_rings = 1
    if ring_ends is not None:
        n_rings = ring_ends.shape[0]
        ends = first_end(ring_ends)
    cdef Polygon *polygon
    with nogil:  # copying a large polygon needs no GIL
        polygon = new Polygon(xy, n_vertices, ends, n_rings)
    return polygon


cdef inline void flat_polygons(const double[:, ::1] vertices, const int64_t[::1] ring_ends,
                               const int64_t[::1] polygon_ends, vector[Polygon] &polygons,
                               int threads) except *:
    """The core's polygons from flat rings (polymask._rings.PolygonList) into `polygons`.

    Built on up to `threads` threads, with the interrupt check between
    chunks (_core.pyx installs it once for the process).
    """
    cdef const double *xy = first_vertex(vertices)
    cdef const int64_t *ring_ptr = first_end(ring_ends)
    cdef const int64_t *polygon_ptr = first_end(polygon_ends)
    with nogil:
        polygons_from_rings(xy, vertices.shape[0], ring_ptr, ring_ends.shape[0], polygon_ptr,
                            polygon_ends.shape[0], polygons, threads)


# Up to this many bytes, glibc serves an array from its heap (its largest
# automatic mmap threshold, 32 MiB on 64-bit), so np.zeros pays a memset of
# every byte anyway; larger arrays come as fresh zero pages from the kernel.
cdef enum:
    HEAP_SERVED_BYTES = 32 * 1024 * 1024


cdef inline bint writes_every_byte(const Polygon &polygon, const Window &window, int64_t item_size) noexcept nogil:
    """How to allocate a new raster for `polygon`: np.empty with every element written (True) or np.zeros.

    np.zeros hands back lazily mapped zero pages for large arrays, so a
    polygon over few rows costs only the pages it covers: write only its
    cells.  But for a heap-served array (np.zeros memsets it) with a polygon
    over most rows, writing every element once ourselves saves that pass:
    40.9 -> 33.1 us for the standard problem (csrc/bench/STEPS.md).
    """
    return (window.height * window.width * item_size <= HEAP_SERVED_BYTES
            and 4 * crossed_rows(polygon, window) >= 3 * window.height)
