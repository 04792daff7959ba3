"""Ctrl-C while the core walks one long line raises KeyboardInterrupt promptly.

The core walks lines alone (csrc/src/line_walk.cpp) and polls the interrupt
check between segments: one zigzag line crossing a 2000 x 2000 image tens of
thousands of times takes seconds, and must answer a SIGINT within the
harness's bound (tests/_interrupt_harness.py), in a fresh interpreter.
"""

from __future__ import annotations

import textwrap

import pytest

from tests._interrupt_harness import HARNESS, assert_interrupted_promptly

pytestmark = pytest.mark.wallclock

ZIGZAG = HARNESS + textwrap.dedent("""
    import shapely
    all_touched = sys.argv[1] == "all_touched"

    def zigzag(scale):
        count = 20_000 * scale
        xs = np.where(np.arange(count) % 2 == 0, -10.0, 2010.0)
        line = shapely.LineString(np.column_stack([xs, np.linspace(0.0, 2000.0, count)]))
        return lambda: polymask.rasterize([line], (2000, 2000), all_touched=all_touched)
    interrupt_during(zigzag)
""")


@pytest.mark.parametrize("rule", ["centre", "all_touched"])
def test_sigint_while_one_long_line_is_walked_raises_keyboard_interrupt(rule):
    assert_interrupted_promptly(ZIGZAG, f"one long line, {rule}", rule)
