"""Geospatial jobs: polymask against rasterio and regionmask, as a pipeline would call them.

Four groups; compare medians within a group as ratios, from one run:

    pytest benchmarks/test_geo.py --benchmark-only --benchmark-columns=median,iqr,rounds

* geo-label-image: 10,000 small shapely polygons in a GeoDataFrame, burned
  with a column's labels into a 4096x4096 north-up raster by
  ``polymask.rasterize(frame, ..., values="label", transform=T)`` and by
  ``rasterio.features.rasterize`` (both take the frame as it is: the
  ingestion is timed too), each also with ``all_touched=True``;
* geo-ingestion: ``polymask.rasterize`` (1 thread) of the same 10,000
  polygons as a shapely array against the same polygons as a padded
  (P, 16, 2) array;
* geo-dask-mask: a 20,000x20,000 mask of a 24-vertex polygon, counted block
  by block: ``polymask.dask.mask`` (synchronous scheduler, and threaded with
  2 threads) against rasterio's ``geometry_mask`` over the same 4096x4096
  windows in a loop;
* geo-regions: SREX's 26 regions as regionmask's 3-D mask on a 0.25 degree
  grid, regionmask against ``polymask.xarray.mask_3d``.

Every contender's answer is compared with polymask's (0 pixels may differ;
recorded in extra_info).  Under --benchmark-disable (CI) the sizes shrink
(1,000 polygons on 512x512, a 2048x2048 mask) so the bodies run once and
cannot rot; POLYMASK_BENCH_GEO_FULL=1 forces the full sizes.
"""
from __future__ import annotations

import os

import geopandas
import numpy as np
import pytest
import regionmask
import shapely
from affine import Affine
from rasterio import features
from rasterio.windows import Window
from rasterio.windows import transform as window_transform

import polymask
import polymask.dask
import polymask.xarray
from benchmarks._support import record
from polymask.course.problems import standard_problem

SEED = 2014
#: 10 m pixels, north-up, in a UTM-like frame: GDAL's most common grid.
TRANSFORM = Affine(10.0, 0.0, 500000.0, 0.0, -10.0, 4200000.0)


@pytest.fixture(scope="module")
def full(request):
    return bool(os.environ.get("POLYMASK_BENCH_GEO_FULL")) or not request.config.getoption("benchmark_disable", False)


def label_frame(count=10_000, shape=(4096, 4096)):
    """(GeoDataFrame, padded (P, 16, 2) world coordinates, shape): 16-vertex stars within 20 px."""
    rng = np.random.default_rng(SEED)
    centres = rng.uniform(0, 1, size=(count, 1, 2)) * [shape[1], shape[0]]
    angles = np.sort(rng.uniform(0, 2 * np.pi, size=(count, 16)), axis=1)
    radii = rng.uniform(3, 20, size=(count, 16))
    pixels = centres + np.stack([radii * np.cos(angles), radii * np.sin(angles)], axis=-1)
    a, b, c, d, e, f = tuple(TRANSFORM)[:6]
    world = np.stack([a * pixels[..., 0] + b * pixels[..., 1] + c, d * pixels[..., 0] + e * pixels[..., 1] + f],
                     axis=-1)
    geometries = shapely.polygons(world)
    labels = rng.permutation(count).astype(np.uint16) + 1
    return geopandas.GeoDataFrame({"label": labels}, geometry=geometries), world, shape


@pytest.fixture(scope="module")
def frame(full):
    return label_frame() if full else label_frame(1_000, (512, 512))


def label_image_group(frame):
    """The group of a label-image benchmark: how many polygons, on which grid."""
    table, _, shape = frame
    return f"geo-label-image-{len(table)}-polygons-{shape[0]}x{shape[1]}"


def dask_mask_group(big_mask):
    """The group of a chunked-mask benchmark: the image and its chunks."""
    _, shape, chunk, _ = big_mask
    return f"geo-dask-mask-{shape[0]}x{shape[1]}-chunks-{chunk}"


@pytest.fixture(scope="module")
def expected_labels(frame):
    table, world, shape = frame
    return polymask.rasterize(world, shape, table["label"].to_numpy(), transform=TRANSFORM)


@pytest.fixture(scope="module")
def expected_touched_labels(frame):
    table, world, shape = frame
    return polymask.rasterize(world, shape, table["label"].to_numpy(), transform=TRANSFORM, all_touched=True)


@pytest.mark.parametrize("threads, all_touched", [(1, False), (0, False), (1, True), (0, True)],
                         ids=["1-thread", "default", "all-touched-1-thread", "all-touched-default"])
def test_label_image_polymask_from_geodataframe(benchmark, frame, expected_labels, expected_touched_labels, threads,
                                                all_touched):
    # The default call (threads=0) and 1 thread: rasterio burns on one core.
    # all_touched (rasterio's most used option) beside the centre rule.
    table, _, shape = frame
    benchmark.group = label_image_group(frame)
    result = benchmark.pedantic(polymask.rasterize, (table, shape),
                                {"values": "label", "transform": TRANSFORM, "threads": threads,
                                 "all_touched": all_touched},
                                rounds=9, warmup_rounds=1)
    backend = f"polymask{'-all-touched' if all_touched else ''}-threads-{threads or 'default'}"
    record(benchmark, backend=backend, result=result,
           expected=expected_touched_labels if all_touched else expected_labels, n_polygons=len(table))
    assert benchmark.extra_info["matches_contract"]


@pytest.mark.parametrize("all_touched", [False, True], ids=["centre", "all-touched"])
def test_label_image_rasterio_from_geodataframe(benchmark, frame, expected_labels, expected_touched_labels,
                                               all_touched):
    table, _, shape = frame

    def burn():
        return features.rasterize(zip(table.geometry, table["label"]), out_shape=shape, transform=TRANSFORM,
                                  dtype=np.uint16, all_touched=all_touched)

    benchmark.group = label_image_group(frame)
    result = benchmark.pedantic(burn, rounds=3, warmup_rounds=0)
    record(benchmark, backend="rasterio-all-touched" if all_touched else "rasterio", result=result,
           expected=expected_touched_labels if all_touched else expected_labels, n_polygons=len(table))
    # Random float polygons: GDAL agrees pixel for pixel; its all-touched
    # differs only where an edge passes exactly through a cell corner
    # (docs/guide/geospatial.md), which random float stars never do.
    assert benchmark.extra_info["matches_contract"]


@pytest.mark.parametrize("form", ["shapely-array", "padded-array"])
def test_ingestion(benchmark, frame, expected_labels, form):
    table, world, shape = frame
    polygons = np.asarray(table.geometry.values, dtype=object) if form == "shapely-array" else world
    labels = table["label"].to_numpy()
    benchmark.group = f"geo-ingestion-{len(table)}-polygons-{shape[0]}x{shape[1]}"
    result = benchmark.pedantic(polymask.rasterize, (polygons, shape, labels), {"transform": TRANSFORM, "threads": 1},
                                rounds=15, warmup_rounds=1)
    record(benchmark, backend=form, result=result, expected=expected_labels, n_polygons=len(table))
    assert benchmark.extra_info["matches_contract"]


@pytest.fixture(scope="module")
def big_mask(full):
    """(world polygon, shape, chunk, inside count) for the chunked mask."""
    side, chunk = (20_000, 4096) if full else (2048, 512)
    pixels, shape = standard_problem(size=side, n_vertices=24)
    a, b, c, d, e, f = tuple(TRANSFORM)[:6]
    world = np.c_[a * pixels[:, 0] + c, e * pixels[:, 1] + f]
    polygon = shapely.Polygon(world)
    count = int(np.count_nonzero(polymask.mask(polygon, shape, transform=TRANSFORM)))
    return polygon, shape, chunk, count


def _count_block(block: np.ndarray) -> np.ndarray:
    return np.array([[np.count_nonzero(block)]], dtype=np.int64)


@pytest.mark.parametrize("workers", [1, 2], ids=["1-thread", "2-threads"])
def test_dask_mask_polymask(benchmark, big_mask, workers):
    polygon, shape, chunk, expected = big_mask
    scheduler = "synchronous" if workers == 1 else "threads"

    def count():
        lazy = polymask.dask.mask(polygon, shape, chunks=chunk, transform=TRANSFORM)
        # np.count_nonzero per block, as the rasterio loop counts its windows (da.count_nonzero
        # would first cast every block to int64: 8 bytes per pixel)
        counts = lazy.map_blocks(_count_block, chunks=((1,) * len(lazy.chunks[0]), (1,) * len(lazy.chunks[1])),
                                 dtype=np.int64)
        return int(counts.sum().compute(scheduler=scheduler, num_workers=workers))

    benchmark.group = dask_mask_group(big_mask)
    result = benchmark.pedantic(count, rounds=3, warmup_rounds=0)
    record(benchmark, backend=f"polymask.dask ({workers} thread(s))", result=result, expected=expected,
           differing=abs(result - expected), shape=shape, chunk=chunk)
    assert result == expected


def test_dask_mask_rasterio_windowed(benchmark, big_mask):
    polygon, shape, chunk, expected = big_mask

    def count():
        inside = 0
        for row0 in range(0, shape[0], chunk):
            for col0 in range(0, shape[1], chunk):
                window = Window(col0, row0, min(chunk, shape[1] - col0), min(chunk, shape[0] - row0))
                inside += int(np.count_nonzero(features.geometry_mask(
                    [polygon], out_shape=(int(window.height), int(window.width)),
                    transform=window_transform(window, TRANSFORM), invert=True)))
        return inside

    benchmark.group = dask_mask_group(big_mask)
    result = benchmark.pedantic(count, rounds=3 if shape[0] < 10_000 else 1, warmup_rounds=0)
    record(benchmark, backend="rasterio windowed (1 thread)", result=result, expected=expected,
           differing=abs(result - expected), shape=shape, chunk=chunk)
    assert result == expected


@pytest.fixture(scope="module")
def region_grid(full):
    step = 0.25 if full else 2.0
    return np.arange(-180 + step / 2, 180, step), np.arange(-90 + step / 2, 90, step)


@pytest.mark.parametrize("backend", ["regionmask", "polymask.xarray"])
def test_regions_3d(benchmark, region_grid, backend):
    lon, lat = region_grid
    regions = regionmask.defined_regions.srex
    expected = regions.mask_3D(lon, lat, drop=False).values
    call = ((lambda: regions.mask_3D(lon, lat, drop=False)) if backend == "regionmask"
            else (lambda: polymask.xarray.mask_3d(regions, lon, lat, drop=False)))
    benchmark.group = f"geo-regions-srex-{len(lat)}x{len(lon)}"
    result = benchmark.pedantic(call, rounds=5, warmup_rounds=1).values
    record(benchmark, backend=backend, result=result, expected=expected, grid=[len(lat), len(lon)])
    assert benchmark.extra_info["matches_contract"]
