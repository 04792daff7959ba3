# rle.pxd -- Cython's view of csrc/include/polymask/rle.hpp (COCO RLE).
#
# Declarations only; every function that can throw is `except +`, and the
# encoder, which checks for Ctrl-C between chunks, `except +raise_py_error`
# (core.pxd) so an interrupt arrives as KeyboardInterrupt.
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libcpp cimport bool
from libcpp.string cimport string
from libcpp.vector cimport vector

from polymask.core cimport FillRule, Polygon, raise_py_error

cdef extern from "polymask/rle.hpp" namespace "polymask" nogil:
    void rle_encode(const Polygon *parts, int64_t n_parts, const int64_t *object_ends,
                    int64_t n_objects, int64_t height, int64_t width, FillRule rule,
                    int threads, vector[vector[uint32_t]] &counts,
                    vector[string] *strings) except +raise_py_error
    void rle_encode(const double *xy, int64_t n_vertices, const int64_t *ring_ends, int64_t n_rings,
                    const int64_t *part_ends, int64_t n_parts, const int64_t *object_ends,
                    int64_t n_objects, int64_t height, int64_t width, FillRule rule,
                    int threads, vector[vector[uint32_t]] &counts,
                    vector[string] *strings) except +raise_py_error
    string rle_compress(const uint32_t *counts, int64_t n_counts) except +raise_py_error
    vector[uint32_t] rle_decompress(const char *text, int64_t n_chars) except +raise_py_error
    void rle_decode(const uint32_t *counts, int64_t n_counts, uint8_t *out, int64_t n_pixels) except +raise_py_error
    vector[uint32_t] rle_merge(const uint32_t *a, int64_t n_a, const uint32_t *b, int64_t n_b,
                               bool intersect) except +raise_py_error
    vector[uint32_t] rle_merge_many(const vector[vector[uint32_t]] &rles, bool intersect) except +raise_py_error
    uint64_t rle_intersection_area(const uint32_t *a, int64_t n_a,
                                   const uint32_t *b, int64_t n_b)
