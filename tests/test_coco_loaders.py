"""COCO in a data loader: ``masks`` takes multi-part segmentations, ``decode`` gives pycocotools' layout.

The references are the union of the parts' ``polymask.mask`` (pycocotools'
own rasterizer differs from the exact rule by a few boundary pixels, see
docs/guide/coco.md) and the RLEs of ``polymask.coco.encode``, which unites
the parts in its own code; pycocotools is the reference for decode's layout.
"""
from __future__ import annotations

import numpy as np
import pycocotools.mask as cocomask
import pytest

import polymask
import polymask.coco as coco
from polymask._transform import IDENTITY

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")


def random_segmentations(seed: int, count: int, height: int, width: int) -> list:
    """Objects of 1-4 parts, two decimals as COCO files keep them, some overlapping, some outside."""
    rng = np.random.default_rng(seed)
    objects = []
    for _ in range(count):
        parts = []
        for _ in range(int(rng.integers(1, 5))):
            cx, cy = rng.uniform(-0.2 * width, 1.2 * width), rng.uniform(-0.2 * height, 1.2 * height)
            n = int(rng.integers(3, 12))
            angles = np.sort(rng.uniform(0, 2 * np.pi, n))
            radii = rng.uniform(1.0, 0.4 * max(height, width), n)
            xy = np.round(np.stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)], axis=1), 2)
            parts.append(xy.reshape(-1).tolist())
        objects.append(parts)
    return objects


def union_of_parts(objects, shape, transform=None) -> np.ndarray:
    """(P, H, W): each object the union of its parts' polymask.mask."""
    return np.stack([np.logical_or.reduce([polymask.mask(np.reshape(part, (-1, 2)), shape, transform=transform)
                                           for part in parts]) for parts in objects])


def test_the_issue_example_is_the_union_of_its_parts():
    got = polymask.masks([[[0, 0, 4, 0, 4, 4, 0, 4], [6, 6, 9, 6, 9, 9]]], (10, 10))
    expected = polymask.mask([0, 0, 4, 0, 4, 4, 0, 4], (10, 10)) | polymask.mask([6, 6, 9, 6, 9, 9], (10, 10))
    assert got.shape == (1, 10, 10) and np.array_equal(got[0], expected)


@pytest.mark.parametrize("height, width", [(48, 64), (31, 17), (120, 90)])
def test_masks_of_multipart_segmentations_are_the_union_of_their_parts(height, width):
    objects = random_segmentations(height * width, 60, height, width)
    got = polymask.masks(objects, (height, width), transform=IDENTITY)
    assert np.array_equal(got, union_of_parts(objects, (height, width), IDENTITY))
    from_rles = coco.decode(coco.encode(objects, height, width))
    assert np.array_equal(got, np.moveaxis(from_rles, -1, 0))
    assert np.array_equal(polymask.masks(objects, (height, width)), union_of_parts(objects, (height, width)))


def test_mixed_members_keep_their_order_and_meaning():
    square = np.array([(1, 1), (5, 1), (5, 5), (1, 5)], dtype=float)
    two_parts = [[0, 0, 3, 0, 3, 3, 0, 3], [2, 2, 6, 2, 6, 6, 2, 6]]  # overlapping: united, not XORed
    members = [square, two_parts, [[7, 7, 9, 7, 9, 9]], two_parts[::-1]]
    got = polymask.masks(members, (10, 10))
    assert np.array_equal(got, union_of_parts([[square.ravel()], two_parts, [[7, 7, 9, 7, 9, 9]], two_parts[::-1]],
                                              (10, 10)))
    out = np.ones((4, 10, 10), dtype=bool)  # every byte written, parts added over the first
    assert polymask.masks(members, (10, 10), out=out) is out and np.array_equal(out, got)
    crops = polymask.masks(members, (10, 10), crop=True)
    for layer, crop in zip(got, crops):
        rebuilt = np.zeros((10, 10), dtype=bool)
        rebuilt[crop.slices] = crop.mask
        assert np.array_equal(rebuilt, layer)
        rows, cols = np.nonzero(layer)
        assert (crop.row0, crop.col0) == (rows.min(), cols.min())
        assert crop.mask.shape == (rows.max() - rows.min() + 1, cols.max() - cols.min() + 1)


def test_multipart_crops_equal_the_full_masks():
    objects = random_segmentations(7, 40, 50, 70)
    full = polymask.masks(objects, (50, 70))
    for layer, crop in zip(full, polymask.masks(objects, (50, 70), crop=True)):
        rebuilt = np.zeros_like(layer)
        rebuilt[crop.slices] = crop.mask
        assert np.array_equal(rebuilt, layer)
        assert crop.mask.size == 0 or (crop.mask.any(axis=0)[[0, -1]].all() and crop.mask.any(axis=1)[[0, -1]].all())


def test_decode_has_pycocotools_layout():
    objects = random_segmentations(3, 12, 10, 12)
    rles = coco.encode(objects, 10, 12)
    got, expected = coco.decode(rles), cocomask.decode(rles)
    assert got.shape == expected.shape == (10, 12, 12) and got.dtype == expected.dtype == np.uint8
    assert np.array_equal(got, expected)
    assert np.array_equal(got * 255, expected * 255)  # uint8 arithmetic as with pycocotools' masks
    assert got.strides == expected.strides == (1, 10, 120)
    assert got.flags.f_contiguous and all(got[:, :, k].flags.f_contiguous for k in range(12))
    single, theirs = coco.decode(rles[3]), cocomask.decode(rles[3])
    assert single.flags.f_contiguous and single.dtype == theirs.dtype and np.array_equal(single, theirs)
    assert single.strides == theirs.strides


def test_decode_of_runs_that_end_in_ones_and_empty_images():
    assert np.array_equal(coco.decode({"size": [2, 3], "counts": [0, 6]}), np.ones((2, 3), dtype=bool))
    # Column-major runs: 2 zeros (column 0), a one (row 0, col 1), a zero, two ones (column 2).
    got = coco.decode({"size": [2, 3], "counts": [2, 1, 1, 2]})
    assert np.array_equal(got, np.array([[0, 1, 1], [0, 0, 1]], dtype=bool))
    assert coco.decode([{"size": [0, 4], "counts": []}]).shape == (0, 4, 1)
