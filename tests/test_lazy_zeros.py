"""Results polymask allocates: np.zeros with only the spans written, unless the polygon covers most rows.

A new mask is np.zeros (calloc) with only the inside spans of the
polygon's rows written -- the lazy path -- unless the polygon crosses at
least 3/4 of the rows of a heap-sized array (up to 32 MiB), where np.zeros
would write every byte anyway and np.empty with every byte written once is
cheaper (polymask/_core.pyx: filled_mask).  The lazy path must give exactly
the eager path's mask (out=: every byte written) on random polygons,
windows and shapes, and must really leave the pages outside the polygon's
rows alone; the other allocation is covered in tests/test_plain_path.py.
"""
from __future__ import annotations

import resource

import numpy as np
import pytest

import polymask
import polymask.dask
from tests._support import double_rings_mask


def random_case(rng):
    shape = (int(rng.integers(1, 70)), int(rng.integers(1, 70)))
    rings = [rng.uniform(-10, max(shape) + 10, size=(int(rng.integers(3, 12)), 2))
             for _ in range(int(rng.integers(1, 3)))]
    if rng.random() < 0.3:
        rings = [np.round(ring) for ring in rings]
    row0, col0 = int(rng.integers(0, shape[0])), int(rng.integers(0, shape[1]))
    window = (row0, col0, int(rng.integers(0, shape[0] - row0 + 1)), int(rng.integers(0, shape[1] - col0 + 1)))
    return rings, shape, window


@pytest.mark.parametrize("fill_rule", ["evenodd", "nonzero"])
def test_lazy_equals_eager_and_the_reference(fill_rule):
    rng = np.random.default_rng(2024)
    for _ in range(120):
        rings, shape, window = random_case(rng)
        row0, col0, height, width = window
        reference = double_rings_mask(rings, shape, fill_rule)[row0:row0 + height, col0:col0 + width]
        lazy = polymask.mask(rings, shape, window=window, fill_rule=fill_rule)
        eager = polymask.mask(rings, shape, window=window, fill_rule=fill_rule,
                              out=np.ones((height, width), dtype=bool))  # garbage first: all rewritten
        assert np.array_equal(lazy, reference), (rings, shape, window)
        assert np.array_equal(eager, reference), (rings, shape, window)
        full = polymask.mask(rings, shape, fill_rule=fill_rule, threads=2)
        assert np.array_equal(full, double_rings_mask(rings, shape, fill_rule))


def test_dask_blocks_equal_the_in_memory_mask():
    rng = np.random.default_rng(3)
    rings = [rng.uniform(-5, 75, size=(9, 2))]
    lazy = polymask.dask.mask(rings, (70, 65), chunks=(16, 20)).compute()
    assert np.array_equal(lazy, double_rings_mask(rings, (70, 65)))


def page_faults(fill) -> int:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    result = fill()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    del result
    return faults


def test_small_polygon_in_a_huge_image_touches_only_its_rows():
    # A 64 MiB result whose polygon spans ~300 of 8,192 rows.  Writing every
    # byte (the eager path, into a fresh np.empty) faults in every page;
    # calloc + spans only fault the pages those rows cover (with transparent
    # huge pages, a handful).  Measured here: eager 544 (THP) to 16,384,
    # lazy 6 to ~600.
    angles = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    polygon = np.column_stack([4000 + 150 * np.cos(angles), 4000 + 150 * np.sin(angles)])
    shape = (8192, 8192)
    result = polymask.mask(polygon, shape, threads=1)
    assert result[4000, 4000] and not result[0, 0] and not result[-1, -1]
    del result
    lazy = page_faults(lambda: polymask.mask(polygon, shape, threads=1))
    eager = page_faults(lambda: polymask.mask(polygon, shape, threads=1, out=np.empty(shape, dtype=bool)))
    assert 4 * lazy < eager, f"lazy path faulted {lazy} pages, eager {eager}: pages outside the rows were written"
