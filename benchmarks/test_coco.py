"""COCO polygons to RLE: polymask.coco.encode against pycocotools and the dense path.

The problem: 1,200 synthetic COCO objects (polymask.course.coco_samples, seed 2014;
1-3 parts, 6-120 vertices, sizes from a few pixels to a quarter of the
image) on one 640x480 image.  Contenders, all from the same segmentations:

* ``polymask.coco.encode`` (all threads, and one thread);
* ``pycocotools.mask.frPyObjects`` on every part at once -- its fastest
  call, one RLE per *part* (objects of several parts still need a merge);
* frPyObjects + ``merge`` per object: what ``COCO.annToRLE`` does;
* dense: ``polymask.mask`` per object (cell convention) +
  ``pycocotools.mask.encode``, the path without an RLE encoder.

Compare medians as ratios, on an otherwise idle machine:

    pytest benchmarks/test_coco.py --benchmark-only --benchmark-columns=median,iqr,rounds

extra_info records (benchmarks._support.record) whether each result equals polymask's RLEs and, for
pycocotools' own rasterisation, how many pixels it differs by.  With
--benchmark-disable (CI) the dense path runs on the first 24 objects only.
"""
import numpy as np
import pycocotools.mask as cocomask
import pytest

import polymask
import polymask.coco as coco
from benchmarks._support import record
from polymask._transform import IDENTITY, to_sample_frame
from polymask.course.coco_samples import annotations

HEIGHT, WIDTH = 480, 640
COUNT = 1200
GROUP = f"coco-encode-{COUNT}-objects-{WIDTH}x{HEIGHT}"

SEGMENTATIONS = [a["segmentation"] for a in annotations(1, COUNT, HEIGHT, WIDTH)["annotations"]]
PARTS = [part for segmentation in SEGMENTATIONS for part in segmentation]

# pycocotools' decode trips NumPy 2's copy-keyword deprecation; not ours to fix.
pytestmark = [pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
              pytest.mark.benchmark(group=GROUP)]


@pytest.fixture(scope="module")
def expected():
    return coco.encode(SEGMENTATIONS, HEIGHT, WIDTH, threads=1)


def record_rles(benchmark, backend, rles, expected):
    """record() for a list of RLEs, compared with polymask's first len(rles) objects."""
    expected = expected[:len(rles)]
    differing = 0
    if rles != expected:
        # |A xor B| = |A| + |B| - 2 |A and B|, from the RLEs: no dense masks.
        for ours, theirs in zip(expected, rles):
            both = coco.area(coco.merge([ours, theirs], intersect=True))
            differing += coco.area(ours) + coco.area(theirs) - 2 * both
    record(benchmark, backend=backend, result=rles, expected=expected, differing=differing,
           n_objects=len(rles), shape=[HEIGHT, WIDTH])


@pytest.mark.parametrize("threads", [0, 1], ids=["default", "1-thread"])  # 0: the default call
def test_polymask_coco_encode(benchmark, expected, threads):
    rles = benchmark(coco.encode, SEGMENTATIONS, HEIGHT, WIDTH, threads=threads)
    record_rles(benchmark, f"polymask-threads-{threads or 'default'}", rles, expected)
    assert benchmark.extra_info["matches_contract"]


def test_pycocotools_frpyobjects(benchmark, expected):
    per_part = benchmark(cocomask.frPyObjects, PARTS, HEIGHT, WIDTH)
    # One RLE per part: merge each object's for the comparison (outside the timing).
    ends = np.cumsum([len(s) for s in SEGMENTATIONS])
    merged = [cocomask.merge(per_part[b:e]) if e - b > 1 else per_part[b]
              for b, e in zip(np.concatenate([[0], ends[:-1]]), ends)]
    record_rles(benchmark, "pycocotools-frPyObjects-parts", merged, expected)


def ann_to_rle(segmentations):
    """What pycocotools' COCO.annToRLE does for a polygon annotation."""
    return [cocomask.merge(cocomask.frPyObjects(segmentation, HEIGHT, WIDTH)) for segmentation in segmentations]


def test_pycocotools_ann_to_rle(benchmark, expected):
    rles = benchmark(ann_to_rle, SEGMENTATIONS)
    record_rles(benchmark, "pycocotools-annToRLE", rles, expected)


def dense_then_encode(segmentations):
    """polymask.mask per object (parts united, cell convention), then pycocotools.mask.encode."""
    rles = []
    for segmentation in segmentations:
        parts = [to_sample_frame(np.asarray(part, dtype=np.float64).reshape(-1, 2), IDENTITY)
                 for part in segmentation]
        dense = np.zeros((HEIGHT, WIDTH), dtype=bool)
        for part in parts:
            dense |= polymask.mask(part, (HEIGHT, WIDTH))
        rles.append(cocomask.encode(np.asfortranarray(dense.view(np.uint8))))
    return rles


def test_dense_mask_then_pycocotools_encode(benchmark, expected, request):
    count = 24 if request.config.polymask_fast_mode else COUNT
    rles = benchmark.pedantic(dense_then_encode, args=(SEGMENTATIONS[:count],), rounds=3, iterations=1)
    record_rles(benchmark, "dense-mask-then-encode", rles, expected)
    assert benchmark.extra_info["matches_contract"]
