# _one_step.pxd -- the funnel's one-step tests, for the bindings that run them
# themselves (_core.pyx: polymask.mask's one-call branch).  Defined once, in
# _one_step.pyx, beside the Python functions the funnel's checks call.
from cpython.buffer cimport Py_buffer
from libc.stdint cimport int64_t


cdef Py_ssize_t ring_status(object vertices) except -3
cdef bint plain_sides(object shape, int64_t *rows, int64_t *cols) except -1
cdef bint out_ready(object out, Py_buffer *buffer, int64_t rows, int64_t cols) except -1
