# cython: language_level=3, boundscheck=False, wraparound=False
"""Binding of the core's COCO RLE code (csrc/include/polymask/rle.hpp).

Adapts validated NumPy buffers and calls the core with the GIL released;
polymask/coco.py validates and builds the dicts.  Counts cross the boundary
as uint32 NumPy arrays, compressed strings as bytes.
"""
import numpy as np

from polymask._outputs import result_array

from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from libcpp.string cimport string
from libcpp.numeric cimport accumulate
from libcpp.vector cimport vector

from polymask.core cimport FillRule, throw_if_interrupted
from polymask.views cimport as_rule, first_end, first_vertex
from polymask.rle cimport (
    rle_compress, rle_decode, rle_decompress, rle_encode, rle_intersection_area, rle_merge, rle_merge_many,
)


cdef object _as_array(const vector[uint32_t] &counts):
    """A new uint32 array holding `counts`."""
    result = np.empty(counts.size(), dtype=np.uint32)
    cdef uint32_t[::1] view = result
    if counts.size() > 0:
        memcpy(&view[0], counts.data(), counts.size() * sizeof(uint32_t))
    return result


def encode(const double[:, ::1] vertices not None, const int64_t[::1] ring_ends not None,
           const int64_t[::1] part_ends not None, const int64_t[::1] object_ends not None,
           int64_t height, int64_t width, int rule=0, int threads=0, bint compress=True):
    """COCO RLEs of many objects, each the union of its parts.

    Ring k is vertices [ring_ends[k-1], ring_ends[k]), part p is rings
    [part_ends[p-1], part_ends[p]), object o is parts
    [object_ends[o-1], object_ends[o]).  Vertices are in the contract's
    sample-point frame.  Returns a list of bytes (compress) or of uint32
    count arrays.
    """
    cdef const double *xy = first_vertex(vertices)
    cdef int64_t n_vertices = vertices.shape[0]
    cdef int64_t n_rings = ring_ends.shape[0]
    cdef int64_t n_parts = part_ends.shape[0]
    cdef int64_t n_objects = object_ends.shape[0]
    cdef const int64_t *ring_ptr = first_end(ring_ends)
    cdef const int64_t *part_ptr = first_end(part_ends)
    cdef const int64_t *object_ptr = first_end(object_ends)
    cdef FillRule fill_rule = as_rule(rule)

    cdef vector[vector[uint32_t]] counts
    cdef vector[string] strings
    with nogil:
        rle_encode(xy, n_vertices, ring_ptr, n_rings, part_ptr, n_parts, object_ptr, n_objects,
                   height, width, fill_rule, threads, counts, &strings if compress else NULL)
    cdef size_t k
    if compress:
        return [bytes(strings[k]) for k in range(strings.size())]
    return [_as_array(counts[k]) for k in range(counts.size())]


def compress(const uint32_t[::1] counts not None):
    """COCO's counts string (bytes) of uint32 run lengths."""
    cdef int64_t n = counts.shape[0]
    cdef const uint32_t *ptr = &counts[0] if n > 0 else NULL
    cdef string text
    with nogil:
        text = rle_compress(ptr, n)
    return bytes(text)


def decompress(bytes text not None):
    """The uint32 run lengths of a COCO counts string."""
    cdef const char *ptr = text
    cdef int64_t n = len(text)
    cdef vector[uint32_t] counts
    with nogil:
        counts = rle_decompress(ptr, n)
    return _as_array(counts)


def decode_into(const uint32_t[::1] counts not None, uint8_t[::1] out not None):
    """Write the pixels of `counts` (column-major, COCO's order) into `out`, one byte each."""
    cdef int64_t n = counts.shape[0]
    cdef const uint32_t *ptr = &counts[0] if n > 0 else NULL
    cdef uint8_t *out_ptr = &out[0] if out.shape[0] > 0 else NULL
    cdef int64_t n_pixels = out.shape[0]
    with nogil:
        rle_decode(ptr, n, out_ptr, n_pixels)


def merge(const uint32_t[::1] a not None, const uint32_t[::1] b not None, bint intersect=False):
    """Run lengths of the union (or intersection) of two RLEs."""
    cdef const uint32_t *pa = &a[0] if a.shape[0] > 0 else NULL
    cdef const uint32_t *pb = &b[0] if b.shape[0] > 0 else NULL
    cdef vector[uint32_t] merged
    with nogil:
        merged = rle_merge(pa, a.shape[0], pb, b.shape[0], intersect)
    return _as_array(merged)


def merge_dicts(list rles not None, bint intersect=False, bint compressed=True):
    """The merged RLE dict of RLE dicts with counts strings of one size, in one core call and no array per RLE.

    None when an RLE is not a dict with the first's size and a counts string covering it: polymask/coco.py
    then reads the RLEs one by one for the message that names the culprit.
    """
    cdef Py_ssize_t k, count = len(rles), n_chars
    cdef vector[vector[uint32_t]] runs
    cdef vector[uint32_t] merged
    cdef string text
    cdef const char *chars
    cdef uint64_t n_pixels
    if count == 0 or type(rles[0]) is not dict:
        return None
    size = (<dict>rles[0]).get("size")
    if type(size) not in (list, tuple) or len(size) != 2:
        return None
    height, width = size
    if type(height) is not int or type(width) is not int or height < 0 or width < 0 or height * width >= 2 ** 32:
        return None
    n_pixels = height * width
    runs.resize(count)
    for k in range(count):
        rle = rles[k]
        if type(rle) is not dict or (<dict>rle).get("size") != size:
            return None
        counts = (<dict>rle).get("counts")
        try:
            if type(counts) is str:  # read in place: a non-ASCII character is outside '0'..'o', refused
                chars = PyUnicode_AsUTF8AndSize(counts, &n_chars)
            elif type(counts) is bytes:
                chars = <bytes>counts
                n_chars = len(<bytes>counts)
            else:
                return None
            runs[k] = rle_decompress(chars, n_chars)
        except ValueError:  # corrupt counts, or a lone surrogate (UnicodeError)
            return None
    if accumulate(runs[0].begin(), runs[0].end(), <uint64_t>0) != n_pixels:  # counts covering the image
        return None
    try:
        with nogil:
            merged = rle_merge_many(runs, intersect)  # in pairs, or a depth count, as the RLEs suit
            if compressed:
                text = rle_compress(merged.data(), merged.size())
    except ValueError:  # an RLE covering other than the first's pixels
        return None
    return {"size": [height, width], "counts": bytes(text) if compressed else list(merged)}


cdef void _bbox(const uint32_t[::1] counts, int64_t height, int64_t *box) noexcept nogil:
    """Column-major bounding box of the ones: box = (col0, col1, row0, row1), inclusive; col0 > col1 if empty."""
    cdef int64_t position = 0, k, begin, last, c0, c1
    box[0], box[1], box[2], box[3] = 1, 0, height, -1
    for k in range(counts.shape[0]):
        if k % 2 == 1 and counts[k] > 0:
            begin = position
            last = position + counts[k] - 1
            c0 = begin // height
            c1 = last // height
            if box[0] > box[1]:
                box[0] = c0
            box[1] = c1
            if c0 != c1:  # a run over a column break covers every row
                box[2] = 0
                box[3] = height - 1
            else:
                box[2] = min(box[2], begin % height)
                box[3] = max(box[3], last % height)
        position += counts[k]


def intersection_areas(list left not None, list right not None, int64_t height):
    """(len(left), len(right)) uint64 matrix of pixels in both, for uint32 count arrays.

    Pairs whose bounding boxes do not meet are skipped, as pycocotools does.
    The core's interrupt check is polled after each row of the matrix: 3,000
    x 3,000 overlapping COCO objects take seconds, and a loop in C that holds
    the GIL never lets Python run the handler otherwise.
    """
    cdef Py_ssize_t n_left = len(left), n_right = len(right), i, j
    result = result_array(None, (n_left, n_right), np.uint64, zeroed=True, what="matrix of intersection areas",
                          hint="compare the annotations in parts")
    cdef uint64_t[:, ::1] areas = result
    boxes_left, boxes_right = np.zeros((n_left, 4), dtype=np.int64), np.zeros((n_right, 4), dtype=np.int64)
    cdef int64_t[:, ::1] bl = boxes_left
    cdef int64_t[:, ::1] br = boxes_right
    cdef const uint32_t[::1] a, b
    for i in range(n_left):
        _bbox(left[i], max(height, 1), &bl[i, 0])
    for j in range(n_right):
        _bbox(right[j], max(height, 1), &br[j, 0])
    for i in range(n_left):
        if bl[i, 0] > bl[i, 1]:
            continue
        a = left[i]
        for j in range(n_right):
            if (br[j, 0] > br[j, 1] or br[j, 0] > bl[i, 1] or bl[i, 0] > br[j, 1]
                    or br[j, 2] > bl[i, 3] or bl[i, 2] > br[j, 3]):
                continue
            b = right[j]
            with nogil:
                areas[i, j] = rle_intersection_area(&a[0], a.shape[0], &b[0], b.shape[0])
        throw_if_interrupted()  # KeyboardInterrupt when Ctrl-C came
    return result


def flat_parts(list parts not None):
    """COCO flat lists to one (M, 2) float64 vertex array and cumulative ring ends.

    Returns (vertices, ring_ends, bad_part, problem): bad_part is -1 when
    every part is an even-length sequence of numbers, else the index of the
    first part that is not, with problem "odd" or "number".  One pass in C
    over the Python floats: the conversion NumPy would do per part.
    """
    cdef Py_ssize_t n_parts = len(parts), k = 0, i, n, total = 0, position = 0
    try:
        for k in range(n_parts):
            total += len(parts[k])
    except TypeError:  # a part without a length: not a flat list
        return None, None, k, "number"
    vertices = np.empty(total, dtype=np.float64)
    ring_ends = np.empty(n_parts, dtype=np.int64)
    cdef double[::1] out = vertices
    cdef int64_t[::1] ends = ring_ends
    cdef list items
    k = 0
    try:
        for k in range(n_parts):
            part = parts[k]
            n = len(part)
            if n % 2:
                return None, None, k, "odd"
            if type(part) is list:
                items = <list>part
                for i in range(n):
                    out[position + i] = <double>items[i]
            else:
                for i, value in enumerate(part):
                    out[position + i] = <double>value
            position += n
            ends[k] = position // 2
    except (TypeError, ValueError):
        return None, None, k, "number"
    return vertices.reshape(-1, 2), ring_ends, -1, None


# ---- the common case in one pass: COCO polygon segmentations -------------------
# A COCO annotation file gives every object as a list of parts, each a flat
# list of Python floats.  Converting those per part through NumPy, then
# building one result dict per object in Python, cost about a third of a
# whole encode of a typical image (1,200 objects: ~2 ms of ~6 ms).  Here the
# lists are read with borrowed references straight into one coordinate
# buffer, the core encodes it, and the dicts are built in C.

cdef extern from "Python.h":
    # Declared on raw PyObject pointers (no reference counting): the parse
    # below only reads lists, with the GIL held and no Python code running
    # in between, so nothing can change or free them meanwhile.
    ctypedef struct PyObject
    bint PyList_CheckExact(PyObject *value)
    bint PyFloat_CheckExact(PyObject *value)
    bint PyLong_CheckExact(PyObject *value)
    Py_ssize_t PyList_GET_SIZE(PyObject *value)
    PyObject *PyList_GET_ITEM(PyObject *value, Py_ssize_t index)
    double PyFloat_AS_DOUBLE(PyObject *value)
    double PyLong_AsDouble(PyObject *value)  # -1.0 and OverflowError for a huge int
    PyObject *PyErr_Occurred()
    void PyErr_Clear()

from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.math cimport isfinite


cdef bint parse_segmentations(list objects, vector[double] &xy, vector[int64_t] &ring_ends,
                              vector[int64_t] &object_ends) except -1:
    """Objects as COCO segmentations, in the contract's sample frame; False if some object is not one.

    The plain form only: each object a list (possibly empty) of parts, each
    part a list of an even count of finite floats or ints, told from a list
    of (x, y) points as polymask/_layouts.py tells them (by the first part's
    length, then the others').  Anything else returns False before a single
    error is decided here: polymask/coco.py's general path then takes the
    whole batch and words the error.  Ring k (= part k) ends at vertex
    ring_ends[k]; object o ends at part object_ends[o].
    """
    cdef PyObject *items = <PyObject *>objects
    cdef Py_ssize_t n_objects = PyList_GET_SIZE(items), n_parts, n, o, k, i
    cdef Py_ssize_t total = 0, position = 0
    cdef PyObject *item
    cdef PyObject *part
    cdef PyObject *value
    cdef double number
    cdef bint pairs_only, empty_part
    # Pass 1: the layout, and the coordinate count to allocate once.
    for o in range(n_objects):
        item = PyList_GET_ITEM(items, o)
        if not PyList_CheckExact(item):
            return False
        n_parts = PyList_GET_SIZE(item)
        pairs_only = True
        empty_part = False
        for k in range(n_parts):
            part = PyList_GET_ITEM(item, k)
            if not PyList_CheckExact(part):
                return False
            n = PyList_GET_SIZE(part)
            if n % 2:
                return False
            pairs_only = pairs_only and n == 2
            empty_part = empty_part or n == 0
            total += n
        if n_parts > 0:
            # polymask/_layouts.py's rule: a first part of two numbers makes
            # a list of (x, y) points, unless every part is a flat list and
            # one holds another count (is_segmentation(thorough=True)).
            n = PyList_GET_SIZE(PyList_GET_ITEM(item, 0))
            if n == 0 or (n == 2 and (pairs_only or empty_part)):
                return False
    xy.resize(total)
    ring_ends.clear()
    object_ends.clear()
    object_ends.reserve(n_objects)
    # Pass 2: the numbers.  COCO's cell coordinates map to the sample frame
    # by x - 1/2: exactly what to_sample_frame(vertices, IDENTITY) computes,
    # (x - 0) / 1 - 1/2, since x - 0 and x / 1 are x in IEEE arithmetic.
    for o in range(n_objects):
        item = PyList_GET_ITEM(items, o)
        for k in range(PyList_GET_SIZE(item)):
            part = PyList_GET_ITEM(item, k)
            n = PyList_GET_SIZE(part)
            for i in range(n):
                value = PyList_GET_ITEM(part, i)
                if PyFloat_CheckExact(value):
                    number = PyFloat_AS_DOUBLE(value)
                elif PyLong_CheckExact(value):
                    number = PyLong_AsDouble(value)
                    if number == -1.0 and PyErr_Occurred() != NULL:
                        PyErr_Clear()
                        return False
                else:
                    return False  # bool, str, NumPy scalar...: the general path decides
                if not isfinite(number):
                    return False
                xy[position + i] = number - 0.5
            position += n
            ring_ends.push_back(position // 2)
        object_ends.push_back(ring_ends.size())
    return True


def encode_segmentations(list objects not None, int64_t height, int64_t width, int rule=0, int threads=0,
                         bint compress=True):
    """COCO RLE dicts of COCO polygon segmentations, or None if some object is not in the plain form.

    objects: a list of segmentations (lists of flat lists of numbers, in
    COCO's cell coordinates), parts united.  Returns one
    ``{"size": [height, width], "counts": ...}`` per object (counts: bytes
    when compress, else a list of ints), or None, having decided nothing:
    the caller then takes its general path (other forms, and every error).
    """
    cdef vector[double] xy
    cdef vector[int64_t] ring_ends, part_ends, object_ends
    if not parse_segmentations(objects, xy, ring_ends, object_ends):
        return None
    cdef int64_t n_rings = ring_ends.size(), k
    part_ends.resize(n_rings)
    for k in range(n_rings):
        part_ends[k] = k + 1  # a COCO part is one ring
    cdef FillRule fill_rule = FillRule.nonzero if rule == 1 else FillRule.even_odd
    cdef vector[vector[uint32_t]] counts
    cdef vector[string] strings
    with nogil:
        rle_encode(xy.data(), <int64_t>xy.size() // 2, ring_ends.data(), n_rings, part_ends.data(), n_rings,
                   object_ends.data(), <int64_t>object_ends.size(), height, width, fill_rule, threads,
                   counts, &strings if compress else NULL)
    return rle_dicts(counts, strings, compress, height, width)


cdef list rle_dicts(vector[vector[uint32_t]] &counts, vector[string] &strings, bint compress,
                    int64_t height, int64_t width):
    """One COCO RLE dict per encoded object; each gets its own "size" list, as pycocotools gives."""
    cdef list results = []
    cdef size_t k
    h, w = height, width
    if compress:
        for k in range(strings.size()):
            results.append({"size": [h, w], "counts": PyBytes_FromStringAndSize(strings[k].data(), strings[k].size())})
    else:
        for k in range(counts.size()):
            results.append({"size": [h, w], "counts": counts[k]})
    return results
