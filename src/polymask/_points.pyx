# cython: language_level=3, boundscheck=False, wraparound=False
"""Binding of the point queries (csrc/src/points.cpp): the contract at any (x, y).

Like polymask/_core.pyx it only adapts validated NumPy buffers and calls the
core with the GIL released; polymask/_contains.py validates first.
"""
from libc.stdint cimport int64_t, uint8_t
from libcpp.memory cimport unique_ptr

from polymask.points cimport LabelIndex, PointIndex
from polymask.points cimport contains_grid as core_contains_grid
from polymask.points cimport contains_points as core_contains_points
from polymask.views cimport as_rule, first_end, first_vertex


cdef PointIndex *new_index(const double[:, ::1] vertices, const int64_t[::1] ring_ends) except NULL:
    """The core's edge index of the rings (one ring when ring_ends is None), owned by the caller.

    Built straight from the caller's vertices with the GIL released; the
    build answers Ctrl-C (the process's check, _core.pyx).
    """
    cdef const double *xy = first_vertex(vertices)
    cdef int64_t n_vertices = vertices.shape[0]
    cdef int64_t single_ring_end = n_vertices
    cdef const int64_t *ends = &single_ring_end
    cdef int64_t n_rings = 1
    if ring_ends is not None:
        n_rings = ring_ends.shape[0]
        ends = first_end(ring_ends)
    cdef PointIndex *index
    with nogil:
        index = new PointIndex(xy, n_vertices, ends, n_rings)
    return index


def contains(const double[:, ::1] vertices not None, const double[::1] x not None, const double[::1] y not None,
             uint8_t[::1] out not None, int rule=0, int threads=0, const int64_t[::1] ring_ends=None):
    """out[k] = 1 where (x[k], y[k]) is inside the polygon, else 0."""
    cdef int64_t n = x.shape[0]
    if y.shape[0] != n or out.shape[0] != n:
        raise ValueError(f"x, y and out must have one length, got {n}, {y.shape[0]} and {out.shape[0]}")
    if n == 0:
        return
    cdef unique_ptr[PointIndex] index
    index.reset(new_index(vertices, ring_ends))
    with nogil:
        core_contains_points(index.get()[0], &x[0], &y[0], n, &out[0], as_rule(rule), threads)


def contains_grid(const double[:, ::1] vertices not None, const double[::1] x not None,
                  const double[::1] y not None, uint8_t[:, ::1] out not None, int rule=0, int threads=0,
                  const int64_t[::1] ring_ends=None):
    """out[r, c] = 1 where (x[c], y[r]) is inside, else 0; x non-decreasing (the caller sorts it)."""
    cdef int64_t width = x.shape[0], height = y.shape[0]
    if out.shape[0] != height or out.shape[1] != width:
        raise ValueError(f"out must have shape ({height}, {width}), got ({out.shape[0]}, {out.shape[1]})")
    if width == 0 or height == 0:
        return
    cdef unique_ptr[PointIndex] index
    index.reset(new_index(vertices, ring_ends))
    with nogil:
        core_contains_grid(index.get()[0], &x[0], width, &y[0], height, &out[0, 0], as_rule(rule), threads)


cdef class PolygonLabels:
    """Many polygons indexed once (the core's LabelIndex), asked which holds each point.

    Built from flat rings as polymask._rings.PolygonList holds them; it keeps
    the arrays, which the core reads in place.  The build releases the GIL
    and answers Ctrl-C (the process's interrupt check, _core.pyx).
    """
    cdef unique_ptr[LabelIndex] index
    cdef object kept

    def __cinit__(self, vertices, ring_ends, polygon_ends):
        cdef const double[:, ::1] xy_view = vertices
        cdef const int64_t[::1] ring_view = ring_ends
        cdef const int64_t[::1] polygon_view = polygon_ends
        cdef const double *xy = first_vertex(xy_view)
        cdef const int64_t *ring_ptr = first_end(ring_view)
        cdef const int64_t *polygon_ptr = first_end(polygon_view)
        cdef int64_t n_vertices = xy_view.shape[0], n_rings = ring_view.shape[0]
        cdef int64_t n_polygons = polygon_view.shape[0]
        self.kept = (vertices, ring_ends, polygon_ends)
        with nogil:
            self.index.reset(new LabelIndex(xy, n_vertices, ring_ptr, n_rings, polygon_ptr, n_polygons))

    @property
    def indexed_polygons(self):
        """How many of the polygons got an edge index of their own (the others are tested edge by edge)."""
        return self.index.get().indexed_polygons()

    @property
    def memory_bytes(self):
        """The heap bytes the index holds."""
        return self.index.get().memory_bytes()

    def which(self, const double[::1] x not None, const double[::1] y not None, int64_t[::1] out not None,
              int rule=0, int threads=0):
        """out[k] = p + 1 for the last polygon p holding (x[k], y[k]), else 0."""
        cdef int64_t n = x.shape[0]
        if y.shape[0] != n or out.shape[0] != n:
            raise ValueError(f"x, y and out must have one length, got {n}, {y.shape[0]} and {out.shape[0]}")
        if n == 0:
            return
        with nogil:
            self.index.get().which(&x[0], &y[0], n, &out[0], as_rule(rule), threads)

    def which_grid(self, const double[::1] x not None, const double[::1] y not None, int64_t[:, ::1] out not None,
                   int rule=0, int threads=0):
        """out[r, c] = p + 1 for the last polygon p holding (x[c], y[r]), else 0; x non-decreasing."""
        cdef int64_t width = x.shape[0], height = y.shape[0]
        if out.shape[0] != height or out.shape[1] != width:
            raise ValueError(f"out must have shape ({height}, {width}), got ({out.shape[0]}, {out.shape[1]})")
        if width == 0 or height == 0:
            return
        with nogil:
            self.index.get().which_grid(&x[0], width, &y[0], height, &out[0, 0], as_rule(rule), threads)


def which_polygon(const double[:, ::1] vertices not None, const int64_t[::1] ring_ends not None,
                  const int64_t[::1] polygon_ends not None, const double[::1] x not None,
                  const double[::1] y not None, int64_t[::1] out not None, int rule=0, int threads=0):
    """out[k] = p + 1 for the last polygon p holding (x[k], y[k]), else 0 (flat rings as in _polygons.rasterize)."""
    cdef int64_t n = x.shape[0]
    if y.shape[0] != n or out.shape[0] != n:
        raise ValueError(f"x, y and out must have one length, got {n}, {y.shape[0]} and {out.shape[0]}")
    PolygonLabels(vertices.base, ring_ends.base, polygon_ends.base).which(x, y, out, rule, threads)
