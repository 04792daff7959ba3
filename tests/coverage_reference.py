"""A slow, exact reference for coverage fractions, written for the tests only.

It shares no code with polymask.  Everything is fractions.Fraction.  For
each row strip [row - 1/2, row + 1/2] the ordinates are cut at every vertex,
every crossing of two edges and every point where an edge crosses a cell
side x = col ± 1/2; between two cuts the inside length in each cell is a
linear function of y, so the midpoint rule integrates it exactly.  At a
midpoint the edges' abscissae are sorted and the fill rule (parity, or the
winding count from the left) names the inside intervals.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np


def _rings_of(polygon):
    """A list of rings of Fraction (x, y): from an (N, 2) array or a list of rings."""
    if isinstance(polygon, np.ndarray) and polygon.ndim == 2:
        polygon = [polygon]
    return [[(Fraction(x), Fraction(y)) for x, y in ring] for ring in polygon]


def _to_fraction(value):
    return value if isinstance(value, Fraction) else Fraction(float(value))


def exact_coverage(polygon, shape, fill_rule="evenodd", window=None):
    """(height, width) array of Fraction: the exact covered share of each cell.

    `polygon` is an (N, 2) array or a list of rings; entries may be floats
    or Fractions (floats are taken at their exact binary value).
    """
    rings = [[(_to_fraction(x), _to_fraction(y)) for x, y in ring]
             for ring in ([polygon] if isinstance(polygon, np.ndarray) and np.ndim(polygon) == 2 else polygon)]
    edges = []  # (x0, y0, x1, y1, winding) with y0 < y1
    for ring in rings:
        for k in range(len(ring)):
            (xa, ya), (xb, yb) = ring[k - 1], ring[k]
            if ya < yb:
                edges.append((xa, ya, xb, yb, 1))
            elif ya > yb:
                edges.append((xb, yb, xa, ya, -1))
    row0, col0, height, width = window if window is not None else (0, 0, shape[0], shape[1])
    half = Fraction(1, 2)
    sides = [Fraction(c) - half for c in range(col0, col0 + width + 1)]

    cuts = set()
    for x0, y0, x1, y1, _ in edges:
        cuts.update((y0, y1))
        for side in sides:  # where the edge crosses a cell side
            if min(x0, x1) < side < max(x0, x1):
                cuts.add(y0 + (y1 - y0) * (side - x0) / (x1 - x0))
    for a in range(len(edges)):
        for b in range(a):
            crossing = _crossing_y(edges[a], edges[b])
            if crossing is not None:
                cuts.add(crossing)

    result = np.full((height, width), Fraction(0), dtype=object)
    for r in range(height):
        top, bottom = Fraction(row0 + r) - half, Fraction(row0 + r) + half
        ys = sorted({top, bottom} | {y for y in cuts if top < y < bottom})
        for y_a, y_b in zip(ys, ys[1:]):
            middle = (y_a + y_b) / 2
            for left, right in _inside_intervals(edges, middle, fill_rule):
                for c in range(width):
                    low = max(left, Fraction(col0 + c) - half)
                    high = min(right, Fraction(col0 + c) + half)
                    if high > low:
                        result[r, c] += (y_b - y_a) * (high - low)
    return result


def _crossing_y(e, f):
    """The ordinate where two edges cross (not parallel), or None."""
    px, py, qx, qy, _ = e
    rx, ry, sx, sy, _ = f
    dx, dy, ex, ey = qx - px, qy - py, sx - rx, sy - ry
    denominator = dx * ey - dy * ex
    if denominator == 0:
        return None
    t = ((rx - px) * ey - (ry - py) * ex) / denominator
    u = ((rx - px) * dy - (ry - py) * dx) / denominator
    if 0 <= t <= 1 and 0 <= u <= 1:
        return py + t * dy
    return None


def _inside_intervals(edges, y, fill_rule):
    crossings = sorted((x0 + (x1 - x0) * (y - y0) / (y1 - y0), winding)
                       for x0, y0, x1, y1, winding in edges if y0 < y < y1)
    intervals = []
    count = 0
    for k, (x, winding) in enumerate(crossings[:-1]):
        count += 1 if fill_rule == "evenodd" else winding
        inside = (count % 2 == 1) if fill_rule == "evenodd" else (count != 0)
        if inside and crossings[k + 1][0] > x:
            intervals.append((x, crossings[k + 1][0]))
    return intervals


def exact_area(polygon, fill_rule="evenodd"):
    """The exact area of the filled region, over a window that holds it all."""
    rings = polygon if not (isinstance(polygon, np.ndarray) and polygon.ndim == 2) else [polygon]
    points = np.concatenate([np.asarray(ring, dtype=float) for ring in rings])
    col0, row0 = (int(np.floor(v)) - 1 for v in points.min(axis=0))
    col1, row1 = (int(np.ceil(v)) + 2 for v in points.max(axis=0))
    cells = exact_coverage(polygon, None, fill_rule, (row0, col0, row1 - row0, col1 - col0))
    return sum(cells.ravel(), Fraction(0))


def max_error(fractions: np.ndarray, exact: np.ndarray) -> float:
    """The largest |fractions - exact|, computed exactly, as a float."""
    return float(max((abs(Fraction(float(v)) - e) for v, e in zip(fractions.ravel(), exact.ravel())),
                     default=Fraction(0)))


def positive(exact: np.ndarray) -> np.ndarray:
    """Boolean array: where the exact coverage is > 0 (the all_touched truth)."""
    return np.vectorize(lambda v: v > 0, otypes=[bool])(exact)
