"""Synthetic COCO-style annotations: realistic instance polygons without a download.

COCO's instance polygons are traced outlines: 6 to ~100 vertices with two
decimals, object areas spread over four orders of magnitude, and about one
object in ten split into several parts (occlusion cuts it in pieces, which
may touch or overlap).  ``annotations`` draws such objects from a seed --
smooth random blobs, a few harmonics on a circle -- and returns a dict in
COCO's annotation-file layout, so the docs page (docs/guide/coco.md), its script
(scripts/coco_demo.py) and the benchmark (benchmarks/test_coco.py) share one
data set that anyone can regenerate.
"""
from typing import Any

import numpy as np

__all__ = ["annotations", "blob"]


def blob(rng: np.random.Generator, centre, radius: float, n_vertices: int) -> np.ndarray:
    """A smooth, star-shaped outline: (n_vertices, 2) points in angle order."""
    angles = np.sort(rng.uniform(0.0, 2 * np.pi, n_vertices))
    wobble = np.ones(n_vertices)
    for harmonic in (2, 3, 5):  # a few low harmonics: lumpy, not spiky
        wobble += rng.uniform(0.0, 0.25) * np.cos(harmonic * angles + rng.uniform(0.0, 2 * np.pi))
    radii = radius * np.clip(wobble, 0.25, None)
    return np.stack([centre[0] + radii * np.cos(angles), centre[1] + radii * np.sin(angles)], axis=1)


def annotations(n_images: int = 1, objects_per_image: int = 300, height: int = 480, width: int = 640,
                seed: int = 2014) -> dict:
    """A COCO annotation file (as a dict) of random blobs on n_images images.

    Each annotation has ``segmentation`` (a list of flat lists, two
    decimals, clipped to the image as COCO's are), ``area``, ``bbox``,
    ``iscrowd`` 0 and ``category_id`` 1; areas here are polygon areas
    (shoelace), as COCO's tools compute them, not pixel counts.
    """
    rng = np.random.default_rng(seed)
    images: list[dict[str, Any]] = []
    objects: list[dict[str, Any]] = []
    for image_id in range(1, n_images + 1):
        images.append({"id": image_id, "height": height, "width": width, "file_name": f"{image_id:06d}.jpg"})
        for _ in range(objects_per_image):
            # Log-uniform size: from a few pixels to a quarter of the image's side.
            radius = float(np.exp(rng.uniform(np.log(2.0), np.log(min(height, width) / 4))))
            centre = rng.uniform([0.0, 0.0], [width, height])
            n_parts = int(rng.choice([1, 2, 3], p=[0.88, 0.09, 0.03]))
            parts = []
            for part in range(n_parts):
                offset = rng.normal(0.0, radius, 2) if part else np.zeros(2)
                n_vertices = int(np.clip(rng.normal(8 + 2 * np.sqrt(radius) * 3, 6), 6, 120))
                outline = blob(rng, centre + offset, radius * (1.0 if part == 0 else rng.uniform(0.3, 0.8)),
                               n_vertices)
                # Annotation tools keep vertices inside the image.
                outline = np.clip(outline, [0.0, 0.0], [width, height])
                parts.append(np.round(outline, 2))
            segmentation = [part.reshape(-1).tolist() for part in parts]
            points = np.concatenate(parts)
            x0, y0 = points.min(axis=0)
            x1, y1 = points.max(axis=0)
            area = float(sum(_shoelace(part) for part in parts))
            objects.append({
                "id": len(objects) + 1, "image_id": image_id, "category_id": 1, "iscrowd": 0,
                "segmentation": segmentation, "area": round(area, 2),
                "bbox": [round(float(x0), 2), round(float(y0), 2), round(float(x1 - x0), 2), round(float(y1 - y0), 2)],
            })
    return {"images": images, "annotations": objects,
            "categories": [{"id": 1, "name": "blob", "supercategory": "shape"}]}


def _shoelace(points: np.ndarray) -> float:
    x, y = points[:, 0], points[:, 1]
    return abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))) / 2.0
