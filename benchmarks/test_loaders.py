"""COCO in a data loader: ``coco.decode`` and ``masks`` of multi-part objects against pycocotools.

    pytest benchmarks/test_loaders.py --benchmark-only --benchmark-columns=median,iqr,rounds \\
        --benchmark-group-by=group

Groups (compare within a group), 1,000 synthetic COCO objects
(polymask.course.coco_samples, seed 1; about a tenth of several parts) on a
640x480 image:

* ``decode-1000``: ``polymask.coco.decode`` against ``pycocotools.mask.decode``
  on the same RLEs, both returning (H, W, N) in Fortran order.  Target:
  polymask at most 1.0x.
* ``masks-1000-multipart``: ``polymask.masks(segmentations, transform=identity)``
  (one (N, H, W) stack, parts united) against pycocotools ``frPyObjects`` +
  ``merge`` per object, then one ``decode``.  Target: at most 0.5x.
  pycocotools rasterises by its own rule, a few boundary pixels off the
  exact one: extra_info records how many.
"""
import numpy as np
import pycocotools.mask as cocomask
import pytest

import polymask
import polymask.coco as coco
from benchmarks._support import record
from polymask._transform import IDENTITY
from polymask.course.coco_samples import annotations

HEIGHT, WIDTH, COUNT = 480, 640, 1000
SEGMENTATIONS = [a["segmentation"] for a in annotations(1, COUNT, HEIGHT, WIDTH)["annotations"]]

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")


@pytest.fixture(scope="module")
def rles():
    return coco.encode(SEGMENTATIONS, HEIGHT, WIDTH)


@pytest.fixture(scope="module")
def exact():
    return polymask.masks(SEGMENTATIONS, (HEIGHT, WIDTH), transform=IDENTITY)


@pytest.mark.parametrize("backend", ["polymask", "pycocotools"])
def test_decode(benchmark, backend, rles, exact):
    decode = coco.decode if backend == "polymask" else cocomask.decode
    benchmark.group = f"decode-{COUNT}"
    result = benchmark(decode, rles)
    record(benchmark, backend=backend, result=np.moveaxis(result, -1, 0).astype(bool), expected=exact,
           layout=str(result.strides))


def _pycocotools_masks(segmentations):
    return cocomask.decode([cocomask.merge(cocomask.frPyObjects(parts, HEIGHT, WIDTH)) for parts in segmentations])


@pytest.mark.parametrize("backend", ["polymask", "pycocotools"])
def test_masks_of_multipart_objects(benchmark, backend, exact):
    benchmark.group = f"masks-{COUNT}-multipart"
    if backend == "polymask":
        result = benchmark(polymask.masks, SEGMENTATIONS, (HEIGHT, WIDTH), transform=IDENTITY)
    else:
        result = np.moveaxis(benchmark(_pycocotools_masks, SEGMENTATIONS), -1, 0).astype(bool)
    record(benchmark, backend=backend, result=result, expected=exact,
           multipart=sum(len(parts) > 1 for parts in SEGMENTATIONS))
