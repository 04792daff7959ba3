"""Random calls of polymask's public API with hostile arguments (run by tests/test_random_calls.py).

    python tests/random_calls.py SEED CALLS

Each call picks a function (mask, masks, rasterize, coverage, coverages and
polymask.coco's encode, decode, area, merge and iou) and arguments drawn
from pools of odd values: NaN, infinities and huge coordinates, wrong
dtypes, ranks and layouts, read-only, strided and Fortran-ordered arrays,
empty and degenerate rings, GeoJSON and shapely objects of every kind, and
bad shapes, windows, transforms, thread counts, fill rules, label values,
dtypes, outputs and RLEs.  tests/test_bad_input.py and tests/test_errors.py
pin what each odd input gives; this draws many combinations of them.

A call may return, or raise an ordinary error (ValueError, TypeError,
OverflowError, MemoryError, IndexError, KeyError, NotImplementedError)
whose message is not empty.  Anything else is printed as ODD; a crash or a
hang ends the process, and the test sees that.  When the environment names
a file in POLYMASK_RANDOM_CALLS_LOG, each call is written there before it
is made, so a crash can be replayed.  The last line counts the odd calls.
"""
import math
import os
import random
import sys
import traceback

import numpy as np
import shapely

import polymask
import polymask.coco as coco

SEED = int(sys.argv[1]) if len(sys.argv) > 1 else 0
CALLS = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
LOG = os.environ.get("POLYMASK_RANDOM_CALLS_LOG")
pick = random.Random(SEED)
draw = np.random.default_rng(SEED)

ORDINARY_ERRORS = (ValueError, TypeError, OverflowError, MemoryError, IndexError, KeyError, NotImplementedError)


def some(**options):
    """A random subset of the keyword arguments (each kept with probability 0.4)."""
    return {name: value for name, value in options.items() if pick.random() < 0.4}


def odd_float():
    return pick.choice([0.0, -0.0, 0.5, 1.5, -1.0, 3.0, 1e-300, 1e300, -1e300, math.inf, -math.inf, math.nan,
                        2.0**31, 2.0**53, 2.0**63, -2.0**63, 1e17, 5.999999999999999, pick.uniform(-10, 80)])


def odd_vertices():
    n = pick.choice([0, 1, 2, 3, 4, 5, 24, 100])
    kind = pick.randrange(16)
    if kind == 0:
        return draw.uniform(-5, 70, (n, 2))
    if kind == 1:  # one odd coordinate among plain ones
        vertices = draw.uniform(-5, 70, (n, 2))
        if n:
            vertices[pick.randrange(n), pick.randrange(2)] = odd_float()
        return vertices
    if kind == 2:
        return [[odd_float(), odd_float()] for _ in range(n)]
    if kind == 3:
        dtype = pick.choice([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64, np.float32, np.float16])
        return draw.integers(-5, 70, (n, 2)).astype(dtype)
    if kind == 4:
        return draw.uniform(0, 64, (n, pick.choice([1, 3, 4])))
    if kind == 5:
        return draw.uniform(0, 64, (n,))
    if kind == 6:
        return [draw.uniform(0, 64, (pick.choice([0, 3, 5]), 2)) for _ in range(pick.choice([0, 1, 3]))]
    if kind == 7:
        return {"type": pick.choice(["Polygon", "MultiPolygon", "Point", "LineString", "Bogus"]),
                "coordinates": [[[odd_float(), odd_float()] for _ in range(n)]]}
    if kind == 8:
        return pick.choice([None, 3, "abc", b"xy", object(), [], [[]], [[[]]], {}, np.array(5.0), np.zeros((0,)),
                            np.zeros((2, 2), dtype=object), np.array(["a", "b"]), [1, 2, 3], [[1, 2], [3]]])
    if kind == 9:
        return draw.uniform(0, 64, (n, 2))[::2]
    if kind == 10:
        return np.asfortranarray(draw.uniform(0, 64, (n, 2)))
    if kind == 11:
        return draw.uniform(0, 64, (n, 2)).view(np.complex128)
    if kind == 12:
        return draw.uniform(0, 64, (pick.choice([1, 2, 3]), n, 2))
    if kind == 13:
        return draw.uniform(-1e9, 1e9, (n, 2))
    if kind == 14:
        vertices = draw.uniform(0, 64, (n, 2))
        vertices.setflags(write=False)
        return vertices
    points = draw.uniform(0, 64, (max(n, 3), 2))
    return pick.choice([shapely.Polygon(points), shapely.MultiPolygon([shapely.Polygon(points)]),
                        shapely.Point(1, 2), shapely.LineString(points), shapely.Polygon(),
                        shapely.GeometryCollection([shapely.Polygon(points)])])


def odd_polygons():
    n = pick.choice([0, 1, 2, 5, 50])
    kind = pick.randrange(6)
    if kind == 0:
        return [odd_vertices() for _ in range(n)]
    if kind == 1:
        return draw.uniform(0, 64, (n, pick.choice([3, 8]), 2))
    if kind == 2:  # padded with NaN
        padded = draw.uniform(0, 64, (n, 8, 2))
        padded[:, 5:] = math.nan
        return padded
    if kind == 3:
        return odd_vertices()
    if kind == 4:
        feature = {"type": "Feature", "properties": {},
                   "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [9, 0], [9, 9]]]}}
        return {"type": "FeatureCollection", "features": [feature] * n}
    return pick.choice([None, 5, "x", [None], [[]], np.zeros((0, 0, 2))])


def odd_shape():
    return pick.choice([(64, 64), (1, 1), (0, 5), (5, 0), (3, 200), (-1, 5), (2**31, 1), (2**62, 2**62), (2**64, 1),
                        (10.0, 10), (True, 3), "64x64", None, (64,), (64, 64, 3), [8, 8], np.array([8, 8]),
                        (np.int64(8), np.uint8(9)), (math.nan, 3), (8, 8.5), ()])


def odd_window():
    return pick.choice([None, (0, 0, 8, 8), (-5, -5, 10, 10), (0, 0, 0, 0), (0, 0, -1, 4), (60, 60, 10, 10),
                        (2**62, 0, 4, 4), (0, 0, 2**62, 1), (1, 2, 3), "w", (0.5, 0, 4, 4), ((0, 8), (0, 8)),
                        (slice(0, 8), slice(0, 8))])


def odd_out():
    return pick.choice([None, np.zeros((64, 64), bool), np.zeros((64, 64), np.uint8), np.zeros((8, 8), bool),
                        np.zeros((64, 64), bool)[:, ::2], np.zeros((64, 64), np.float64),
                        np.zeros((64, 64), np.float32), np.zeros((2, 64, 64), bool),
                        np.zeros((64, 64), bool, order="F"), [[0]], 5, np.zeros((64, 64), np.int32),
                        np.zeros((64, 64), np.uint16)])


def odd_threads():
    return pick.choice([None, 0, 1, 2, -1, 3.5, 2**40, "2", True, np.int32(2)])


def odd_transform():
    return pick.choice([None, (1, 0, 0, 0, 1, 0), (0.5, 0, 10, 0, -0.5, 64), (0, 0, 0, 0, 0, 0), (1, 2, 3),
                        (math.nan, 0, 0, 0, 1, 0), (1e-300, 0, 0, 0, 1e-300, 0), (1e300, 0, 0, 0, 1e300, 0), "t",
                        np.eye(3), np.eye(2), (1, 0, 0, 0, 1, 0, 0, 0, 1), (1, 1, 0, 1, 1, 0)])


def odd_values(n=5):
    return pick.choice([None, list(range(n)), np.arange(n, dtype=np.uint8), np.full(n, math.nan),
                        np.full(n, 1e300), np.arange(n, dtype=np.int64) - 2, "value", [1.5] * n, np.arange(n + 1),
                        7, np.zeros(n, bool)])


def odd_dtype():
    return pick.choice([None, np.uint8, np.uint16, np.int32, np.float32, np.float64, bool, "f8", "u1",
                        np.complex64, object, "bogus", np.int8, np.uint64])


def odd_rule():
    return pick.choice(["evenodd", "nonzero", "EvenOdd", "", None, 1, "winding"])


def odd_rle():
    counts = pick.choice([[16], [0, 16], [3, 13], [17], [-1, 17], [], b"", b"PP", b"\xff\xff", "abc", [2**40],
                          [1.5, 14.5]])
    size = pick.choice([[4, 4], [0, 0], [1, 5], [2**20, 2**20], [4], None, "x", [-1, 4], [2**40, 2**40]])
    return pick.choice([{"size": size, "counts": counts}, {"counts": counts}, {"size": size}, 5, None, [], {}])


def odd_coco_object():
    return pick.choice([[[0, 0, 9, 0, 9, 9]], [[odd_float()] * 6], [[1, 2, 3]], [], odd_rle(), [0, 0, 5, 0, 5, 5],
                        "x", None, draw.uniform(0, 9, (4, 2))])


def odd_call():
    """(name, positional arguments, keyword arguments) of one random call."""
    which = pick.randrange(10)
    if which == 0:
        return "mask", (odd_vertices(), odd_shape()), some(
            out=odd_out(), threads=odd_threads(), fill_rule=odd_rule(), window=odd_window(),
            transform=odd_transform(), all_touched=pick.choice([False, True, "exact", 1, "yes"]),
            backend=pick.choice(["auto", "scanline", "python", "bogus", None]))
    if which == 1:
        return "masks", (odd_polygons(), odd_shape()), some(
            out=odd_out(), threads=odd_threads(), fill_rule=odd_rule(), crop=pick.choice([False, True]),
            transform=odd_transform())
    if which == 2:
        return "rasterize", (odd_polygons(), odd_shape(), odd_values()), some(
            out=odd_out(), dtype=odd_dtype(), threads=odd_threads(), fill_rule=odd_rule(), window=odd_window(),
            transform=odd_transform(), all_touched=pick.choice([False, True, "exact", None]))
    if which == 3:
        return "coverage", (odd_vertices(), odd_shape()), some(
            out=odd_out(), dtype=odd_dtype(), threads=odd_threads(), fill_rule=odd_rule(), window=odd_window(),
            transform=odd_transform())
    if which == 4:
        return "coverages", (odd_polygons(), odd_shape()), some(
            dtype=odd_dtype(), threads=odd_threads(), fill_rule=odd_rule(), transform=odd_transform())
    if which == 5:
        objects = [odd_coco_object() for _ in range(pick.choice([0, 1, 3]))]
        height, width = pick.choice([10, 0, -1, 2**40, 10.5, "10"]), pick.choice([10, 0, 2**33, None])
        return "coco.encode", (objects, height, width), some(
            compressed=pick.choice([True, False, None]), threads=odd_threads())
    if which == 6:
        return "coco.decode", (pick.choice([odd_rle(), [odd_rle(), odd_rle()]]),), {}
    if which == 7:
        return "coco.area", (pick.choice([odd_rle(), [odd_rle(), odd_rle()]]),), {}
    if which == 8:
        return "coco.merge", ([odd_rle() for _ in range(pick.choice([0, 1, 2]))],), some(
            intersect=pick.choice([False, True]))
    return "coco.iou", ([odd_rle()], [odd_rle()], pick.choice([[0], [1], [], None, [0, 1]])), {}


FUNCTIONS = {"mask": polymask.mask, "masks": polymask.masks, "rasterize": polymask.rasterize,
             "coverage": polymask.coverage, "coverages": polymask.coverages, "coco.encode": coco.encode,
             "coco.decode": coco.decode, "coco.area": coco.area, "coco.merge": coco.merge, "coco.iou": coco.iou}


def main() -> None:
    odd = 0
    for number in range(CALLS):
        name, arguments, keywords = odd_call()
        text = f"{name} args={arguments!r:.2000} kw={keywords!r:.500}"
        if LOG:
            with open(LOG, "w") as log:
                log.write(f"seed {SEED} call {number}: {text}\n")
        try:
            FUNCTIONS[name](*arguments, **keywords)
        except ORDINARY_ERRORS as error:
            if not str(error).strip():
                odd += 1
                print("ODD: empty message from", type(error).__name__, text[:600])
        except Exception as error:  # noqa: BLE001 - every other kind is what this looks for
            odd += 1
            print("ODD:", type(error).__name__, str(error)[:300], "|", text[:600])
            traceback.print_exc(limit=3)
    print(f"seed {SEED}: {CALLS} calls, odd {odd}")


if __name__ == "__main__":
    main()
