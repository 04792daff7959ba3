"""The regions of polymask.xarray: regionmask Regions, GeoPandas or polygons, read once with their numbers.

A GeoDataFrame or GeoSeries with a CRS is reprojected to the CRS of a
georeferenced ``like=`` (rioxarray) before it is read.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from polymask import _inputs
from polymask._describe import describe as _describe
from polymask._geometries import geometry_array
from polymask._rings import PolygonList


def regions_of(
    regions: Any, numbers: ArrayLike | None, like: Any = None
) -> tuple[PolygonList, NDArray[Any], list[str] | None, list[str] | None]:
    """(PolygonList, numbers, names, abbrevs) of any accepted regions form.

    A GeoDataFrame or GeoSeries with a CRS is reprojected to the CRS of a
    georeferenced `like` (rioxarray) first.
    """
    names = abbrevs = None
    regions = in_crs_of(regions, like)
    default_numbers = None
    if hasattr(regions, "polygons") and hasattr(regions, "numbers"):  # regionmask.Regions, duck-typed
        default_numbers = np.asarray(regions.numbers)
        names, abbrevs = list(regions.names), list(regions.abbrevs)
        regions = np.array(list(regions.polygons), dtype=object)
    elif geometry_array(regions) is None and not isinstance(regions, (list, tuple, np.ndarray)):
        raise TypeError(
            f"regions must be a regionmask.Regions, a GeoDataFrame / GeoSeries, or a sequence of "
            f"polygons, got {_describe(regions)}"
        )
    flat = _inputs.polygons(regions, name="regions", on_pixels=False)
    if numbers is None:
        numbers = default_numbers if default_numbers is not None else np.arange(len(flat))
    numbers = np.asarray(numbers)
    if numbers.dtype.kind not in "iuf" or numbers.shape != (len(flat),):
        raise ValueError(f"numbers must hold one number per region ({len(flat)}), got {_describe(numbers)}")
    return flat, numbers, names, abbrevs


def in_crs_of(regions: Any, like: Any) -> Any:
    """`regions` reprojected to like's rioxarray CRS when both have one (GeoPandas only)."""
    source = getattr(regions, "crs", None)
    if source is None or like is None or not type(regions).__module__.startswith("geopandas"):
        return regions
    try:
        import rioxarray  # noqa: F401  (registers the .rio accessor)

        target = like.rio.crs
    except Exception:  # no rioxarray georeference: nothing to reproject to
        return regions
    if target is None or source == target:
        return regions
    return regions.to_crs(target)
