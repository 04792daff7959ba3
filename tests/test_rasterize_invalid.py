"""``rasterize(..., invalid="skip")``: invalid and empty geometries left out, as rasterio leaves them.

The reference is rasterio's ``rasterize``, which skips invalid or empty
shapes with a warning each; polymask warns once, naming how many and which.
Without the option (``invalid="raise"``) a refused polygon is an error, as
before, and an empty one burns nothing.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import polymask

rasterio_features = pytest.importorskip("rasterio.features")
shapely = pytest.importorskip("shapely")
from shapely.geometry import Polygon, box  # noqa: E402

IDENTITY = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0)


def _rasterio(shapes, values, shape):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its warning per skipped shape
        return rasterio_features.rasterize(list(zip(shapes, values)), out_shape=shape, dtype="int32")


def _skipping(shapes, values, shape, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        labels = polymask.rasterize(shapes, shape, values, invalid="skip", transform=IDENTITY, dtype=np.int32,
                                    **options)
    return labels, [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def test_empty_and_missing_shapely_geometries_are_skipped_with_one_warning():
    rng = np.random.default_rng(55)
    shapes = [box(*sorted(rng.uniform(0, 30, 2)), *sorted(rng.uniform(0, 30, 2))) for _ in range(12)]
    for at in (2, 5, 9):
        shapes[at] = Polygon()
    geometries = np.array(shapes + [None], dtype=object)
    values = np.arange(1, 14)
    labels, messages = _skipping(geometries, values, (32, 32))
    np.testing.assert_array_equal(labels, _rasterio(shapes, values[:12], (32, 32)))
    assert len(messages) == 1
    assert "skipped 4 of 13 geometries" in messages[0]
    assert all(f"polygons[{at}] is empty" in messages[0] for at in (2, 5, 9, 12))


def test_refused_geojson_members_are_skipped_and_their_values_with_them():
    good = {"type": "Polygon", "coordinates": [[(1, 1), (16, 1), (16, 12), (1, 12), (1, 1)]]}
    other = {"type": "Polygon", "coordinates": [[(3, 2), (19, 2), (19, 18), (3, 18), (3, 2)]]}
    empty = {"type": "Polygon", "coordinates": []}
    infinite = {"type": "Polygon", "coordinates": [[(1, 1), (np.inf, 1), (6, 5), (1, 1)]]}
    not_a_polygon = {"type": "Circle", "coordinates": [1, 2]}
    shapes = [good, infinite, empty, other, not_a_polygon]
    labels, messages = _skipping(shapes, [1, 2, 3, 4, 5], (20, 20))
    np.testing.assert_array_equal(labels, _rasterio([good, other], [1, 4], (20, 20)))
    assert len(messages) == 1 and "skipped 3 of 5 geometries" in messages[0]
    assert "polygons[1]['coordinates'][0][1] = (inf, 1.0) is not finite" in messages[0]
    assert "polygons[2] is empty" in messages[0] and "polygons[4]" in messages[0]
    # The default refuses the same input, naming the first bad member; an empty one alone burns nothing.
    with pytest.raises(ValueError, match=r"polygons\[1\]"):
        polymask.rasterize(shapes, (20, 20), transform=IDENTITY)
    np.testing.assert_array_equal(polymask.rasterize([good, empty], (20, 20), [1, 3], transform=IDENTITY,
                                                     dtype=np.int32), _rasterio([good], [1], (20, 20)))


def test_valid_input_warns_nothing_and_equals_the_default():
    rng = np.random.default_rng(56)
    polygons = rng.uniform(0, 40, size=(30, 6, 2))
    labels, messages = _skipping(polygons, np.arange(30) + 1, (40, 40), all_touched=True)
    assert messages == []
    np.testing.assert_array_equal(labels, polymask.rasterize(polygons, (40, 40), np.arange(30) + 1,
                                                             transform=IDENTITY, dtype=np.int32,
                                                             all_touched=True))


def test_many_skipped_are_counted_and_the_first_named():
    shapes = [box(0, 0, 3, 3)] + [Polygon()] * 9
    labels, messages = _skipping(shapes, 7, (4, 4))
    assert (labels[:3, :3] == 7).all() and labels.sum() == 63
    assert "skipped 9 of 10 geometries" in messages[0] and "and 4 more" in messages[0]
    assert "polygons[5] is empty" in messages[0] and "polygons[6]" not in messages[0]


def test_a_bad_invalid_option_is_refused_by_name():
    with pytest.raises(ValueError, match=r'invalid must be "raise" or "skip", got \'ignore\''):
        polymask.rasterize([box(0, 0, 1, 1)], (2, 2), invalid="ignore")


def test_the_dask_rasterize_skips_alike():
    pytest.importorskip("dask")
    import polymask.dask

    shapes = np.array([box(0, 0, 9, 9), Polygon(), None, box(5, 5, 20, 14)], dtype=object)
    with pytest.warns(UserWarning, match=r"skipped 2 of 4 geometries"):
        lazy = polymask.dask.rasterize(shapes, (16, 24), [1, 2, 3, 4], chunks=7, invalid="skip", dtype=np.int32)
    eager, _ = _skipping(shapes, [1, 2, 3, 4], (16, 24))
    np.testing.assert_array_equal(lazy.compute(), eager)
