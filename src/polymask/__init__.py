"""polymask: which pixels of an image lie inside a polygon.

One exact, fast function for pipelines, ``polymask.mask``, backed by a C++
scanline core; and, around it, a ladder of teaching stages that all return
the very same mask, bit for bit.

>>> import polymask
>>> polymask.mask([(1, 1), (5, 1), (5, 4), (1, 4)], (6, 7)).astype(int)
array([[0, 0, 0, 0, 0, 0, 0],
       [0, 1, 1, 1, 1, 0, 0],
       [0, 1, 1, 1, 1, 0, 0],
       [0, 1, 1, 1, 1, 0, 0],
       [0, 0, 0, 0, 0, 0, 0],
       [0, 0, 0, 0, 0, 0, 0]])
"""
# _worker_guard first: polymask does not run where `polymask check` runs a learner's code.
# _cpu next: importing it checks this CPU before any compiled module loads.
from polymask import _worker_guard  # noqa: F401, I001
from polymask import _cpu, cases, problems, stages  # noqa: F401
from polymask._api import available_backends, build_info, mask
from polymask._build import get_include, get_library_dirs
from polymask._contains import contains, contains_labels
from polymask._coverage import coverage, coverages
from polymask._masks import Crop, masks
from polymask._rasterize import rasterize
from polymask._threads import threads
from polymask._version import __version__

# polymask.dask is imported on demand only: importing polymask never imports dask.
__all__ = [
    "Crop", "__version__", "available_backends", "build_info", "cases", "contains", "contains_labels", "coverage",
    "coverages", "get_include",
    "get_library_dirs", "mask", "masks", "problems", "rasterize", "stages", "threads",
]
