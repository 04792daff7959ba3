# cython: language_level=3, boundscheck=False, wraparound=False
"""The funnel's one-step tests: is an argument already in the form its check would return unchanged?

Each check of the funnel starts with one of these and returns the argument
itself when it passes: polymask/_validation.py's as_vertices
(core_ring_status), polymask/_arguments.py's as_shape (shape_is_plain) and
polymask/_outputs.py's result_array for a mask's out= (mask_out_ready).  Anything else the check
reads slowly, with its messages.  polymask.mask's one-call branch
(_core.plain_mask) runs the same tests through _one_step.pxd, so a plain
call is checked and filled in one call, with no check of its own.

This module imports no other polymask module: the checks and the bindings
both import it.
"""
from cpython.buffer cimport (
    PyBUF_C_CONTIGUOUS, PyBUF_FORMAT, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer,
)
from cpython.long cimport PyLong_AsLongLongAndOverflow
from libc.stdint cimport int64_t
from libc.string cimport strcmp

import numpy as np

#: Largest image side the public API accepts (polymask/_arguments.py reads it here).
MAX_SIDE = 2**31 - 1

cdef int64_t max_side = MAX_SIDE


cdef Py_ssize_t ring_status(object vertices) except -3:
    """-2 unless `vertices` is a C-contiguous (N, 2) ndarray of native float64; else -1 if finite, or the bad row."""
    if type(vertices) is not np.ndarray:
        return -2
    cdef Py_buffer view
    try:
        PyObject_GetBuffer(vertices, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS)
    except (BufferError, ValueError):  # not C-contiguous
        return -2
    cdef const double *xy = <const double *>view.buf
    cdef Py_ssize_t k
    cdef double value
    try:
        if not (view.ndim == 2 and view.shape[1] == 2 and view.itemsize == 8
                and view.format != NULL and strcmp(view.format, b"d") == 0):
            return -2
        for k in range(2 * view.shape[0]):
            value = xy[k]
            if value - value != 0.0:  # NaN, or +-inf (inf - inf is NaN)
                return k // 2
        return -1
    finally:
        PyBuffer_Release(&view)


cdef bint plain_sides(object shape, int64_t *rows, int64_t *cols) except -1:
    """True for a tuple of two ints in [1, MAX_SIDE], whose sides go to `rows` and `cols`."""
    if type(shape) is not tuple or len(<tuple>shape) != 2:
        return False
    row_count, col_count = <tuple>shape
    if type(row_count) is not int or type(col_count) is not int:
        return False
    cdef int rows_overflow, cols_overflow
    rows[0] = PyLong_AsLongLongAndOverflow(row_count, &rows_overflow)
    cols[0] = PyLong_AsLongLongAndOverflow(col_count, &cols_overflow)
    return not rows_overflow and not cols_overflow and 1 <= rows[0] <= max_side and 1 <= cols[0] <= max_side


cdef bint out_ready(object out, Py_buffer *buffer, int64_t rows, int64_t cols) except -1:
    """True for a writable C-contiguous bool or uint8 ndarray of shape (rows, cols), its bytes then in `buffer`.

    The caller releases `buffer` after a True.
    """
    if type(out) is not np.ndarray:
        return False
    try:
        PyObject_GetBuffer(out, buffer, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
    except (BufferError, ValueError):  # read-only, or not C-contiguous
        return False
    if (buffer.ndim == 2 and buffer.shape[0] == rows and buffer.shape[1] == cols and buffer.itemsize == 1
            and buffer.format != NULL and (strcmp(buffer.format, b"?") == 0 or strcmp(buffer.format, b"B") == 0)):
        return True
    PyBuffer_Release(buffer)
    return False


def core_ring_status(vertices):
    """as_vertices' test: -2 unless a C-contiguous (N, 2) native float64 ndarray, else -1 if finite or the bad row."""
    return ring_status(vertices)


def shape_is_plain(shape):
    """as_shape's test: a tuple of two ints in [1, MAX_SIDE]."""
    cdef int64_t rows, cols
    return plain_sides(shape, &rows, &cols)


def mask_out_ready(out, shape):
    """result_array's test of a mask's out=: a writable C-contiguous bool or uint8 ndarray of `shape`, a (rows, cols)."""
    cdef Py_buffer buffer
    cdef int64_t rows, cols
    if not plain_sides(shape, &rows, &cols) or not out_ready(out, &buffer, rows, cols):
        return False
    PyBuffer_Release(&buffer)
    return True
