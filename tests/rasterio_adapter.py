"""A pytest plugin that makes rasterio's rasterize burn with polymask (for tests/test_rasterio_suite.py).

``rasterio.features.rasterize`` checks its arguments, splits MultiPolygons
and GeometryCollections, and hands ``(geometry, value)`` pairs and the output
array to one private burn, ``rasterio.features._rasterize`` (GDAL).  This
plugin replaces that burn by ``polymask.rasterize`` into the same array, so
rasterio's own tests judge polymask's cells with rasterio's checks kept.
What it maps:

* the merge rule: ``MergeAlg.replace`` is ``merge="last"``, ``MergeAlg.add`` is ``"add"``;
* the values, converted as GDAL converts a burn value to the output type
  (rounded and clamped for integer types), since polymask refuses a value
  that does not fit;
* output types polymask does not burn (int8, int16, uint64) through a wider
  one, copied back.

Dataset output (``dst_path=``) stays GDAL's: polymask fills arrays only.
With ``POLYMASK_ADAPTER_CALLS`` set, the number of burns polymask answered is
written to that file, so the suite can tell the plugin took part; with
``POLYMASK_ADAPTER_BURN=gdal`` the plugin leaves GDAL's burn in place (the
suite's run of rasterio itself).
rasterio's conftest.py imports boto3 for S3 fixtures that the feature tests
do not use; when it is missing an empty stand-in module is registered.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types
from typing import Any

import numpy as np
import rasterio.features
from rasterio.enums import MergeAlg

import polymask

_GDAL_BURN = rasterio.features._rasterize
_WIDER = {
    np.dtype(np.int8): np.dtype(np.int32),
    np.dtype(np.int16): np.dtype(np.int32),
    np.dtype(np.uint64): np.dtype(np.int64),
}
_answered = 0


def polymask_burn(shapes: Any, out: Any, transform: Any, all_touched: bool, merge_alg: Any) -> None:
    """Burn rasterio's (geometry, value) pairs into `out` with polymask.rasterize."""
    global _answered
    if not isinstance(out, np.ndarray):  # a dataset
        _GDAL_BURN(shapes, out, transform, all_touched, merge_alg)
        return
    geometries = [geometry for geometry, _ in shapes]
    target = out if out.dtype not in _WIDER else out.astype(_WIDER[out.dtype])
    values = np.asarray([value for _, value in shapes], dtype=np.float64)
    if out.dtype.kind in "iu":
        info = np.iinfo(out.dtype)
        values = np.clip(np.round(values), info.min, info.max)
    merge = "add" if merge_alg == MergeAlg.add else "last"
    polymask.rasterize(
        geometries,
        out.shape,
        values.astype(target.dtype),
        out=target,
        transform=transform,
        all_touched=bool(all_touched),
        merge=merge,
    )
    if target is not out:
        out[...] = target.astype(out.dtype)
    _answered += 1
    calls = os.environ.get("POLYMASK_ADAPTER_CALLS")
    if calls:
        with open(calls, "w") as file:
            file.write(str(_answered))


if importlib.util.find_spec("boto3") is None:
    sys.modules["boto3"] = types.ModuleType("boto3")
if os.environ.get("POLYMASK_ADAPTER_BURN") != "gdal":
    rasterio.features._rasterize = polymask_burn
