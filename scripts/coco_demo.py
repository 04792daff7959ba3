"""COCO polygons -> RLE -> IoU, with polymask and with pycocotools, timed side by side.

    .venv/bin/python scripts/coco_demo.py [--objects 300] [--out coco-annotations.json]

Writes a synthetic COCO annotation file (polymask.coco_samples: one 640x480
image, a few hundred objects), loads it with pycocotools' COCO class, turns
every annotation into an RLE both ways (polymask.coco.encode; pycocotools'
annToRLE), and prints, as Markdown for docs/coco.md:

* how many pixels the two rasterisations differ by (polymask's rule is the
  contract at pixel centres; pycocotools draws outlines on a 5x grid);
* IoU between them per object (pycocotools.mask.iou), and an IoU matrix of
  jittered "detections" against the objects, computed by both libraries;
* medians of interleaved timings (wall clock), as ratios.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np
import pycocotools.mask as cocomask
from pycocotools.coco import COCO

import polymask
import polymask.coco as coco
from polymask.coco_samples import annotations


def median_ms(functions: dict, rounds: int) -> dict:
    """Interleaved rounds, so machine load hits every contender alike."""
    times = {name: [] for name in functions}
    for _ in range(rounds):
        for name, function in functions.items():
            start = time.perf_counter()
            function()
            times[name].append(time.perf_counter() - start)
    return {name: 1e3 * statistics.median(values) for name, values in times.items()}


def jittered(segmentations, rng):
    """Fake detections: each object shifted and scaled a little."""
    result = []
    for segmentation in segmentations:
        parts = []
        for part in segmentation:
            xy = np.asarray(part).reshape(-1, 2)
            centre = xy.mean(axis=0)
            xy = centre + (xy - centre) * rng.uniform(0.85, 1.15) + rng.normal(0.0, 2.0, 2)
            parts.append(np.round(xy, 2).reshape(-1).tolist())
        result.append(parts)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=300)
    parser.add_argument("--out", type=Path, default=Path("coco-annotations.json"))
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()

    dataset = annotations(n_images=1, objects_per_image=args.objects)
    args.out.write_text(json.dumps(dataset))
    ground_truth = COCO(str(args.out))  # proves the file is COCO's format
    image = ground_truth.imgs[1]
    height, width = image["height"], image["width"]
    anns = ground_truth.loadAnns(ground_truth.getAnnIds(imgIds=[1]))
    segmentations = [ann["segmentation"] for ann in anns]
    n_parts = sum(len(s) for s in segmentations)
    n_vertices = sum(len(p) // 2 for s in segmentations for p in s)

    ours = coco.encode(segmentations, height, width)
    theirs = [ground_truth.annToRLE(ann) for ann in anns]

    our_masks = coco.decode(ours)
    their_masks = cocomask.decode(theirs).astype(bool)
    differing = np.count_nonzero(our_masks != their_masks, axis=(0, 1))
    areas = coco.area(ours).astype(np.int64)
    same_iou = np.diag(cocomask.iou(ours, theirs, [0] * len(ours)))

    rng = np.random.default_rng(7)
    detections = jittered(segmentations, rng)
    our_dt = coco.encode(detections, height, width)
    their_dt = [cocomask.merge(cocomask.frPyObjects(s, height, width)) for s in detections]
    iou_ours = coco.iou(our_dt, ours)
    iou_pycocotools_on_ours = cocomask.iou(our_dt, ours, [0] * len(ours))
    iou_theirs = cocomask.iou(their_dt, theirs, [0] * len(theirs))
    best_ours = iou_ours.max(axis=1)
    best_theirs = iou_theirs.max(axis=1)

    print(f"## {len(anns)} objects ({n_parts} parts, {n_vertices} vertices) on one {width}x{height} image\n")
    print("| measure | value |\n|---|---|")
    print(f"| objects whose masks are identical | {int(np.sum(differing == 0))} of {len(anns)} |")
    print(f"| pixels differing, all objects | {int(differing.sum())} of {int(areas.sum())} object pixels "
          f"({100 * differing.sum() / max(areas.sum(), 1):.2f} %) |")
    print(f"| pixels differing per object: median / max | {int(np.median(differing))} / {int(differing.max())} |")
    print(f"| IoU(polymask, pycocotools) per object: median / min | {np.median(same_iou):.4f} / {same_iou.min():.4f} |")
    print(f"| polymask.coco.iou == pycocotools.mask.iou on polymask's RLEs | "
          f"{bool(np.array_equal(iou_ours, iou_pycocotools_on_ours))} |")
    print(f"| best IoU per detection, polymask RLEs vs pycocotools RLEs: mean abs. difference | "
          f"{np.mean(np.abs(best_ours - best_theirs)):.5f} |")
    print()

    flat_parts = [p for s in segmentations for p in s]
    timings = median_ms({
        "polymask.coco.encode (all threads)": lambda: coco.encode(segmentations, height, width),
        "polymask.coco.encode (1 thread)": lambda: coco.encode(segmentations, height, width, threads=1),
        "pycocotools frPyObjects (all parts, one call)": lambda: cocomask.frPyObjects(flat_parts, height, width),
        "pycocotools annToRLE (per object)": lambda: [ground_truth.annToRLE(ann) for ann in anns],
        "polymask.coco.iou (detections x objects)": lambda: coco.iou(our_dt, ours),
        "pycocotools.mask.iou (detections x objects)": lambda: cocomask.iou(our_dt, ours, [0] * len(ours)),
    }, args.rounds)
    reference = timings["pycocotools frPyObjects (all parts, one call)"]
    print(f"Median of {args.rounds} interleaved rounds (wall clock), ratio to frPyObjects:\n")
    print("| step | ms | ratio |\n|---|---|---|")
    for name, ms in timings.items():
        print(f"| {name} | {ms:.2f} | {ms / reference:.2f} |")
    print(f"\npolymask {polymask.__version__}, threads available: {polymask.build_info()['threads']}")


if __name__ == "__main__":
    main()
