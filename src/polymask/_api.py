"""The public, fast function: ``polymask.mask``.

Validates in Python (polymask/_validation.py), then calls the C++ scanline
core through the Cython binding (polymask/_core.pyx) with the GIL released.
"""
from __future__ import annotations

import platform

import numpy as np

from polymask import _core, stages
from polymask._validation import as_shape, as_threads, as_vertices, output_buffer
from polymask._version import __version__


def mask(vertices, shape, *, out=None, threads=None, backend="auto") -> np.ndarray:
    """Return the boolean mask of the pixels inside a polygon.

    Parameters
    ----------
    vertices : array-like of shape (N, 2)
        The polygon's (x, y) = (column, row) vertices; the last joins the
        first.  Any real numbers; they are used as float64.
    shape : (rows, cols)
        The image shape; both at least 1.
    out : numpy.ndarray, optional
        A C-contiguous, writable bool or uint8 array of `shape` to fill in
        place instead of allocating a new one.  It is returned.
    threads : int, optional
        Threads to use; None or 0 means all cores (OpenMP's default, so
        ``OMP_NUM_THREADS`` applies).  Single-threaded stages ignore it.
    backend : str, optional
        Which implementation computes the mask: "auto" (the scanline core,
        or the stage named by ``$POLYMASK_BACKEND``) or any stage id from
        ``polymask.stages.ids()``.  All return the same mask.

    Returns
    -------
    numpy.ndarray
        ``mask[r, c]`` is True iff the point (x=c, y=r) is inside the polygon
        under the even-odd crossing rule (PNPOLY), evaluated exactly in
        float64.  The rule is half-open: pixels on a left or top edge are
        in, on a right or bottom edge out, so polygons sharing an edge never
        both claim a pixel.

    Raises
    ------
    TypeError, ValueError
        For input that is not a polygon or image: wrong array shape,
        non-numbers, non-finite coordinates, a non-positive or absurd image
        shape, a bad `out` or `threads`.  Degenerate polygons (fewer than
        three vertices, zero area, self-intersecting, outside the image)
        are not errors.
    MemoryError
        When the mask cannot be allocated.
    RuntimeError
        When the requested backend cannot run here (the message says why).

    Examples
    --------
    >>> import polymask
    >>> polymask.mask([(0, 0), (3, 0), (0, 3)], (4, 4)).astype(int)
    array([[1, 1, 1, 0],
           [1, 1, 0, 0],
           [1, 0, 0, 0],
           [0, 0, 0, 0]])
    """
    coordinates = as_vertices(vertices)
    rows_cols = as_shape(shape)
    thread_count = as_threads(threads)
    stage = stages.resolve(backend)
    result, buffer = output_buffer(out, rows_cols)
    if stage.id == "scanline":  # the production path: straight into the caller's buffer
        _core.fill(coordinates, buffer, 0, 0, _core.EVEN_ODD, thread_count)
        return result
    options = {"threads": thread_count} if stage.threaded else {}
    stage_mask = stage.load()(coordinates, rows_cols, **options)
    if stage_mask.shape != rows_cols or stage_mask.dtype != bool:  # a broken stage must not pass silently
        raise RuntimeError(f"backend {stage.id!r} returned {stage_mask.dtype} {stage_mask.shape}, "
                           f"expected bool {rows_cols}")
    buffer[...] = stage_mask
    return result


def available_backends() -> dict:
    """Every backend mapped to (available, reason): which can run here, and why not."""
    return stages.available_backends()


def build_info() -> dict:
    """How this polymask was built and how it will run.

    Returns a dict with the package version, the C++ compiler, the build
    type, whether OpenMP is compiled in (and its version), the number of
    threads a fill uses by default, and the Python and NumPy versions.
    """
    info = {"version": __version__}
    info.update(_core.core_info())
    info["threads"] = info.pop("max_threads")
    info["python"] = platform.python_version()
    info["numpy"] = np.__version__
    return info
