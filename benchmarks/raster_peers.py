"""polymask against its peers on rasterio's ground: lines, points, mask_2d, COCO merge, alternated in one process.

Each case's contenders are timed in the interleaved rounds of ``polymask
bench`` (polymask.bench.timing: one sample each, the order reversed every
other round), so they see the same load, and the ratio is of the medians.
Each case first checks that the contenders agree.

    python -m benchmarks.raster_peers              # 11 samples a contender
    python -m benchmarks.raster_peers --samples 5

Cases:

* ``lines``: 2000 random polylines (2-5 vertices, steps of about 20 cells)
  on 1000x1000 cells, ``polymask.rasterize`` against
  ``rasterio.features.rasterize``, ``all_touched`` False and True;
* ``points``: 20,000 random points, likewise;
* ``lines among polygons``: the lines with every tenth one a random polygon
  (3-8 vertices, radius 5-25 cells), likewise;
* ``mask_2d``: 72 regions on a 0.25-degree global grid, ``polymask.xarray.mask_2d``
  against ``polymask.rasterize`` of the same regions on the same cells (uint8
  labels, and float64 labels, mask_2d's own output type), for regions whose
  boxes are apart and for regions sharing slanted sides (boxes that meet);
* ``merge``: ``polymask.coco.merge`` against ``pycocotools.mask.merge`` of 2, 3,
  10 and 300 RLEs (480x640 images, counts as str, as COCO's JSON holds them).
"""

from __future__ import annotations

import argparse
import os
from functools import partial

import numpy as np

from polymask.bench.timing import Contender, interleaved


def _ratio(name, ours, theirs, samples):
    contenders = [Contender("polymask", ours, samples), Contender("peer", theirs, samples)]
    interleaved(contenders)
    mine, peer = (float(np.median(c.wall)) for c in contenders)
    print(f"{name:60s} polymask {mine * 1e3:9.3f} ms  peer {peer * 1e3:9.3f} ms  ratio {mine / peer:5.2f}")


def lines_and_points(samples):
    import shapely
    from affine import Affine

    import polymask

    rng = np.random.default_rng(0)
    shape, transform = (1000, 1000), Affine(0.01, 0, 0, 0, -0.01, 10)
    polylines = []
    for start in rng.uniform(0, 1000, (2000, 2)):
        steps = rng.normal(0, 20, (int(rng.integers(1, 5)), 2))
        polylines.append(shapely.LineString([transform * tuple(p) for p in np.cumsum(np.vstack([start, steps]), 0)]))
    points = list(shapely.points([transform * tuple(p) for p in rng.uniform(0, 1000, (20000, 2))]))
    # Lines among polygons: every tenth geometry a random 3-8-gon of radius ~15 cells, in place of a line.
    mixed = list(polylines)
    for k in range(0, len(mixed), 10):
        centre, radius = rng.uniform(0, 1000, 2), rng.uniform(5, 25)
        angles = np.sort(rng.uniform(0, 2 * np.pi, int(rng.integers(3, 9))))
        ring = centre + radius * np.stack([np.cos(angles), np.sin(angles)], axis=1)
        mixed[k] = shapely.Polygon([transform * tuple(p) for p in ring])
    for kind, geometries in (("lines", polylines), ("points", points), ("lines among polygons", mixed)):
        bulk = np.array(geometries, dtype=object)
        values = np.arange(1, len(geometries) + 1, dtype=np.int32)
        for all_touched in (False, True):
            ours = partial(
                polymask.rasterize, bulk, shape, values, transform=transform, all_touched=all_touched, dtype=np.int32
            )
            theirs = partial(_rasterio_burn, geometries, values.tolist(), shape, transform, all_touched)
            assert np.array_equal(ours(), theirs())
            _ratio(f"{kind}, all_touched={all_touched} / rasterio", ours, theirs, samples)


def _rasterio_burn(geometries, values, shape, transform, all_touched):
    import rasterio.features

    return rasterio.features.rasterize(
        zip(geometries, values), out_shape=shape, transform=transform, all_touched=all_touched, dtype="int32"
    )


def mask_2d(samples):
    import shapely

    import polymask
    import polymask.xarray

    step = 0.25
    lon, lat = np.arange(-180 + step / 2, 180, step), np.arange(-90 + step / 2, 90, step)
    transform, shape = (step, 0, -180, 0, step, -90), (len(lat), len(lon))
    # Apart: each region's box holds grid points no other box holds (no overlap check burned).
    # Sharing slanted sides: the boxes meet, so mask_2d burns counts to rule out an overlap first.
    for kind, top_right in (("boxes apart", 30), ("sharing slanted sides", 33)):
        regions = np.array(
            [
                shapely.Polygon([(x, y), (x + 30, y), (min(x + top_right, 180), y + 30), (x + 3, y + 30)])
                for x in range(-180, 180, 30)
                for y in range(-90, 90, 30)
            ],
            dtype=object,
        )

        def ours(regions=regions):
            return polymask.xarray.mask_2d(regions, lon, lat)

        labels = polymask.rasterize(regions, shape, transform=transform)
        assert np.array_equal(np.nan_to_num(ours().values + 1), labels)
        for dtype in (np.uint8, np.float64):

            def theirs(dtype=dtype, regions=regions):
                return polymask.rasterize(regions, shape, transform=transform, dtype=dtype)

            _ratio(f"mask_2d / rasterize ({np.dtype(dtype).name}), {kind}", ours, theirs, samples)


def merge(samples):
    import pycocotools.mask as cocomask

    import polymask.coco

    rng = np.random.default_rng(0)
    for count in (2, 3, 10, 300):
        rles = []
        for _ in range(count):
            image = np.zeros((480, 640), dtype=np.uint8, order="F")
            y, x = rng.integers(0, 380), rng.integers(0, 540)
            image[y : y + int(rng.integers(20, 100)), x : x + int(rng.integers(20, 100))] = 1
            rle = cocomask.encode(image)
            rles.append({"size": rle["size"], "counts": rle["counts"].decode()})
        assert polymask.coco.merge(rles) == cocomask.merge(rles)
        _ratio(
            f"coco.merge of {count} RLEs / pycocotools",
            partial(polymask.coco.merge, rles),
            partial(cocomask.merge, rles),
            samples,
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=11, help="samples a contender (default 11)")
    samples = parser.parse_args().samples
    print(f"load before: {os.getloadavg()}")
    lines_and_points(samples)
    mask_2d(samples)
    merge(samples)
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
