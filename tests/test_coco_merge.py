"""``polymask.coco.merge`` of many RLEs: pycocotools' bytes, on dense and sparse images.

The core merges up to 16 RLEs in pairs, then pairs of those; more in one
pass: a depth count per pixel when the image has few pixels per run
(COCO's images with many objects), the pairwise chain otherwise.  Both must give pycocotools' ``merge`` byte for
byte, and the union (intersection) of the decoded masks; RLEs given in
other forms (uncompressed, str counts) or refused take the reading one by one.
"""

from __future__ import annotations

import json

import numpy as np
import pycocotools.mask as cocomask
import pytest

import polymask.coco as coco
from tests.test_coco_loaders import random_segmentations

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")


@pytest.mark.parametrize(
    ("count", "height", "width"),
    [
        (300, 48, 40),  # dense: far fewer pixels than 8 per run
        (40, 120, 90),  # dense
        (3, 900, 700),  # sparse: the pairwise chain
        (1, 30, 20),
    ],
)
@pytest.mark.parametrize("intersect", [False, True])
def test_merge_is_pycocotools_merge_and_the_decoded_union(count, height, width, intersect):
    rles = coco.encode(random_segmentations(count, count, height, width), height, width)
    merged = coco.merge(rles, intersect=intersect)
    assert merged == cocomask.merge(rles, intersect=intersect)
    masks = coco.decode(rles).astype(bool)
    expected = masks.all(axis=-1) if intersect else masks.any(axis=-1)
    np.testing.assert_array_equal(coco.decode(merged).astype(bool), expected)


def test_merge_of_str_and_uncompressed_counts_and_empty_images():
    rles = coco.encode(random_segmentations(5, 30, 40, 50), 40, 50)
    loaded = json.loads(json.dumps([{**r, "counts": r["counts"].decode()} for r in rles]))
    assert coco.merge(loaded) == coco.merge(rles) == cocomask.merge(rles)
    uncompressed = coco.encode(random_segmentations(5, 30, 40, 50), 40, 50, compressed=False)
    mixed = uncompressed[:10] + rles[10:]
    assert coco.merge(mixed) == cocomask.merge(rles)
    assert coco.merge([{"size": [0, 5], "counts": b""}] * 3) == {"size": [0, 5], "counts": b"0"}


def test_a_refused_rle_among_many_is_named():
    rles = coco.encode(random_segmentations(6, 50, 20, 20), 20, 20)
    with pytest.raises(ValueError, match=r"rles\[7\]\['counts'\] is not a COCO counts string"):
        coco.merge(rles[:7] + [{"size": [20, 20], "counts": b"\x01"}] + rles[8:])
    with pytest.raises(ValueError, match=r"rles\[9\]'s runs cover 20 pixels, but its size \[20, 20\] has 400"):
        coco.merge(rles[:9] + [{"size": [20, 20], "counts": [5, 15]}])
    with pytest.raises(ValueError, match=r"rles\[3\] has size \[20, 21\], expected \[20, 20\]"):
        coco.merge(rles[:3] + [{"size": [20, 21], "counts": rles[3]["counts"]}])


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("intersect", [False, True])
def test_a_few_rles_in_any_form_merge_to_pycocotools_bytes(count, intersect):
    rles = coco.encode(random_segmentations(count, count + 10, 60, 80), 60, 80)
    expected = cocomask.merge(rles, intersect=intersect)
    as_text = [{"size": r["size"], "counts": r["counts"].decode()} for r in rles]
    as_tuples = [{"size": tuple(r["size"]), "counts": r["counts"]} for r in rles]
    numpy_sizes = [{"size": [np.int64(60), np.int64(80)], "counts": r["counts"]} for r in rles]
    for form in (rles, as_text, as_tuples, numpy_sizes, tuple(rles)):
        assert coco.merge(form, intersect=intersect) == expected
    uncompressed = coco.merge(rles, intersect=intersect, compressed=False)
    assert coco.merge([{"size": [60, 80], "counts": uncompressed["counts"]}]) == cocomask.merge(
        [expected], intersect=intersect
    )


def test_a_few_refused_rles_are_named_as_among_many():
    rles = coco.encode(random_segmentations(2, 3, 20, 20), 20, 20)
    with pytest.raises(ValueError, match=r"rles\[1\]\['counts'\] is not a COCO counts string: character 0"):
        coco.merge([rles[0], {"size": [20, 20], "counts": "\u00e9"}])
    with pytest.raises(ValueError, match=r"rles\[1\] has size \[20, 21\], expected \[20, 20\]"):
        coco.merge([rles[0], {"size": [20, 21], "counts": rles[1]["counts"]}])
    with pytest.raises(TypeError, match=r"rles\[0\] must be a COCO RLE dict"):
        coco.merge([[1, 2], rles[1]])
    with pytest.raises(ValueError, match="rles is empty"):
        coco.merge([])


def test_a_lone_surrogate_in_counts_is_named_not_raised_from_inside():
    rles = coco.encode(random_segmentations(2, 3, 20, 20), 20, 20)
    with pytest.raises(ValueError, match=r"rles\[1\]\['counts'\] is not a COCO counts string"):
        coco.merge([rles[0], {"size": [20, 20], "counts": "\ud800"}])


@pytest.mark.parametrize("count", [2, 10, 300])
@pytest.mark.parametrize("intersect", [False, True])
def test_many_boxes_on_a_photo_merge_to_pycocotools_bytes(count, intersect):
    """COCO's case: boxes on a 480 x 640 image, counts as str; 300 of them take the depth count."""
    rng = np.random.default_rng(count)
    rles = []
    for _ in range(count):
        image = np.zeros((480, 640), dtype=np.uint8, order="F")
        y, x = rng.integers(0, 380), rng.integers(0, 540)
        image[y : y + int(rng.integers(20, 100)), x : x + int(rng.integers(20, 100))] = 1
        rle = cocomask.encode(image)
        rles.append({"size": rle["size"], "counts": rle["counts"].decode()})
    merged = coco.merge(rles, intersect=intersect)
    assert merged == cocomask.merge(rles, intersect=intersect)
    masks = coco.decode(rles).astype(bool)
    expected = masks.all(axis=-1) if intersect else masks.any(axis=-1)
    np.testing.assert_array_equal(coco.decode(merged).astype(bool), expected)


@pytest.mark.parametrize("count", range(1, 18))
@pytest.mark.parametrize("intersect", [False, True])
def test_up_to_16_rles_merged_in_pairs_are_pycocotools_bytes(count, intersect):
    """Up to 16 RLEs merge in pairs, then pairs of those: every count, odd ones out included, and 17 past it."""
    rng = np.random.default_rng(count)
    rles = []
    for _ in range(count):  # overlapping boxes, so that intersections are seldom empty
        image = np.zeros((40, 50), dtype=np.uint8, order="F")
        y, x = rng.integers(0, 15), rng.integers(0, 20)
        image[y : y + int(rng.integers(10, 25)), x : x + int(rng.integers(15, 30))] = 1
        rles.append(cocomask.encode(image))
    merged = coco.merge(rles, intersect=intersect)
    assert merged == cocomask.merge(rles, intersect=intersect)
    masks = coco.decode(rles).astype(bool)
    expected = masks.all(axis=-1) if intersect else masks.any(axis=-1)
    np.testing.assert_array_equal(coco.decode(merged).astype(bool), expected)
    if count == 1:  # one RLE is returned as it is, as pycocotools does
        return
    # Runs of length 0 inside the counts (valid, if not pycocotools' own) give the same result.
    padded = []
    for rle in rles:
        counts = coco.merge([rle], compressed=False)["counts"]
        at = int(rng.integers(1, len(counts)))
        padded.append({"size": [40, 50], "counts": counts[:at] + [0, 0] + counts[at:]})
    assert coco.merge(padded, intersect=intersect) == merged
