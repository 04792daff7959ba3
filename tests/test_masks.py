"""polymask.masks: N instance masks in one call, dense or cropped.

Every mask is compared for equality with an independent reference
(reference.double_rings_mask, the contract's float64 rule per pixel) and
with polymask.mask of the same polygon; crops must equal the same slice of
the full mask and be the smallest box holding its pixels.
"""
from __future__ import annotations

import numpy as np
import pytest

import polymask
from tests._support import double_rings_mask


def random_instances(rng, count, shape, max_rings=2):
    """Small polygons (some with holes) scattered over and past the image, plus degenerate ones."""
    polygons = []
    for k in range(count):
        centre = rng.uniform(-8, max(shape) + 8, size=2)
        rings = [centre + rng.uniform(-12, 12, size=(rng.integers(3, 10), 2))
                 for _ in range(rng.integers(1, max_rings + 1))]
        if k % 7 == 3:
            rings = [rings[0][:2]]  # two vertices: no area, an empty mask
        polygons.append(rings)
    return polygons


def references(polygons, shape, fill_rule="evenodd"):
    return np.stack([double_rings_mask(rings, shape, fill_rule) for rings in polygons])


@pytest.mark.parametrize("fill_rule", ["evenodd", "nonzero"])
@pytest.mark.parametrize("seed", range(3))
def test_masks_equal_the_reference_and_stacked_mask(seed, fill_rule):
    rng = np.random.default_rng(seed)
    shape = (37, 45)
    polygons = random_instances(rng, 40, shape)
    expected = references(polygons, shape, fill_rule)
    for threads in (1, 2, 3):
        stack = polymask.masks(polygons, shape, fill_rule=fill_rule, threads=threads)
        assert stack.dtype == bool and stack.shape == (len(polygons), *shape)
        assert np.array_equal(stack, expected), f"threads={threads}"
    singles = np.stack([polymask.mask(rings, shape, fill_rule=fill_rule) for rings in polygons])
    assert np.array_equal(singles, expected)


@pytest.mark.parametrize("seed", range(3))
def test_crops_are_the_tight_slices_of_the_full_masks(seed):
    rng = np.random.default_rng(10 + seed)
    shape = (41, 33)
    polygons = random_instances(rng, 50, shape)
    expected = references(polygons, shape)
    crops = polymask.masks(polygons, shape, crop=True, threads=2)
    assert len(crops) == len(polygons)
    for full, crop in zip(expected, crops):
        mask, row0, col0 = crop
        assert mask.dtype == bool
        rows, cols = np.nonzero(full)
        if len(rows) == 0:
            assert mask.shape == (0, 0) and (row0, col0) == (0, 0)
            continue
        assert (row0, col0) == (rows.min(), cols.min())
        assert mask.shape == (rows.max() + 1 - rows.min(), cols.max() + 1 - cols.min())
        assert np.array_equal(mask, full[crop.slices])


def test_literal_crops():
    square, triangle = [(1, 1), (3, 1), (3, 3), (1, 3)], [(0, 0), (2, 0), (0, 2)]
    (square_mask, r0, c0), (triangle_mask, r1, c1) = polymask.masks([square, triangle], (4, 4), crop=True)
    assert (r0, c0, square_mask.tolist()) == (1, 1, [[True, True], [True, True]])
    assert (r1, c1, triangle_mask.tolist()) == (0, 0, [[True, True], [True, False]])


def test_empty_and_outside_polygons():
    shape = (6, 7)
    polygons = [
        [(0, 0), (4, 0)],                                 # two vertices
        [(1, 1), (3, 3), (5, 5)],                         # zero area
        [(20, 20), (30, 20), (30, 30)],                   # right of and below the image
        [(-9, -9), (-2, -9), (-2, -2), (-9, -2)],         # above and left of it
        [(1, 1), (4, 1), (4, 4), (1, 4)],                 # one that is in, between them
    ]
    stack = polymask.masks(polygons, shape)
    assert not stack[:4].any()
    assert np.array_equal(stack[4], polymask.mask(polygons[4], shape))
    crops = polymask.masks(polygons, shape, crop=True)
    assert [c.mask.shape for c in crops[:4]] == [(0, 0)] * 4
    assert crops[4].mask.shape == (3, 3) and crops[4].mask.all() and (crops[4].row0, crops[4].col0) == (1, 1)


def test_no_polygons():
    assert polymask.masks([], (3, 4)).shape == (0, 3, 4)
    assert polymask.masks([], (3, 4), crop=True) == []
    assert polymask.masks(np.zeros((0, 5, 2)), (3, 4)).shape == (0, 3, 4)


def test_stacked_array_input_and_input_forms():
    rng = np.random.default_rng(5)
    stacked = rng.uniform(-3, 30, size=(25, 6, 2))
    shape = (28, 24)
    expected = references([[ring] for ring in stacked], shape)
    assert np.array_equal(polymask.masks(stacked, shape), expected)
    geojson = {"type": "Polygon", "coordinates": [stacked[0].tolist()]}
    assert np.array_equal(polymask.masks([geojson, stacked[1]], shape), expected[:2])


def test_out_is_filled_in_place_every_byte():
    rng = np.random.default_rng(7)
    shape = (30, 31)
    polygons = random_instances(rng, 12, shape)
    expected = references(polygons, shape)
    out = np.full((len(polygons), *shape), 0xAB, dtype=np.uint8)  # garbage: every byte must be rewritten
    result = polymask.masks(polygons, shape, out=out, threads=2)
    assert result is out
    assert np.array_equal(out, expected.astype(np.uint8))
    out_bool = np.ones((len(polygons), *shape), dtype=bool)
    assert np.array_equal(polymask.masks(polygons, shape, out=out_bool), expected)
    one = np.ones((1, *shape), dtype=bool)  # fewer instances than threads: threads within the instance
    assert np.array_equal(polymask.masks(polygons[:1], shape, out=one, threads=2), expected[:1])


def test_transform_maps_world_coordinates_to_cells():
    transform = (2.0, 0.0, 10.0, 0.0, -2.0, 100.0)  # 2-unit cells, north up
    world = [np.array([(12.5, 98.0), (30.0, 97.5), (25.0, 70.0)]),
             np.array([(10.0, 100.0), (20.0, 100.0), (20.0, 90.0)])]
    shape = (20, 15)
    # The same polygons mapped by hand: col = (x - 10) / 2 - 1/2, row = (y - 100) / -2 - 1/2.
    by_hand = [np.column_stack([(w[:, 0] - 10.0) / 2.0 - 0.5, (w[:, 1] - 100.0) / -2.0 - 0.5]) for w in world]
    expected = references([[ring] for ring in by_hand], shape)
    assert np.array_equal(polymask.masks(world, shape, transform=transform), expected)
    crops = polymask.masks(world, shape, transform=transform, crop=True)
    assert all(np.array_equal(c.mask, e[c.slices]) for c, e in zip(crops, expected))


@pytest.mark.parametrize("options, error, message", [
    ({"out": np.zeros((2, 4, 5), bool)}, ValueError, "shape (1, 4, 4)"),
    ({"out": np.zeros((1, 4, 4), np.int32)}, TypeError, "dtype bool or uint8"),
    ({"out": [[0]]}, TypeError, "NumPy array"),
    ({"out": np.zeros((1, 4, 8), bool)[:, :, ::2]}, ValueError, "C-contiguous"),
    ({"out": np.zeros((1, 4, 4), bool), "crop": True}, ValueError, "crop=True"),
    ({"crop": "yes"}, TypeError, "crop must be True or False"),
    ({"fill_rule": "winding"}, ValueError, "fill_rule"),
    ({"threads": -1}, ValueError, "threads"),
    ({"transform": (1, 0, 0, 0, 0, 0)}, ValueError, "not invertible"),
])
def test_bad_input_names_what_was_received(options, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        polymask.masks([[(0, 0), (3, 0), (0, 3)]], (4, 4), **options)


def test_read_only_out_and_bad_polygons_are_refused():
    out = np.zeros((1, 4, 4), bool)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        polymask.masks([[(0, 0), (3, 0), (0, 3)]], (4, 4), out=out)
    with pytest.raises(ValueError, match="finite"):
        polymask.masks([[(0, 0), (np.nan, 0), (0, 3)]], (4, 4))
    with pytest.raises(TypeError, match="sequence of polygons"):
        polymask.masks(42, (4, 4))
    with pytest.raises(ValueError, match="shape"):
        polymask.masks([[(0, 0), (3, 0), (0, 3)]], (0, 4))


# ---- crops too large to allocate fail before the sweep that finds their boxes ----------

def test_crops_that_cannot_be_allocated_fail_before_their_boxes_are_swept(monkeypatch):
    # A square over a (2^31 - 1)^2 image: its crop is the whole image.  The
    # exact boxes took minutes of sweeping before the MemoryError came.
    side = 2**31 - 1
    square = [(-1, -1), (side + 1, -1), (side + 1, side + 1), (-1, side + 1)]

    def sweep_boxes(*args, **kwargs):
        raise AssertionError("the boxes were swept before the size was checked")

    monkeypatch.setattr(polymask._masks._polygons, "mask_crops", sweep_boxes)
    with pytest.raises(MemoryError, match=r"cannot allocate a \d+ buffer for the crops of 2 masks in a "
                                          r"2147483647x2147483647 image \(at least\) \([0-9.]+ GB\); pass fewer"):
        polymask.masks([[(0, 0), (3, 0), (0, 3)], square], (side, side), crop=True)


def test_large_crops_that_fit_are_still_exact():
    # Boxes over 2^26 pixels are sampled first; the crops are what they were.
    side = 9000
    star = [(4500 + r * np.cos(a), 4500 + r * np.sin(a))
            for a, r in zip(np.linspace(0, 2 * np.pi, 40, endpoint=False), [4400, 1500] * 20)]
    sliver = [(0.0, 0.5), (side - 1.0, 0.75), (side - 1.0, side - 0.25)]  # a thin triangle across the image
    crops = polymask.masks([star, sliver], (side, side), crop=True)
    for polygon, crop in zip([star, sliver], crops):
        full = polymask.mask(polygon, (side, side))
        rows, cols = np.nonzero(full)
        assert (crop.row0, crop.col0, *crop.mask.shape) == (rows.min(), cols.min(), np.ptp(rows) + 1, np.ptp(cols) + 1)
        np.testing.assert_array_equal(crop.mask, full[crop.slices])


def test_crops_pickle_as_what_they_hold():
    import pickle

    for crop in polymask.masks([[(1, 1), (6, 1), (6, 5)]], (8, 8), crop=True) + polymask.coverages(
            [[(1, 1), (6, 1), (6, 5)]], (8, 8)):
        again = pickle.loads(pickle.dumps(crop))
        assert type(again) is polymask.Crop and (again.row0, again.col0) == (crop.row0, crop.col0)
        np.testing.assert_array_equal(again.mask, crop.mask)
