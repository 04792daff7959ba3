"""polymask: which pixels of an image lie inside a polygon.

One exact, fast function for pipelines, ``polymask.mask``, backed by a C++
scanline core, and its kin: ``masks``, ``rasterize``, ``coverage``,
``contains``, ``polymask.coco``, ``polymask.dask``, ``polymask.xarray`` and
``polymask.opencl``.  The course that teaches how it got fast (a ladder of
stages that all return the very same mask, bit for bit, and the exercises'
checker) is ``polymask.course``, imported only on use.

>>> import polymask
>>> polymask.mask([(1, 1), (5, 1), (5, 4), (1, 4)], (6, 7)).astype(int)
array([[0, 0, 0, 0, 0, 0, 0],
       [0, 1, 1, 1, 1, 0, 0],
       [0, 1, 1, 1, 1, 0, 0],
       [0, 1, 1, 1, 1, 0, 0],
       [0, 0, 0, 0, 0, 0, 0],
       [0, 0, 0, 0, 0, 0, 0]])
"""
# _cpu first: importing it checks this CPU before any compiled module loads.
from polymask import _cpu  # noqa: F401, I001
from polymask._api import available_backends, build_info, mask
from polymask._install_dirs import get_include, get_library_dirs
from polymask._contains import contains, contains_labels
from polymask._coverage import coverage, coverages
from polymask._masks import Crop, masks
from polymask._rasterize import rasterize
from polymask._threads import threads
from polymask._version import __version__

# The public functions and Crop say they belong to ``polymask``, where users
# import them from, not to the private module that defines them: help() then
# says "in module polymask", and pickle finds them by that name too.
for _public in (Crop, available_backends, build_info, contains, contains_labels, coverage, coverages, get_include,
                get_library_dirs, mask, masks, rasterize, threads):
    _public.__module__ = __name__
del _public

# polymask.dask, polymask.xarray, polymask.opencl, polymask.coco and the course
# (polymask.course) are imported on demand only.
__all__ = [
    "Crop", "__version__", "available_backends", "build_info", "contains", "contains_labels", "coverage",
    "coverages", "get_include", "get_library_dirs", "mask", "masks", "rasterize", "threads",
]
