"""The converter for plain Python nesting: rings of one polygon, and what is no collection.

polymask/_layouts.py recognises the layout; polymask/_inputs.py hands it here:

* a list (or tuple) of rings, each an (Ni, 2) array-like: one polygon,
  whose rings polymask/_validation.py checks as ``name[k]``.  Which pixels
  are inside is decided over all rings together by the fill rule (even-odd:
  a hole is simply another ring; nonzero: holes must wind the other way);
* a value that is no sequence of polygons where a collection belongs:
  refused, saying what to pass.

A plain sequence of polygons needs no converter of its own: the funnel
converts each member by its own layout (polymask/_inputs.py).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

import numpy as np

from polymask._describe import describe as _describe
from polymask._geojson import geo_interface


def ring_list_rings(polygon: Any, name: str, unite_parts: bool = False) -> list[Any]:
    """A list of rings as (ring, label) pairs."""
    return [(ring, f"{name}[{k}]") for k, ring in enumerate(polygon)]


def refuse_collection(polygons: Any, name: str) -> NoReturn:
    """The error for a value that is no sequence of polygons."""
    expected = "a sequence of polygons (or a (P, N, 2) array)"
    if isinstance(polygons, np.ndarray):
        raise ValueError(f"{name} must be {expected}, got an array of shape {polygons.shape}")
    if isinstance(polygons, Mapping) or (getattr(type(polygons), "__geo_interface__", None) is not None
                                         and geo_interface(polygons) is not None):
        raise TypeError(f"{name} must be {expected}; for one polygon, pass [polygon]")
    raise TypeError(f"{name} must be {expected}, got {_describe(polygons)}")


def refuse_contour(polygons: Any, name: str) -> NoReturn:
    """The error for one OpenCV contour where polygons belong."""
    raise ValueError(f"{name} is an array of shape {polygons.shape}, which looks like one OpenCV contour "
                     "(N, 1, 2) rather than polygons; pass [contour] for one polygon")
