"""Georeferenced masks: transform= with rasterio as the reference, and the pixel
conventions spelled out.

rasterio (GDAL) samples each cell at its centre, exactly the rule polymask
applies with ``transform=``; on valid random float geometries no pixel may
differ.  The GIS input forms are test_geo_inputs.py.
"""
from __future__ import annotations

# The geo extra (pulled in by the test extra) installs these: a missing one is an error, never a skip.
import geopandas
import numpy as np
import pytest
from affine import Affine
from rasterio import features
from shapely.geometry import Polygon, box

import polymask
import polymask.dask
from polymask._transform import IDENTITY, as_transform, to_sample_frame
from tests._geo_support import SHAPE, random_geometries, to_world

#: North-up (GDAL's usual: e < 0), south-up (e > 0), rotated and sheared grids.
TRANSFORMS = {
    "north-up": Affine(0.37, 0.0, 100.3, 0.0, -0.29, 50.7),
    "south-up": Affine(0.37, 0.0, 100.3, 0.0, 0.29, 40.1),
    "rotated": Affine.translation(100.3, 45.2) @ Affine.rotation(23.3) @ Affine.scale(0.37, -0.29),
    "sheared": Affine.translation(100.3, 45.2) @ Affine.shear(12, -7) @ Affine.scale(0.37, 0.29),
}


# ---- transform= against rasterio -------------------------------------------


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
@pytest.mark.parametrize("seed", range(4))
def test_mask_equals_rasterio_geometry_mask(name, seed):
    transform = TRANSFORMS[name]
    rng = np.random.default_rng(seed)
    for geometry in random_geometries(rng, transform):
        expected = features.geometry_mask([geometry], out_shape=SHAPE, transform=transform, invert=True)
        got = polymask.mask(geometry, SHAPE, transform=transform)
        assert np.array_equal(got, expected), f"{np.sum(got != expected)} pixels differ ({name})"
        # Six plain numbers are the same transform.
        assert np.array_equal(polymask.mask(geometry, SHAPE, transform=tuple(transform)[:6]), expected)


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
@pytest.mark.parametrize("seed", range(3))
def test_rasterize_equals_rasterio_rasterize(name, seed):
    transform = TRANSFORMS[name]
    rng = np.random.default_rng(100 + seed)
    geometries = random_geometries(rng, transform, count=9)  # overlapping: later over earlier
    values = rng.integers(1, 200, len(geometries))
    expected = features.rasterize(list(zip(geometries, values.tolist())), out_shape=SHAPE, transform=transform,
                                  dtype=np.int32)
    frame = geopandas.GeoDataFrame({"label": values}, geometry=geometries)
    got = polymask.rasterize(frame, SHAPE, values="label", transform=transform, dtype=np.int32)
    assert np.array_equal(got, expected), f"{np.sum(got != expected)} pixels differ ({name})"


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_shapes_of_a_label_raster_burn_back_to_it(name):
    """rasterio.features.shapes traces cells' edges; burning them back is the identity."""
    transform = TRANSFORMS[name]
    rng = np.random.default_rng(7)
    # Blocky random labels (so regions have holes and several parts), 0 included.
    coarse = rng.integers(0, 5, (12, 14)).astype(np.int32)
    labels = np.kron(coarse, np.ones((4, 4), dtype=np.int32))[:SHAPE[0], :SHAPE[1]]
    labels = np.pad(labels, ((0, SHAPE[0] - labels.shape[0]), (0, SHAPE[1] - labels.shape[1])), mode="edge")
    labels[rng.random(SHAPE) < 0.05] = 9  # isolated single cells too
    traced = list(features.shapes(labels, transform=transform))
    burned = polymask.rasterize([geometry for geometry, _ in traced], SHAPE, [value for _, value in traced],
                                transform=transform, dtype=np.int32)
    assert np.array_equal(burned, labels)


def test_dask_mask_and_rasterize_take_the_transform():
    transform = TRANSFORMS["rotated"]
    geometries = random_geometries(np.random.default_rng(3), transform)
    expected_mask = polymask.mask(geometries[1], SHAPE, transform=transform)
    assert np.array_equal(polymask.dask.mask(geometries[1], SHAPE, chunks=16, transform=transform).compute(),
                          expected_mask)
    series = geopandas.GeoSeries(geometries)
    expected = polymask.rasterize(series, SHAPE, transform=transform)
    assert np.array_equal(polymask.dask.rasterize(series, SHAPE, chunks=(10, 20), transform=transform).compute(),
                          expected)


def test_windows_of_a_transformed_mask_are_its_slices():
    transform = TRANSFORMS["sheared"]
    geometry = random_geometries(np.random.default_rng(9), transform)[5]
    full = polymask.mask(geometry, SHAPE, transform=transform)
    assert full.any()
    window = polymask.mask(geometry, SHAPE, transform=transform, window=(7, 11, 30, 25))
    assert np.array_equal(window, full[7:37, 11:36])
    labels = polymask.rasterize([geometry], SHAPE, transform=transform, window=(7, 11, 30, 25))
    assert np.array_equal(labels.astype(bool), full[7:37, 11:36])


# ---- the pixel conventions, spelled out -------------------------------------


def test_identity_transform_is_cocos_grid():
    """With cells, pixel (0, 0) spans [0, 1] x [0, 1]: a unit square covers exactly it."""
    square = [(0, 0), (1, 0), (1, 1), (0, 1)]
    cells = polymask.mask(square, (3, 3), transform=IDENTITY).astype(int)
    assert cells.tolist() == [[1, 0, 0], [0, 0, 0], [0, 0, 0]]
    # Without a transform the same square holds the sample point (0, 0) only too,
    # but a 2 x 2 square differs: sample points 0 and 1 vs cells 0 and 1.
    two = [(0, 0), (2, 0), (2, 2), (0, 2)]
    assert polymask.mask(two, (3, 3), transform=IDENTITY).astype(int).tolist() == [[1, 1, 0], [1, 1, 0], [0, 0, 0]]



def test_cell_centres_on_an_edge_follow_the_half_open_rule_and_gdal_differs_in_x():
    """The one documented difference from GDAL: a cell centre exactly on a non-horizontal edge.

    polymask's rule is half-open to the left and top (a centre on the left
    or top edge is in, on the right or bottom edge out).  GDAL's scanline
    keeps the top-in, bottom-out rule in y but takes the right edge in and
    the left edge out in x.  Random float data never meets the case; data
    whose edges run through cell centres (a grid shifted by half a cell) does.
    """
    through_centres = Polygon([(0.5, 0.5), (2.5, 0.5), (2.5, 2.5), (0.5, 2.5)])
    ours = polymask.mask(through_centres, (3, 3), transform=IDENTITY).astype(int)
    assert ours.tolist() == [[1, 1, 0], [1, 1, 0], [0, 0, 0]]
    gdal = features.geometry_mask([through_centres], out_shape=(3, 3), transform=Affine.identity(), invert=True)
    assert gdal.astype(int).tolist() == [[0, 1, 1], [0, 1, 1], [0, 0, 0]]


def test_a_geographic_grid_known_answer():
    """A 1-degree north-up grid from (10 E, 50 N): the box 11..13 E, 48..49 N is cells (1..2, 1..2)."""
    transform = Affine(1.0, 0.0, 10.0, 0.0, -1.0, 50.0)
    got = polymask.mask(box(11, 48, 13, 49), (4, 4), transform=transform).astype(int)
    assert got.tolist() == [[0, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0]]


def test_grid_aligned_vertices_map_exactly():
    transform = Affine(0.25, 0.0, -3.0, 0.0, -0.5, 7.0)
    world = to_world(transform, np.array([(0, 0), (3, 0), (3, 5), (1, 2)], dtype=float))
    assert to_sample_frame(world, as_transform(transform)).tolist() == [[-0.5, -0.5], [2.5, -0.5], [2.5, 4.5],
                                                                        [0.5, 1.5]]


@pytest.mark.parametrize("bad, error, message", [
    ("north", TypeError, "must be an affine.Affine or six numbers"),
    ((1, 0, 0, 0, 1), ValueError, "six coefficients"),
    ((1, 0, 0, 0, np.nan, 0), ValueError, "finite"),
    ((1, 2, 0, 2, 4, 0), ValueError, "not invertible"),
    (("a", 0, 0, 0, 1, 0), ValueError, "real numbers"),
    ((1, 0, 0, 0, 1, 0, 0.5, 0, 1), ValueError, "not affine"),
])
def test_bad_transforms_are_refused(bad, error, message):
    for call in (lambda: polymask.mask([(0, 0), (2, 0), (0, 2)], (3, 3), transform=bad),
                 lambda: polymask.rasterize([[(0, 0), (2, 0), (0, 2)]], (3, 3), transform=bad)):
        with pytest.raises(error, match=message):
            call()


def test_a_tiny_scale_whose_determinant_underflows_is_still_invertible():
    # a·e = 1.6e-491 underflows to 0, but x and y are mapped on their own
    # ((x - c) / a), so the transform is usable, not "not invertible".
    scale = 4e-246
    triangle = [(0, 0), (9 * scale, 0), (0, 9 * scale)]
    mapped = [(x / scale - 0.5, y / scale - 0.5) for x, y in triangle]
    expected = polymask.mask(mapped, (9, 11))
    np.testing.assert_array_equal(polymask.mask(triangle, (9, 11), transform=(scale, 0, 0, 0, scale, 0)), expected)
    assert expected.any()
