"""COCO polygons -> RLE -> IoU, with polymask and with pycocotools, timed side by side.

    .venv/bin/python scripts/coco_demo.py [--objects 300] [--out coco-annotations.json]

Writes a synthetic COCO annotation file (polymask.course.coco_samples: one 640x480
image, a few hundred objects), loads it with pycocotools' COCO class, turns
every annotation into an RLE both ways (polymask.coco.encode; pycocotools'
annToRLE), and prints, as Markdown for docs/guide/coco.md:

* how many pixels the two rasterisations differ by (polymask's rule is the
  contract at pixel centres; pycocotools draws outlines on a 5x grid);
* IoU between them per object (pycocotools.mask.iou), and an IoU matrix of
  jittered "detections" against the objects, computed by both libraries;
* medians of interleaved timings (wall clock and the calling thread's CPU
  time), as ratios, on these objects and on the benchmark's 1,200.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np
import pycocotools.mask as cocomask
from pycocotools.coco import COCO

import polymask
import polymask.coco as coco
from polymask._transform import IDENTITY, to_sample_frame
from polymask.course.coco_samples import annotations


def median_ms(functions: dict, rounds: int) -> dict:
    """Interleaved rounds, so machine load hits every contender alike.

    Returns name -> (wall ms, CPU ms of the calling thread).  On a loaded
    machine the wall clock of a call longer than a time slice mostly
    measures the other processes; the thread's CPU time does not, but it
    leaves out the work of other threads (so it is only shown for
    single-threaded calls).
    """
    times = {name: ([], []) for name in functions}
    for _ in range(rounds):
        for name, function in functions.items():
            start, start_cpu = time.perf_counter(), time.thread_time()
            function()
            times[name][1].append(time.thread_time() - start_cpu)
            times[name][0].append(time.perf_counter() - start)
    return {name: (1e3 * statistics.median(wall), 1e3 * statistics.median(cpu))
            for name, (wall, cpu) in times.items()}


def print_timings(timings: dict, reference: str, rounds: int) -> None:
    wall_ref, cpu_ref = timings[reference]
    print(f"Medians of {rounds} interleaved rounds; ratios to {reference}:\n")
    print("| step | wall ms | wall ratio | thread CPU ms | CPU ratio |\n|---|---|---|---|---|")
    for name, (wall, cpu) in timings.items():
        cpu_text = "n/a (threads)" if "all threads" in name else f"{cpu:.2f} | {cpu / cpu_ref:.2f}"
        if "all threads" in name:
            cpu_text += " | n/a"
        print(f"| {name} | {wall:.2f} | {wall / wall_ref:.2f} | {cpu_text} |")
    print()


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
    parser.add_argument("--bench-objects", type=int, default=1200)
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
    print_timings(timings, "pycocotools frPyObjects (all parts, one call)", args.rounds)

    # The benchmark's problem (benchmarks/test_coco.py): 1,200 objects.
    many = [a["segmentation"] for a in annotations(1, args.bench_objects, height, width)["annotations"]]
    many_parts = [p for s in many for p in s]
    dense_count = max(1, args.bench_objects // 12)
    print(f"## {args.bench_objects} objects on {width}x{height} (the benchmark's problem)\n")
    timings = median_ms({
        "polymask.coco.encode (all threads)": lambda: coco.encode(many, height, width),
        "polymask.coco.encode (1 thread)": lambda: coco.encode(many, height, width, threads=1),
        "pycocotools frPyObjects (all parts, one call)": lambda: cocomask.frPyObjects(many_parts, height, width),
        "pycocotools frPyObjects + merge per object (annToRLE)":
            lambda: [cocomask.merge(cocomask.frPyObjects(s, height, width)) for s in many],
    }, args.rounds)
    dense = median_ms({"dense": lambda: dense_then_encode(many[:dense_count], height, width)}, 3)["dense"]
    scale = args.bench_objects / dense_count
    timings[f"dense polymask.mask + pycocotools encode (1 thread, {dense_count} objects x {scale:g})"] = (
        dense[0] * scale, dense[1] * scale)
    print_timings(timings, "pycocotools frPyObjects (all parts, one call)", args.rounds)
    print(f"polymask {polymask.__version__}, threads available: {polymask.build_info()['threads']}, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


def dense_then_encode(segmentations, height, width):
    """The path without an RLE encoder: a dense mask per object, then pycocotools.mask.encode."""
    rles = []
    for segmentation in segmentations:
        dense = np.zeros((height, width), dtype=bool)
        for part in segmentation:
            ring = to_sample_frame(np.asarray(part, dtype=np.float64).reshape(-1, 2), IDENTITY)
            dense |= polymask.mask(ring, (height, width), threads=1)
        rles.append(cocomask.encode(np.asfortranarray(dense.view(np.uint8))))
    return rles


if __name__ == "__main__":
    main()
