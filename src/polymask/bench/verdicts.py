"""The verdict on one row timed twice: a ratio of medians and its bootstrap interval.

``polymask bench --compare`` gives it for the rows of two bench tables
(polymask.bench.compare) and of two pytest-benchmark files
(polymask.bench.suite_compare): "faster" when the whole 95% interval of the
ratio (after over before) lies below 1, "slower" when it lies above 1, "no
detectable change" otherwise, and no guess from fewer than three samples.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Fewest samples on each side for a verdict.
MIN_SAMPLES = 3
#: Bootstrap resamples and the interval's confidence.
RESAMPLES = 4000
CONFIDENCE = 0.95
#: Most samples a side brings to the bootstrap: pytest-benchmark keeps up to
#: millions of rounds, and resampling them all would need gigabytes.
MAX_BOOTSTRAP_SAMPLES = 1000


def ratio_interval(before: Sequence[float], after: Sequence[float], seed: int = 0) -> tuple[float, float, float]:
    """(ratio of medians after/before, low, high): the ratio and its bootstrap interval.

    A side with more than MAX_BOOTSTRAP_SAMPLES samples is resampled from
    every k-th of them, in the order taken: the interval can only come out
    wider for it, never narrower.  The ratio itself uses every sample.
    """
    first, second = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    ratio = float(np.median(second) / np.median(first))
    first, second = (side[::-(-side.size // MAX_BOOTSTRAP_SAMPLES)] for side in (first, second))
    rng = np.random.default_rng(seed)
    medians_before = np.median(first[rng.integers(0, first.size, (RESAMPLES, first.size))], axis=1)
    medians_after = np.median(second[rng.integers(0, second.size, (RESAMPLES, second.size))], axis=1)
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(medians_after / medians_before, [tail, 100 - tail])
    return ratio, float(low), float(high)


def verdict(before: Sequence[float], after: Sequence[float]) -> tuple[float | None, float | None, float | None, str]:
    """(ratio, low, high, verdict) of one row's samples before and after."""
    if len(before) < MIN_SAMPLES or len(after) < MIN_SAMPLES:
        return None, None, None, (f"too few samples (need {MIN_SAMPLES} on each side, "
                                  f"have {len(before)} and {len(after)})")
    ratio, low, high = ratio_interval(before, after)
    if high < 1:
        return ratio, low, high, "faster"
    if low > 1:
        return ratio, low, high, "slower"
    return ratio, low, high, "no detectable change"
