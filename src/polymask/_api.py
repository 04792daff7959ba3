"""The public, fast function: ``polymask.mask``.

It reads its arguments through the library's funnel (polymask/_inputs.py for
the polygon, polymask/_arguments.py for the rest, polymask/_outputs.py for
``out=``), once, then fills with the C++ core (polymask/_fill.py).  The
commonest call, one ring already in the core's form and the defaults, is
checked and filled in one binding call (``_core.plain_mask``), which runs
the funnel's own one-step tests; anything else it hands back to the funnel.
``backend=`` other than "auto" hands the checked arguments to a teaching
stage (polymask/_backends.py).
"""
from __future__ import annotations

import platform
from collections.abc import Callable
from typing import Any, TypeVar, overload

import numpy as np
from numpy.typing import NDArray

from polymask import _backends, _core, _fill, _inputs
from polymask._arguments import as_all_touched, as_fill_rule, as_shape, as_window
from polymask._outputs import result_array
from polymask._rings import Rings
from polymask._threads import as_threads
from polymask._version import __version__
from polymask.typing import AllTouched, FillRule, MaskArray, PolygonLike, ShapeLike, TransformLike, WindowLike

_ScalarT = TypeVar("_ScalarT", bound=np.generic)


# The result is a new bool array, or `out` itself (bool or uint8) when given.
@overload
def mask(vertices: PolygonLike, shape: ShapeLike, *, out: None = None, threads: int | None = None,
         backend: str = "auto", fill_rule: FillRule = "evenodd", window: WindowLike | None = None,
         transform: TransformLike | None = None, all_touched: AllTouched = False) -> MaskArray: ...
@overload
def mask(vertices: PolygonLike, shape: ShapeLike, *, out: NDArray[_ScalarT], threads: int | None = None,
         backend: str = "auto", fill_rule: FillRule = "evenodd", window: WindowLike | None = None,
         transform: TransformLike | None = None, all_touched: AllTouched = False) -> NDArray[_ScalarT]: ...
def mask(vertices: PolygonLike, shape: ShapeLike, *, out: NDArray[Any] | None = None, threads: int | None = None,
         backend: str = "auto", fill_rule: FillRule = "evenodd", window: WindowLike | None = None,
         transform: TransformLike | None = None, all_touched: AllTouched = False) -> NDArray[Any]:
    """Return the boolean mask of the pixels inside a polygon.

    Parameters
    ----------
    vertices : polygon
        One ring: an (N, 2) array-like of (x, y) = (column, row) vertices;
        the last joins the first.  Any real numbers; they are used as
        float64.  Or several rings (holes, several parts): a list of (Ni, 2)
        array-likes, a GeoJSON-like ``{"type": "Polygon" | "MultiPolygon",
        "coordinates": ...}`` mapping (or a Feature of one), or any object
        with ``__geo_interface__`` such as a shapely Polygon or MultiPolygon
        (shapely geometries, a GeometryCollection of polygons, or a GeoSeries /
        GeoDataFrame of exactly one row are read vectorized; Z and M are
        dropped; an empty geometry gives an empty mask).  A NumPy array of
        numbers is always one ring.  Also COCO's flat list
        ``[x1, y1, x2, y2, ...]`` (one ring) and segmentation (a list of flat
        lists: the *union* of the parts' masks, as COCO means it), and
        OpenCV contours: an (N, 1, 2) array, a list of them (rings), or
        ``cv2.findContours``' ``(contours, hierarchy)`` pair
        (the forms are listed in :doc:`/guide/masks`).  A list of rings is
        one polygon, not several: the first ring its exterior, the others
        holes; a later ring that reaches outside the first one's bounds and
        overlaps it is warned about (UserWarning).  Separate polygons go to
        :func:`polymask.rasterize` or :func:`polymask.masks`.
    shape : (rows, cols)
        The image shape; both at least 1.  NumPy's ``image.shape``, not
        (width, height) as PIL's ``Image.size`` has it; the image itself is
        refused.  Vertices are (x, y), not scikit-image's (row, col): for its
        ``polygon2mask`` order pass ``vertices[:, ::-1]``.
    out : numpy.ndarray, optional
        A C-contiguous, writable bool or uint8 array of the result's shape
        (`shape`, or the window's (height, width)) to fill in place instead
        of allocating a new one.  It is returned.
        After an exception: if the input is refused (TypeError,
        ValueError) `out` is exactly as it was, since every argument is
        checked before the first byte is written; if the fill is
        interrupted (KeyboardInterrupt) or runs out of memory while it
        fills (MemoryError), `out` is partly written: some rows hold the
        result, the others what they held before.
    threads : int, optional
        The most threads to use (None or 0: the default; see :func:`polymask.threads`).
        The calling thread counts as one.  In a pool of worker
        processes that keeps every core busy, use 1.  Single-threaded
        stages ignore it.  Ctrl-C stops a long fill within a fraction of a
        second (KeyboardInterrupt; nothing is returned).
    backend : str, optional
        Which implementation computes the mask: "auto" (the default: the C++
        core's scanline fill; nothing in the environment changes it) or, for
        comparisons, a teaching stage of polymask's course by its id
        (``polymask.course.stages.ids()``).  All return the same mask.
        Several rings, ``fill_rule="nonzero"``, `window` and `all_touched`
        need "auto" or "scanline".
    fill_rule : {"evenodd", "nonzero"}, optional
        How crossings decide inside, over all rings together.  "evenodd"
        (the default, the contract's PNPOLY rule): an odd number of ring
        edges to the right means inside, so a ring inside another is a
        hole.  "nonzero" (SVG and canvas): the signed count of crossings
        (+1 for edges running toward larger y) is not zero; a hole must then
        run the other way round.
    window : (row0, col0, height, width), optional
        Fill only rows ``row0:row0+height`` and columns ``col0:col0+width``
        of the image.  The result has shape (height, width) and equals
        that slice of the full mask exactly; the window must lie inside
        `shape`.
    transform : affine.Affine or six numbers (a, b, c, d, e, f), optional
        Georeferenced cells, as GDAL and rasterio have them: pixel
        (row, col) is the cell with corners T·(col, row) and
        T·(col+1, row+1), inside iff its centre T·(col+½, row+½) is, and the
        vertices are world coordinates (x = a·col + b·row + c,
        y = d·col + e·row + f; rotation and shear allowed).  Without one,
        integer coordinates are the sample points (the contract).  See
        :doc:`/guide/geospatial`.
    all_touched : bool or "exact", optional
        False (default): the contract's centre rule.  True: rasterio's and
        GDAL's ``all_touched``: a pixel is in iff its cell (the unit square
        centred on the sample point) shares positive area with the filled
        region, once every vertex coordinate within 1e-7 pixel of a cell
        side has been moved onto that side, so a border stored an ulp past
        a grid line touches nothing beyond it.  "exact": moves nothing,
        i.e. ``polymask.coverage(...) > 0``.  Both need the scanline core
        (backend "auto" or "scanline").  See :doc:`/guide/coverage`.

    Returns
    -------
    numpy.ndarray
        ``mask[r, c]`` is True iff the point (x=c, y=r) is inside the polygon
        under the even-odd crossing rule (PNPOLY), evaluated exactly in
        float64.  The rule is half-open: pixels on a left or top edge are
        in, on a right or bottom edge out, so polygons sharing an edge never
        both claim a pixel.  With a window, ``mask[r, c]`` is the pixel
        (row0 + r, col0 + c).

    Raises
    ------
    TypeError, ValueError
        For input that is not a polygon or image: wrong array shape,
        non-numbers, non-finite coordinates, a non-positive or absurd image
        shape, a bad `out`, `threads`, `fill_rule`, `window` or
        `all_touched`, or a
        teaching-stage backend asked for rings, nonzero or a window.
        Degenerate polygons (fewer than three vertices, zero area,
        self-intersecting, outside the image) are not errors.
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

    A square with a square hole, as two rings:

    >>> outer, hole = [(0, 0), (5, 0), (5, 5), (0, 5)], [(1, 1), (3, 1), (3, 3), (1, 3)]
    >>> polymask.mask([outer, hole], (5, 5)).astype(int)
    array([[1, 1, 1, 1, 1],
           [1, 0, 0, 1, 1],
           [1, 0, 0, 1, 1],
           [1, 1, 1, 1, 1],
           [1, 1, 1, 1, 1]])
    """
    thread_count = as_threads(threads)
    plain = (window is None and (all_touched is False or all_touched is True) and type(backend) is str
             and backend == "auto" and type(fill_rule) is str and fill_rule == "evenodd")
    if plain and transform is None:
        # One ring in the core's form, the defaults: the funnel's one-step tests and the fill in one call.
        filled = _core.plain_mask(vertices, shape, thread_count, out, all_touched is True)
        if filled is not None:
            return filled
    rings = _inputs.polygon(vertices, transform, unite_parts=True, fill_rule=fill_rule)
    rows_cols = as_shape(shape)
    if plain and rings.ring_ends is None:  # one ring the funnel converted (a list, int, transform=...)
        filled = _core.plain_mask(rings.vertices, rows_cols, thread_count, out, all_touched is True)
        if filled is not None:
            return filled
    options: dict[str, Any] = {"threads": thread_count, "rule": as_fill_rule(fill_rule),
               "window": None if window is None else as_window(window, rows_cols),
               "all_touched": as_all_touched(all_touched)}
    fill = _backends.fill_function(backend) or _fill.fill
    if out is not None:  # checked whole before the first byte is written
        out = result_array(out, rows_cols if options["window"] is None else options["window"][2:])
    if not rings.united:
        return fill(rings.vertices, rows_cols, out, ring_ends=rings.ring_ends, **options)
    return _union_of_parts(fill, rings, rows_cols, out, options)


def _union_of_parts(fill: Callable[..., NDArray[Any]], rings: Rings, shape: tuple[int, int],
                    out: NDArray[Any] | None, options: dict[str, Any]) -> NDArray[Any]:
    """The union of the rings' masks: COCO's meaning of a segmentation's parts."""
    begin = 0
    result: NDArray[Any] | None = None
    assert rings.ring_ends is not None  # united rings always have their ends
    for end in rings.ring_ends.tolist():
        part = fill(rings.vertices[begin:end], shape, None, ring_ends=None, **options)
        result = part if result is None else np.logical_or(result, part, out=result)
        begin = end
    assert result is not None  # united parts are at least two
    if out is None:
        return result
    out[...] = result
    return out


def available_backends() -> dict[str, _backends.Availability]:
    """Every backend `backend=` may name, mapped to (available, reason): which can run here, and why not.

    These are the course's teaching stages (``polymask.course.stages``),
    "scanline" among them; "auto", the library's own fill, always runs.

    Returns
    -------
    dict of str to Availability
        Each backend's id mapped to a named tuple ``(available, reason)``:
        ``reason`` is empty where it runs, else why not (a missing extra,
        no OpenCL device, ...).  A provider of backends that cannot be
        loaded (the course left out of an install) appears under its own
        name, "course", unavailable, with the reason.

    Examples
    --------
    >>> import polymask
    >>> polymask.available_backends()["scanline"]
    Availability(available=True, reason='')
    """
    found = {backend: _backends.Availability(not entry.reason, entry.reason)
             for backend, entry in _backends.backends().items()}
    found.update((name, _backends.Availability(False, f"the backends of {name!r} are missing: {reason}"))
                 for name, reason in _backends.missing_providers().items())
    return found


def build_info() -> dict[str, Any]:
    """How this polymask was built and how it will run.

    Returns
    -------
    dict
        The package version (``version``), the C++ compiler, the build type,
        whether OpenMP is compiled in (``openmp``, and its version, used by
        the cython_prange lesson), the threading mechanism of the production
        fills (``threading``), the most threads a fill uses by default
        (``threads``) and at all (``thread_cap``), and the Python and NumPy
        versions.  ``polymask info`` prints it.

    Examples
    --------
    >>> import polymask
    >>> info = polymask.build_info()
    >>> info["version"] == polymask.__version__, info["threads"] <= info["thread_cap"]
    (True, True)
    """
    info = {"version": __version__}
    info.update(_core.core_info())
    info["threads"] = info.pop("max_threads")
    info["python"] = platform.python_version()
    info["numpy"] = np.__version__
    return info
