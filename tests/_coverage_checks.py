"""Checks the coverage tests share: polymask.coverage against the exact
reference (tests/coverage_reference.py), and windows against slices."""

from __future__ import annotations

import numpy as np

import polymask
from tests.coverage_reference import exact_coverage, max_error, positive


def assert_matches_exact(polygon, shape, fill_rule="evenodd", bound=1e-10):
    """polymask.coverage within `bound` of the exact areas, and both its
    positive cells and the exact all_touched mask exactly the cells of
    positive area."""
    fractions = polymask.coverage(polygon, shape, fill_rule=fill_rule)
    exact = exact_coverage(polygon, shape, fill_rule)
    assert max_error(fractions, exact) <= bound
    np.testing.assert_array_equal(fractions > 0, positive(exact))
    touched = polymask.mask(polygon, shape, fill_rule=fill_rule, all_touched="exact")
    np.testing.assert_array_equal(touched, positive(exact))


def assert_windows_equal_slices(polygon, shape, fill_rule, dtype, rows, widths):
    """Every window of rows [rows.start, rows.stop), from each column and of
    each width in `widths` (cut at the image's edge), equals the same slice
    of the whole image's coverage, bit for bit."""
    full = polymask.coverage(polygon, shape, fill_rule=fill_rule, dtype=dtype)
    for col0 in range(shape[1]):
        for width in widths:
            width = min(width, shape[1] - col0)
            window = (rows.start, col0, rows.stop - rows.start, width)
            part = polymask.coverage(polygon, shape, fill_rule=fill_rule, dtype=dtype, window=window)
            np.testing.assert_array_equal(part, full[rows, col0 : col0 + width])
