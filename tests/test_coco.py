"""polymask.coco against pycocotools, and the COCO / OpenCV input layouts.

The reference for an object is the union of its parts' ``polymask.mask`` in
the cell convention (vertices shifted by -1/2, polymask/_transform.py); the
RLE must decode (by pycocotools) to exactly that, and must be byte for byte
what ``pycocotools.mask.encode`` writes for that mask.  Small literal masks
and exact rational references pin the convention itself.
"""
from __future__ import annotations

import json

import cv2
import numpy as np
import pycocotools.mask as cocomask
import pytest
import shapely.geometry

import polymask
import polymask.coco as coco
from polymask._transform import IDENTITY, to_sample_frame
from tests._support import double_rings_mask, exact_mask

# pycocotools' decode trips NumPy 2's copy-keyword deprecation; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")


# ---- references ----------------------------------------------------------------

def cell_ring(part) -> np.ndarray:
    """A COCO flat list as an (N, 2) ring in the contract's sample frame."""
    return to_sample_frame(np.asarray(part, dtype=np.float64).reshape(-1, 2), IDENTITY)


def union_mask(segmentation, height, width) -> np.ndarray:
    """The union of the parts' polymask.mask in the cell convention."""
    result = np.zeros((height, width), dtype=bool)
    for part in segmentation:
        result |= polymask.mask(cell_ring(part), (height, width))
    return result


def random_object(rng, height, width) -> list[list[float]]:
    """1-3 star-shaped parts: some tiny, some partly or wholly outside, some degenerate."""
    parts = []
    for _ in range(rng.integers(1, 4)):
        kind = rng.random()
        cx, cy = rng.uniform(-0.2 * width, 1.2 * width), rng.uniform(-0.2 * height, 1.2 * height)
        radius = rng.uniform(0.2, 1.5) if kind < 0.25 else rng.uniform(1.0, 0.6 * max(height, width))
        n = int(rng.integers(1, 3)) if kind > 0.95 else int(rng.integers(3, 14))  # 1-2 vertices: empty
        angles = np.sort(rng.uniform(0, 2 * np.pi, n))
        radii = radius * rng.uniform(0.3, 1.0, n)
        xy = np.stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)], axis=1)
        if rng.random() < 0.3:
            xy = np.round(xy)  # grid-aligned: pixel centres land on edges
        else:
            xy = np.round(xy, 2)  # COCO files keep two decimals
        parts.append(xy.reshape(-1).tolist())
    return parts


@pytest.fixture(scope="module")
def objects():
    """(segmentations, height, width) per image: random objects of 1-3 parts, plus edge cases."""
    rng = np.random.default_rng(2014)
    images = []
    for height, width in [(48, 64), (31, 17), (1, 9), (64, 1), (120, 90)]:
        segmentations = [random_object(rng, height, width) for _ in range(40)]
        segmentations += [
            [],                                                  # no parts at all
            [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],                   # zero area
            [[-50.0, -50.0, -40.0, -50.0, -45.0, -40.0]],       # wholly outside
            [[0.0, 0.0, width, 0.0, width, height, 0.0, height]],  # the whole image
            [[0.4, 0.4, 0.6, 0.4, 0.6, 0.6, 0.4, 0.6]],        # tiny, around a pixel centre: one pixel
            [[1.0, 1.0, 9.0, 1.0, 9.0, 9.0, 1.0, 9.0], [4.0, 4.0, 12.0, 4.0, 12.0, 12.0, 4.0, 12.0]],  # overlap
        ]
        images.append((segmentations, height, width))
    return images


# ---- encode against pycocotools --------------------------------------------------

def test_decode_by_pycocotools_equals_union_of_parts(objects):
    for segmentations, height, width in objects:
        rles = coco.encode(segmentations, height, width)
        assert len(rles) == len(segmentations)
        for k, (segmentation, rle) in enumerate(zip(segmentations, rles)):
            expected = union_mask(segmentation, height, width)
            decoded = cocomask.decode(rle).astype(bool)
            assert np.array_equal(decoded, expected), (height, width, k, segmentation)
            # Byte for byte the string pycocotools writes for the same mask.
            assert rle == cocomask.encode(np.asfortranarray(expected.astype(np.uint8))), (k, segmentation)


def test_overlapping_parts_are_united_not_xored():
    parts = [[1.0, 1.0, 9.0, 1.0, 9.0, 9.0, 1.0, 9.0], [4.0, 4.0, 12.0, 4.0, 12.0, 12.0, 4.0, 12.0]]
    (rle,) = coco.encode([parts], 16, 16)
    # 8x8 + 8x8 - 5x5 overlap: a union; rings under even-odd would drop the overlap.
    assert coco.area(rle) == 64 + 64 - 25
    rings = polymask.mask([cell_ring(p) for p in parts], (16, 16))
    assert rings.sum() == 64 + 64 - 2 * 25


def test_pixel_rule_on_a_literal_mask():
    # COCO cells: pixel (r, c) spans [c, c+1] x [r, r+1]; the square [1, 3] x [1, 3]
    # holds the cells whose centres (c + 1/2, r + 1/2) lie inside: rows and columns 1-2.
    (rle,) = coco.encode([[[1, 1, 3, 1, 3, 3, 1, 3]]], 4, 5)
    expected = np.array([[0, 0, 0, 0, 0],
                         [0, 1, 1, 0, 0],
                         [0, 1, 1, 0, 0],
                         [0, 0, 0, 0, 0]], dtype=bool)
    assert np.array_equal(coco.decode(rle), expected)
    # Column-major runs: 5 zeros (column 0 and row 0 of column 1), 2 ones, 2 zeros, 2 ones, 9 zeros.
    assert coco.encode([[[1, 1, 3, 1, 3, 3, 1, 3]]], 4, 5, compressed=False)[0]["counts"] == [5, 2, 2, 2, 9]


def test_half_integer_vertices_are_exact():
    # A centre on an edge follows the half-open rule; compare with rational arithmetic.
    rng = np.random.default_rng(7)
    for _ in range(20):
        xy = rng.integers(-2, 14, size=(rng.integers(3, 8), 2)) + rng.choice([0.0, 0.5], size=(1, 2))
        (rle,) = coco.encode([[xy.reshape(-1).tolist()]], 10, 12)
        assert np.array_equal(coco.decode(rle), exact_mask(xy - 0.5, (10, 12))), xy.tolist()


def test_independent_double_reference(objects):
    segmentations, height, width = objects[0]
    for segmentation, rle in zip(segmentations, coco.encode(segmentations, height, width)):
        expected = np.zeros((height, width), dtype=bool)
        for part in segmentation:
            expected |= double_rings_mask([cell_ring(part)], (height, width))
        assert np.array_equal(coco.decode(rle), expected)


def test_threads_do_not_change_the_result(objects):
    segmentations, height, width = objects[4]
    many = segmentations * 5
    assert coco.encode(many, height, width, threads=1) == coco.encode(many, height, width, threads=2)


def test_the_one_pass_path_equals_the_general_path(objects):
    # A list of plain segmentations is parsed and encoded in one pass in C
    # (_coco.encode_segmentations); a tuple of the same objects takes the
    # general path of polymask/coco.py.  Both must give the same dicts.
    from polymask import _coco
    for segmentations, height, width in objects:
        for compressed in (True, False):
            fast = _coco.encode_segmentations(segmentations, height, width, 0, 0, compressed)
            assert fast is not None
            assert fast == coco.encode(tuple(segmentations), height, width, compressed=compressed)
            assert fast == coco.encode(segmentations, height, width, compressed=compressed)
    rles = coco.encode([[[1, 1, 3, 1, 3, 3]], [[1, 1, 3, 1, 3, 3]]], 4, 5)
    assert rles[0]["size"] == [4, 5] and rles[0]["size"] is not rles[1]["size"]  # each its own list


@pytest.mark.parametrize("segmentation, one_pass", [
    ([[1, 1.0, 3, 1, 3.0, 3]], True),                                  # ints and floats
    ([[1.0, 1.0, 3.0, 1.0, 3.0, 3.0], []], True),                      # an empty later part
    ([[1.0, 1.0, 3.0, 1.0, 3.0, 3.0], [2.0, 2.0]], True),              # a later part of one vertex
    ([[1.0, 1.0], [3.0, 1.0, 3.0, 3.0, 1.0, 3.0]], True),              # a first part of one vertex
    ([[1.0, 1.0], [], [3.0, 1.0, 3.0, 3.0, 1.0, 3.0]], False),         # ... and an empty part
    ([[1.0, 1.0], [3.0, 1.0], [3.0, 3.0]], False),                     # (x, y) points
    ([[1.0, 1.0, 3.0, 1.0, 3.0, 3.0], (2.0, 2.0, 4.0, 2.0, 4.0, 4.0)], False),  # a tuple part
    ([[1.0, 1.0, np.float64(3.0), 1.0, 3.0, 3.0]], False),             # a NumPy scalar
    ([[1.0, 1.0, 3.0, 1.0, 3.0, 3.0, True, 2.0]], False),              # a bool
    ([np.array([1.0, 1.0, 3.0, 1.0, 3.0, 3.0])], False),               # a 1-D array part
])
def test_objects_outside_the_one_pass_form_take_the_general_path(segmentation, one_pass):
    from polymask import _coco
    taken = _coco.encode_segmentations([segmentation], 6, 7, 0, 0, True)
    assert (taken is not None) == one_pass

    def outcome(objects):
        try:
            return coco.encode(objects, 6, 7)
        except (TypeError, ValueError) as error:
            return type(error), str(error)

    assert outcome([segmentation]) == outcome((segmentation,))  # a list and a tuple: the same result or error


def test_the_one_pass_path_leaves_bad_numbers_to_the_general_path():
    from polymask import _coco
    for bad in (float("nan"), float("inf"), 10**400, "x", None):
        assert _coco.encode_segmentations([[[1.0, 1.0, 3.0, 1.0, bad, 3.0]]], 6, 7, 0, 0, True) is None
    with pytest.raises(ValueError, match=r"objects\[1\]\[0\] holds the non-finite vertex"):
        coco.encode([[[1.0, 1.0, 3.0, 1.0, 3.0, 3.0]], [[1.0, 1.0, 3.0, 1.0, float("inf"), 3.0]]], 6, 7)


# ---- area, iou, merge, decode agree with pycocotools ------------------------------

def test_area_of_many_rles_agrees_with_pycocotools_in_chunks():
    # pycocotools.mask.area overflows a uint8 count for 256 or more RLEs
    # under NumPy 2 (docs/guide/coco.md), so it is asked 100 at a time; ours takes
    # all 300 in one call.
    rng = np.random.default_rng(8)
    segmentations = [[list(rng.uniform(0, 50, (6, 2)).ravel())] for _ in range(300)]
    rles = coco.encode(segmentations, 64, 64)
    theirs = np.concatenate([cocomask.area(rles[k:k + 100]) for k in range(0, 300, 100)])
    assert np.array_equal(coco.area(rles), theirs)
    assert coco.area(rles).sum() > 0


def test_area_and_iou_agree_with_pycocotools(objects):
    rng = np.random.default_rng(3)
    for segmentations, height, width in objects:
        rles = coco.encode(segmentations, height, width)
        assert np.array_equal(coco.area(rles), cocomask.area(rles))
        assert coco.area(rles[0]) == int(cocomask.area(rles[0]))
        crowd = rng.random(len(rles)) < 0.2
        ours = coco.iou(rles[:20], rles, crowd)
        theirs = cocomask.iou(rles[:20], rles, crowd.astype(np.uint8).tolist())
        assert ours.shape == (20, len(rles))
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)


def test_merge_and_decode_round_trips(objects):
    segmentations, height, width = objects[0]
    rles = coco.encode(segmentations, height, width)
    masks = np.stack([union_mask(s, height, width) for s in segmentations], axis=-1)
    assert np.array_equal(coco.decode(rles), masks)
    assert np.array_equal(coco.decode(rles), cocomask.decode(rles).astype(bool))
    for group in (rles[:1], rles[:3], rles[5:12]):
        for intersect in (False, True):
            merged = coco.merge(group, intersect=intersect)
            assert merged == cocomask.merge(group, intersect=intersect)
    union = coco.merge(rles[:3])
    assert np.array_equal(coco.decode(union), masks[..., :3].any(axis=-1))


def test_uncompressed_rles_and_json_strings(objects):
    segmentations, height, width = objects[1]
    compressed = coco.encode(segmentations, height, width)
    uncompressed = coco.encode(segmentations, height, width, compressed=False)
    # pycocotools turns uncompressed RLE into the same compressed bytes.
    assert cocomask.frPyObjects(uncompressed, height, width) == compressed
    # Annotation files store counts as str; both forms decode alike and pass through encode.
    loaded = json.loads(json.dumps([{**r, "counts": r["counts"].decode()} for r in compressed]))
    assert np.array_equal(coco.decode(loaded), coco.decode(uncompressed))
    assert coco.encode(loaded, height, width) == compressed
    assert coco.encode(compressed, height, width, compressed=False) == uncompressed


def test_mixed_objects_keep_their_order(objects):
    segmentations, height, width = objects[0]
    expected = coco.encode(segmentations[:4], height, width)
    mixed = [expected[0], segmentations[1], coco.encode(segmentations[2:3], height, width, compressed=False)[0],
             segmentations[3]]
    assert coco.encode(mixed, height, width) == expected


# ---- other polygon forms into coco.encode ------------------------------------------

def test_encode_takes_any_polygon_as_one_part():
    square = np.array([[1.0, 1.0], [6.0, 1.0], [6.0, 6.0], [1.0, 6.0]])
    hole = np.array([[2.0, 2.0], [4.0, 2.0], [4.0, 4.0], [2.0, 4.0]])
    shape = (8, 9)
    expected = polymask.mask([cell_ring(square.ravel()), cell_ring(hole.ravel())], shape)
    rles = coco.encode([[square, hole], shapely.geometry.Polygon(square, [hole]),
                        [square.reshape(-1, 1, 2).astype(np.int32), hole.reshape(-1, 1, 2).astype(np.int32)]],
                       *shape)
    for rle in rles:
        assert np.array_equal(coco.decode(rle), expected)
    (flat,) = coco.encode([square.ravel().tolist()], *shape)  # one flat list: one part
    assert np.array_equal(coco.decode(flat), polymask.mask(cell_ring(square.ravel()), shape))
    # Parts as 1-D arrays, as code that builds segmentations with NumPy has them.
    assert coco.encode([[square.ravel(), hole.ravel()]], *shape) == coco.encode(
        [[square.ravel().tolist(), hole.ravel().tolist()]], *shape)


# ---- the layouts in mask and rasterize ---------------------------------------------

TRIANGLE = [1.0, 1.0, 8.0, 2.0, 3.0, 7.0]


def test_mask_takes_a_flat_list_as_one_ring():
    ring = np.reshape(TRIANGLE, (-1, 2))
    assert np.array_equal(polymask.mask(TRIANGLE, (9, 9)), polymask.mask(ring, (9, 9)))
    assert np.array_equal(polymask.mask(tuple(TRIANGLE), (9, 9)), polymask.mask(ring, (9, 9)))
    with pytest.raises(ValueError, match=r"COCO flat list.*reshape\(-1, 2\)"):
        polymask.mask(np.array(TRIANGLE), (9, 9))  # a NumPy array is always (N, 2)
    assert np.array_equal(polymask.mask([TRIANGLE], (9, 9)), polymask.mask(ring, (9, 9)))


def test_mask_unites_the_parts_of_a_segmentation():
    parts = [[1, 1, 9, 1, 9, 9, 1, 9], [4, 4, 12, 4, 12, 12, 4, 12]]
    expected = polymask.mask(np.reshape(parts[0], (-1, 2)), (14, 14)) | polymask.mask(
        np.reshape(parts[1], (-1, 2)), (14, 14))
    assert np.array_equal(polymask.mask(parts, (14, 14)), expected)
    out = np.zeros((14, 14), dtype=np.uint8)
    assert polymask.mask(parts, (14, 14), out=out) is out
    assert np.array_equal(out, expected)
    window = polymask.mask(parts, (14, 14), window=(2, 3, 6, 7))
    assert np.array_equal(window, expected[2:8, 3:10])


def test_opencv_contours():
    image = np.zeros((24, 24), np.uint8)
    image[2:20, 2:20] = 1
    image[6:16, 6:16] = 0   # a hole
    image[9:13, 9:13] = 1   # an island in the hole
    image[21:23, 3:8] = 1   # a second object
    contours, hierarchy = cv2.findContours(image, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    rings = [c.reshape(-1, 2).astype(np.float64) for c in contours]
    shape = image.shape
    # One contour is one ring; a list of contours is rings of one polygon.
    assert np.array_equal(polymask.mask(contours[0], shape), polymask.mask(rings[0], shape))
    assert np.array_equal(polymask.mask(list(contours), shape), polymask.mask(rings, shape))
    assert np.array_equal(polymask.mask((contours, hierarchy), shape), polymask.mask(rings, shape))
    # rasterize: a list of contours is one polygon per contour ...
    assert np.array_equal(polymask.rasterize(list(contours), shape), polymask.rasterize(rings, shape))
    # ... and the (contours, hierarchy) pair one polygon per outer contour, with its holes.
    labels = polymask.rasterize((contours, hierarchy), shape)
    parents = hierarchy[0][:, 3]
    outer = [k for k in range(len(contours)) if parents[k] < 0 or parents[parents[k]] >= 0]
    assert labels.max() == len(outer) == 3
    for label, k in enumerate(outer, start=1):
        holes = [rings[h] for h in range(len(contours)) if parents[h] == k]
        assert np.array_equal(labels == label, polymask.mask([rings[k], *holes], shape)), k
    empty = cv2.findContours(np.zeros((5, 5), np.uint8), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    assert not polymask.mask(empty, (5, 5)).any()
    assert not polymask.rasterize(empty, (5, 5)).any()


def test_rasterize_takes_flat_lists():
    parts = [TRIANGLE, [10, 1, 14, 1, 14, 5, 10, 5]]
    labels = polymask.rasterize(parts, (9, 16))
    expected = polymask.rasterize([np.reshape(p, (-1, 2)) for p in parts], (9, 16))
    assert np.array_equal(labels, expected) and labels.max() == 2


# ---- refused inputs ------------------------------------------------------------------

@pytest.mark.parametrize("call, error, words", [
    (lambda: polymask.mask([1.0, 2.0, 3.0, 4.0, 5.0], (5, 5)), ValueError, "odd count (5"),
    (lambda: polymask.mask([[1, 2, 3, 4, 5, 6], [1, 2, 3]], (5, 5)), ValueError, "vertices[1]"),
    (lambda: polymask.mask([[1, 2, 3, 4, 5, 6], "abc"], (5, 5)), ValueError, "COCO flat list"),
    (lambda: polymask.mask([1.0, "x", 3.0, 4.0], (5, 5)), TypeError, "flat list of numbers"),
    (lambda: polymask.mask(np.zeros((1, 5, 2)), (5, 5)), ValueError, "pass array[0]"),
    (lambda: polymask.mask(np.zeros((3, 5, 2)), (5, 5)), ValueError, "polygons stacked"),
    (lambda: polymask.mask(np.zeros((2, 5)), (5, 5)), ValueError, "pass array.T"),
    (lambda: polymask.mask(np.zeros((1, 6)), (5, 5)), ValueError, "reshape(-1, 2)"),
    (lambda: polymask.mask({"size": [5, 5], "counts": b"0"}, (5, 5)), ValueError, "polymask.coco.decode"),
    (lambda: polymask.mask([np.zeros((4, 1, 2)), np.zeros((4, 2, 2))], (5, 5)), ValueError, "OpenCV contour"),
    (lambda: polymask.mask((tuple([np.zeros((4, 1, 2), np.int32)]), np.zeros((1, 2, 4), np.int32)), (5, 5)),
     ValueError, "hierarchy of 2"),
    (lambda: polymask.rasterize([[[1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6]]], (5, 5)), ValueError,
     "COCO segmentation of 2 parts"),
    (lambda: polymask.rasterize(np.zeros((4, 1, 2)), (5, 5)), ValueError, "pass [contour]"),
    (lambda: coco.encode([1, 2, 3, 4, 5, 6], 5, 5), TypeError, "pass [[flat_list]]"),
    (lambda: coco.encode({"size": [5, 5], "counts": b"0"}, 5, 5), TypeError, "sequence of objects"),
    (lambda: coco.encode([[[1, 2, 3, 4, 5]]], 5, 5), ValueError, "odd count"),
    (lambda: coco.encode([[[1, 2, 3, 4, 5, 6], [[1, 2], [3, 4]]]], 5, 5), TypeError, "objects[0][1]"),
    (lambda: coco.encode([[[1, 2, 3, "x", 5, 6]]], 5, 5), TypeError, "'x'"),
    (lambda: coco.encode([[[1, 2, 3, float("nan"), 5, 6]]], 5, 5), ValueError, "finite"),
    (lambda: coco.encode(["abc"], 5, 5), (TypeError, ValueError), "objects[0]"),
    (lambda: coco.encode([[]], 0, 5), ValueError, "at least 1"),
    (lambda: coco.encode([[]], 2**16, 2**16), ValueError, "2^32"),
    (lambda: coco.encode([[]], 5.5, 5), TypeError, "height"),
    (lambda: coco.encode([{"size": [4, 5], "counts": b"T0"}], 5, 5), ValueError, "size [4, 5]"),
    (lambda: coco.decode({"size": [5, 5], "counts": b"0\x7f"}), ValueError, "outside '0'..'o'"),
    (lambda: coco.decode({"size": [5, 5], "counts": b"h"}), ValueError, "ends inside a number"),
    (lambda: coco.decode({"size": [5, 5], "counts": [3, 4]}), ValueError, "cover 7 pixels"),
    (lambda: coco.decode({"size": [5, 5], "counts": [30, -5]}), ValueError, "[0, 2^32)"),
    (lambda: coco.decode({"size": [5, 5], "counts": [1.5, 23.5]}), TypeError, "list of run lengths"),
    (lambda: coco.decode({"size": [5], "counts": [25]}), ValueError, "[height, width]"),
    (lambda: coco.decode({"counts": [25]}), TypeError, "COCO RLE dict"),
    (lambda: coco.decode("0d0"), TypeError, "COCO RLE dict"),
    (lambda: coco.decode([]), ValueError, "empty"),
    (lambda: coco.merge([{"size": [5, 5], "counts": [25]}, {"size": [5, 4], "counts": [20]}]), ValueError,
     "expected [5, 5]"),
    (lambda: coco.merge([]), ValueError, "empty"),
    (lambda: coco.iou([{"size": [5, 5], "counts": [25]}], [{"size": [5, 5], "counts": [25]}], [0, 1]),
     ValueError, "one flag per ground truth"),
])
def test_refused_inputs_name_the_layout(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


@pytest.mark.parametrize("counts", ["\u00e9a1", "0\u00ff", "12\u20ac"])
def test_counts_strings_with_non_ascii_characters_are_corrupt(counts):
    # Read with '?' in their place, "éa1" once gave a 49-pixel mask.
    rle = {"size": [7, 7], "counts": counts}
    for call in (coco.decode, coco.area):
        with pytest.raises(ValueError, match=r"\['counts'\] is not a COCO counts string: character \d+ is"):
            call(rle)


def test_a_bytearray_or_memoryview_of_counts_is_read_as_the_bytes_it_holds():
    rle = coco.encode([[[0, 0, 2, 0, 2, 2, 0, 2]]], 3, 3)[0]
    expected = coco.decode(rle)
    for wrapped in (bytearray(rle["counts"]), memoryview(rle["counts"])):
        same = {"size": rle["size"], "counts": wrapped}
        assert np.array_equal(coco.decode(same), expected)
        assert coco.area(same) == coco.area(rle)
