"""Lines reaching far past the image: the same cells as GDAL's walk, in time bounded by the image.

GDAL walks a segment to its far end: an all-touched line from -1e9 to 1e9
pixels took 10^9 steps, and a Bresenham line's integers outgrow int64 past
about 2**31 pixels.  polymask stops each walk where it leaves the image for
good and takes the far segments' steps in Python's integers, so such a line
burns exactly the cells a short piece of it does, at once.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import polymask
from polymask import _lines

affine = pytest.importorskip("affine")
shapely = pytest.importorskip("shapely")
rasterio_features = pytest.importorskip("rasterio.features")

IDENTITY = affine.Affine.identity()
SHAPE = (60, 80)


def burned(line, all_touched):
    return polymask.rasterize([line], SHAPE, all_touched=all_touched, transform=IDENTITY) > 0


LATTICE_LINES = [  # (run, rise) per step, 2**power steps each way from a whole pixel `through`
    *[((run, rise), power, (40, 30)) for run, rise in [(1, 1), (2, 1), (1, 2), (1, -1), (3, -2)] for power in (31, 44)],
    *[((run, rise), 996, (0, 0)) for run, rise in [(1, 1), (2, 1), (1, 2)]],  # near 1e300: through the corner
]


@pytest.mark.parametrize("all_touched", [False, True])
@pytest.mark.parametrize(("slope", "power", "through"), LATTICE_LINES)
def test_a_line_too_long_for_gdal_burns_the_cells_of_its_piece_near_the_image(slope, power, through, all_touched):
    """Lattice lines (ends on whole pixels, exactly representable): far or near, the same cells."""
    (run, rise), (x, y) = slope, through

    def line(reach):
        return shapely.LineString([(x - run * reach, y - rise * reach), (x + run * reach, y + rise * reach)])

    expected = rasterio_features.rasterize([line(1024.0)], out_shape=SHAPE, all_touched=all_touched) > 0
    assert expected.any()
    with np.errstate(all="raise"):
        assert np.array_equal(burned(line(2.0**power), all_touched), expected)


def test_far_segments_take_the_same_bresenham_steps_in_python_integers():
    rng = np.random.default_rng(7)
    begin = rng.uniform(-500, 600, (300, 2))
    end = rng.uniform(-500, 600, (300, 2))
    with_end = rng.random(300) < 0.5
    segment = np.arange(300)
    vectorized = _lines._bresenham(begin, end, with_end, segment, 90, 70)
    keep = (vectorized[1] >= 0) & (vectorized[1] < 70) & (vectorized[2] >= 0) & (vectorized[2] < 90)
    expected = sorted(zip(*(part[keep].tolist() for part in vectorized)))
    exact = []
    for k in range(300):
        rows, cols = _lines._bresenham_exact(begin[k], end[k], bool(with_end[k]), 90, 70)
        exact += [(k, r, c) for r, c in zip(rows, cols)]
    assert sorted(exact) == expected and len(expected) > 1000


@pytest.mark.parametrize("reach", [1e9, 1e15, 1e300])
def test_a_far_line_passing_beside_the_image_burns_nothing_and_returns(reach):
    """GDAL's walk would step through every row between the image and the far end: 10^9 steps and more."""
    script = (
        "import affine, shapely, polymask\n"
        f"line = shapely.LineString([(-{reach!r}, -0.37 * {reach!r}), ({reach!r}, 0.51 * {reach!r})])\n"
        f"burned = polymask.rasterize([line], {SHAPE!r}, all_touched=True, transform=affine.Affine.identity())\n"
        "print(int(burned.sum()))\n"
    )
    # A hang guard, not a speed test: the walk it guards against took minutes.
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout.split() == ["0"]
