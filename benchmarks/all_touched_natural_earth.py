"""all_touched=True against GDAL on real borders and in general position, and what it costs.

    python -m benchmarks.all_touched_natural_earth            # 15 rounds a call
    python -m benchmarks.all_touched_natural_earth --rounds 5

Natural Earth's 177 countries (110m, pyogrio's test copy) burned into a
0.1 degree label image (3600x1800, north-up, -180..180) by
``polymask.rasterize(..., all_touched=True)`` and ``all_touched="exact"``,
each compared cell by cell with ``rasterio.features.rasterize(...,
all_touched=True)``; the same for benchmarks/test_geo.py's 10,000 random
16-vertex stars on a 4096x4096 georeferenced label image (general position:
no coordinate near a cell side).  Then the cost: True against "exact" and
the centre rule, alternated call by call in one process so all see the same
load, one thread, medians of the rounds; the same for ``polymask.mask`` on
the three 1,000-vertex polygons of benchmarks/test_coverage.py at 4096x4096.
"""
from __future__ import annotations

import argparse
import functools
import os
import time
from collections.abc import Callable

import numpy as np


def _countries() -> list:
    import pyogrio
    import shapely

    path = os.path.join(os.path.dirname(pyogrio.__file__), "tests", "fixtures", "naturalearth_lowres",
                        "naturalearth_lowres.shp")
    return list(shapely.from_wkb(pyogrio.raw.read(path)[2]))


def _medians(calls: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Median seconds of each call, the calls alternated round by round."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(values)) for name, values in times.items()}


def _label_image(name: str, geometries: list, labels: np.ndarray, shape: tuple[int, int], transform,
                 rounds: int) -> dict[str, float]:
    from rasterio import features

    import polymask

    gdal = features.rasterize(zip(geometries, labels), out_shape=shape, transform=transform, all_touched=True,
                              dtype=labels.dtype)

    def burn(mode: bool | str) -> Callable[[], np.ndarray]:
        return lambda: polymask.rasterize(geometries, shape, labels, transform=transform, all_touched=mode,
                                          threads=1)

    for mode in (True, "exact"):
        print(f"{name}, all_touched={mode!r}: {int(np.sum(burn(mode)() != gdal))} cells differ from GDAL's "
              f"all_touched")
    return _medians({"tolerance": burn(True), "exact": burn("exact"), "centre": burn(False)}, rounds)


def natural_earth(rounds: int) -> dict[str, float]:
    from affine import Affine

    countries = _countries()
    labels = np.arange(1, len(countries) + 1, dtype=np.int32)
    return _label_image("natural earth 0.1 deg", countries, labels, (1800, 3600),
                        Affine(0.1, 0.0, -180.0, 0.0, -0.1, 90.0), rounds)


def stars(rounds: int) -> dict[str, float]:
    from benchmarks.test_geo import TRANSFORM, label_frame

    table, _, shape = label_frame()
    return _label_image("10,000 stars 4096x4096", list(table.geometry), table["label"].to_numpy(), shape,
                        TRANSFORM, rounds)


def polygons(rounds: int) -> dict[str, dict[str, float]]:
    import polymask
    from benchmarks.test_coverage import POLYGONS, SHAPE

    results = {}
    for name in sorted(POLYGONS):
        calls = {mode: functools.partial(polymask.mask, POLYGONS[name], SHAPE, threads=1, all_touched=flag)
                 for mode, flag in (("tolerance", True), ("exact", "exact"), ("centre", False))}
        results[name] = _medians(calls, rounds)
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    rows = {"natural-earth-0.1deg (rasterize)": natural_earth(args.rounds),
            "10,000 stars 4096x4096 (rasterize)": stars(args.rounds)}
    rows.update({f"{name} 4096x4096 (mask)": medians for name, medians in polygons(args.rounds).items()})
    print(f"{'case':36} {'centre ms':>10} {'exact ms':>10} {'True ms':>10} {'True / exact':>13}")
    for case, medians in rows.items():
        print(f"{case:36} {medians['centre'] * 1e3:10.2f} {medians['exact'] * 1e3:10.2f} "
              f"{medians['tolerance'] * 1e3:10.2f} {medians['tolerance'] / medians['exact']:13.2f}")


if __name__ == "__main__":
    main()
