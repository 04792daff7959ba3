"""Inputs in another library's order or form: refused with what to pass, warned about, or documented.

Each case gives a wrong answer without an error unless polymask speaks up:

* the image itself where its shape belongs: refused, "pass image.shape";
* separate polygons in one list, read as one polygon's rings: a later ring
  that reaches outside the first one's bounds and overlaps it is no hole, and
  polymask warns (disjoint rings are not warned about: there the even-odd rule
  gives their union, as separate polygons would);
* a GeoDataFrame with a CRS placed on pixels without ``transform=``: warned;
* (width, height) for `shape` and (row, col) vertices: documented in the
  docstring and the contract's guide (a polygon outside the image is valid input).
"""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import polymask

SQUARE = [(0, 0), (4, 0), (4, 4), (0, 4)]
OVERLAPPING = [(2, 2), (6, 2), (6, 6), (2, 6)]
HOLE = [(1, 1), (3, 1), (3, 3), (1, 3)]
FAR = [(10, 10), (12, 10), (12, 12), (10, 12)]


@pytest.mark.parametrize("image", [np.zeros((16, 16), np.uint8), np.zeros((8, 12, 3), np.uint8),
                                   np.zeros((2, 2), np.int64)])
@pytest.mark.parametrize("call", [polymask.mask, polymask.coverage, polymask.rasterize])
def test_an_image_passed_as_shape_is_refused_with_pass_image_shape(call, image):
    polygon = [SQUARE] if call is polymask.rasterize else SQUARE
    with pytest.raises(TypeError, match=rf"shape must be a \(rows, cols\) pair.*got an image.*"
                                        rf"{re.escape(str(image.shape))}.*pass image\.shape"):
        call(polygon, image)


def test_a_shape_array_of_two_sides_is_still_a_shape():
    assert polymask.mask(SQUARE, np.array([5, 5])).sum() == 16


@pytest.mark.parametrize("call", [lambda rings: polymask.mask(rings, (8, 8)),
                                  lambda rings: polymask.coverage(rings, (8, 8)),
                                  lambda rings: polymask.contains(rings, [1.0], [1.0])])
def test_overlapping_rings_in_a_list_warn_that_they_are_one_polygon(call):
    with pytest.warns(UserWarning, match=r"\[1\] reaches outside the bounds of .*\[0\] and overlaps it.*"
                                         r"polymask\.rasterize\(polygons, shape\) > 0") as caught:
        call([SQUARE, OVERLAPPING])
    assert caught[0].filename == __file__, "the warning points at polymask, not at the caller"


def test_the_overlap_is_out_as_the_contract_says_even_when_warned():
    with pytest.warns(UserWarning):
        found = polymask.mask([SQUARE, OVERLAPPING], (8, 8))
    expected = polymask.mask(SQUARE, (8, 8)) ^ polymask.mask(OVERLAPPING, (8, 8))
    assert np.array_equal(found, expected)
    assert np.array_equal(polymask.rasterize([SQUARE, OVERLAPPING], (8, 8)) > 0,
                          polymask.mask(SQUARE, (8, 8)) | polymask.mask(OVERLAPPING, (8, 8)))


@pytest.mark.parametrize("rings", [[SQUARE, HOLE], [SQUARE, FAR], [SQUARE, [], HOLE], [SQUARE, SQUARE[::-1]],
                                   [[], OVERLAPPING]])
def test_holes_and_disjoint_rings_do_not_warn(rings):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        polymask.mask(rings, (16, 16))


def test_overlapping_rings_under_nonzero_do_not_warn():
    """Under "nonzero", rings that run the same way unite, as separate polygons would."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = polymask.mask([SQUARE, OVERLAPPING], (8, 8), fill_rule="nonzero")
        polymask.coverage([SQUARE, OVERLAPPING], (8, 8), fill_rule="nonzero")
    assert np.array_equal(found, polymask.mask(SQUARE, (8, 8)) | polymask.mask(OVERLAPPING, (8, 8)))


def test_a_geodataframe_with_a_crs_and_no_transform_warns_on_pixels_only():
    geopandas = pytest.importorskip("geopandas")
    shapely = pytest.importorskip("shapely")
    frame = geopandas.GeoDataFrame(geometry=[shapely.Polygon(SQUARE), shapely.Polygon(OVERLAPPING)],
                                   crs="EPSG:32633")
    for call in (lambda: polymask.rasterize(frame, (8, 8)), lambda: polymask.masks(frame.geometry, (8, 8)),
                 lambda: polymask.mask(frame.iloc[:1], (8, 8))):
        with pytest.warns(UserWarning, match=r"in EPSG:32633 and no transform= was given.*pixel coordinates"
                                             r".*dataset\.transform"):
            call()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        polymask.rasterize(frame, (8, 8), transform=(1, 0, 0, 0, -1, 8))  # the raster's cells: no warning
        polymask.rasterize(frame.set_crs(None, allow_override=True), (8, 8))  # no CRS: pixels are meant
        polymask.contains_labels(frame, [1.0], [1.0])  # points in the frame's own CRS


def test_coverage_docstrings_list_the_dtypes_the_code_takes():
    numpydoc = pytest.importorskip("numpydoc.docscrape")
    for function in (polymask.coverage, polymask.coverages):
        doc = numpydoc.FunctionDoc(function)
        dtype_doc = next(p for p in doc["Parameters"] if p.name == "dtype")
        raises = {entry.type: " ".join(entry.desc) for entry in doc["Raises"]}
        for dtype in ("float64", "float32", "uint8"):
            assert dtype in dtype_doc.type, (function.__name__, dtype_doc.type)
            assert dtype in raises["TypeError"], (function.__name__, raises)
            function(SQUARE if function is polymask.coverage else [SQUARE], (4, 4), dtype=dtype)
        with pytest.raises(TypeError, match="dtype must be float64, float32 or uint8"):
            function(SQUARE if function is polymask.coverage else [SQUARE], (4, 4), dtype=np.int16)
