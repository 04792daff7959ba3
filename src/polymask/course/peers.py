"""The libraries people use today for the same job, behind one signature.

Each peer is called the way a careful user would call it to get a bool mask
of `shape` from (x, y) vertices, output allocation included, so its time is
comparable with ``polymask.mask``.  Several use other boundary conventions
than the mask contract (boundary pixels in, integer vertices, pixel areas
instead of pixel centres); `convention` says so, and the benchmark reports
how many pixels each disagrees with the contract instead of hiding it.

Peers whose library is not installed report themselves unavailable; none of
them is a dependency of polymask (they come with the ``peers`` extra).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Peer:
    id: str
    title: str
    #: How its answer may differ from the mask contract, in a phrase.
    convention: str
    #: The module that must import for the peer to run.
    requires: str
    # (vertices, shape) -> mask for the mask peers; (vertices, x, y) -> inside for POINT_PEERS.
    function: Callable[..., np.ndarray]

    def availability(self) -> tuple[bool, str]:
        try:
            importlib.import_module(self.requires)
        except ImportError as error:
            return False, f"{type(error).__name__}: {error}"
        return True, ""


# OpenCV draws with fixed-point vertices; 8 fractional bits keep the
# sub-pixel position instead of rounding every vertex to an integer.
_OPENCV_SHIFT = 8


def opencv_fillpoly(vertices, shape):
    import cv2

    result = np.zeros(shape, np.uint8)
    points = np.round(np.asarray(vertices) * (1 << _OPENCV_SHIFT)).astype(np.int32)
    cv2.fillPoly(result, [points], 1, lineType=cv2.LINE_8, shift=_OPENCV_SHIFT)
    return result.view(bool)


def skimage_polygon2mask(vertices, shape):
    from skimage.draw import polygon2mask

    return polygon2mask(shape, np.asarray(vertices)[:, ::-1])  # it takes (row, col)


def matplotlib_contains_points(vertices, shape):
    from matplotlib.path import Path

    rows, cols = np.indices(shape)
    centres = np.column_stack([cols.ravel(), rows.ravel()]).astype(np.float64)
    return Path(vertices).contains_points(centres).reshape(shape)


def pillow_imagedraw(vertices, shape):
    from PIL import Image, ImageDraw

    image = Image.new("1", (shape[1], shape[0]), 0)
    ImageDraw.Draw(image).polygon([tuple(v) for v in np.asarray(vertices, dtype=float)], fill=1, outline=1)
    return np.asarray(image, dtype=bool)


def shapely_contains_xy(vertices, shape):
    import shapely

    polygon = shapely.Polygon(vertices)
    shapely.prepare(polygon)
    rows, cols = np.indices(shape)
    return shapely.contains_xy(polygon, cols.astype(np.float64), rows.astype(np.float64))


PEERS: tuple[Peer, ...] = (
    Peer("opencv", "OpenCV cv2.fillPoly", "fixed-point vertices (1/256 px); boundary pixels drawn in",
         "cv2", opencv_fillpoly),
    Peer("skimage", "scikit-image draw.polygon2mask",
         "(row, col) vertices; a per-pixel test at centres that counts boundary pixels in",
         "skimage", skimage_polygon2mask),
    Peer("matplotlib", "matplotlib Path.contains_points", "pixel centres; boundary undefined (radius 0)",
         "matplotlib", matplotlib_contains_points),
    Peer("pillow", "Pillow ImageDraw.polygon", "rasterised outline drawn in: boundary pixels inside",
         "PIL", pillow_imagedraw),
    Peer("shapely", "shapely contains_xy", "pixel centres, boundary out; invalid (self-intersecting) "
         "polygons give undefined answers", "shapely", shapely_contains_xy),
)

_BY_ID = {peer.id: peer for peer in PEERS}


def get(peer_id: str) -> Peer:
    try:
        return _BY_ID[peer_id]
    except KeyError:
        raise ValueError(f"unknown peer {peer_id!r}; choose one of: {', '.join(_BY_ID)}") from None


def ids() -> list[str]:
    """Every peer id."""
    return list(_BY_ID)


def available_peers() -> dict[str, tuple[bool, str]]:
    """Every peer id mapped to (available, reason)."""
    return {peer.id: peer.availability() for peer in PEERS}


# ---- the same libraries asked about scattered points -----------------------
#
# polymask.contains answers the contract at any (x, y); these peers answer
# "which of these points are inside" the way a careful user calls them:
# shapely with a prepared polygon, matplotlib with one Path.


def shapely_contains_points(vertices, x, y):
    import shapely

    polygon = shapely.Polygon(vertices)
    shapely.prepare(polygon)
    return shapely.contains_xy(polygon, x, y)


def matplotlib_path_contains_points(vertices, x, y):
    from matplotlib.path import Path

    return Path(vertices).contains_points(np.column_stack([x, y]))


POINT_PEERS: tuple[Peer, ...] = (
    Peer("shapely", "shapely contains_xy", "boundary out; invalid (self-intersecting) polygons give "
         "undefined answers", "shapely", shapely_contains_points),
    Peer("matplotlib", "matplotlib Path.contains_points", "boundary undefined (radius 0)", "matplotlib",
         matplotlib_path_contains_points),
)
