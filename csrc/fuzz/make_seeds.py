"""Write the seed corpus of csrc/fuzz/fuzz_core.cpp into csrc/fuzz/corpus/.

Each seed is a hand-picked case in the fuzzer's input layout (documented at
the top of fuzz_core.cpp): squares, triangles, concave and self-crossing
shapes, several rings, windows far from the origin, and the special values
(NaN, infinities, subnormals, huge).  libFuzzer mutates from these, so they
only need to reach each branch of the decoder once; the fuzzer finds the rest.

    python3 csrc/fuzz/make_seeds.py          # rewrite corpus/ from this table
"""
from __future__ import annotations

import hashlib
import struct
from pathlib import Path

CORPUS = Path(__file__).parent / "corpus"

# Index into the kSpecial table of fuzz_input.hpp (fuzz_core.cpp's input).
NAN, NEG_NAN, INF, NEG_INF, MAX, NEG_MAX, MIN_NORMAL, SUBNORMAL, NEG_SUBNORMAL = range(9)
ZERO, NEG_ZERO, HUGE, NEG_HUGE, TINY, TWO_53, TWO_63, NEG_TWO_63, HALF, BELOW_HALF, MAX_SIDE = range(9, 20)


def grid(value: float) -> bytes:
    """A half-integer offset from the window origin (tag 0)."""
    return bytes([0, struct.pack("b", round(value * 2))[0]])


def raw(value: float) -> bytes:
    """Any double, bit for bit (tag 4)."""
    return bytes([4]) + struct.pack("<d", value)


def special(index: int) -> bytes:
    """An entry of kSpecial (tag 5)."""
    return bytes([5, index])


def fine(value: float) -> bytes:
    """A 1/256 grid offset from the window origin (tag 6)."""
    return bytes([6]) + struct.pack("<h", round(value * 256))


def single(value: float) -> bytes:
    """A float32 bit pattern, widened (tag 7)."""
    return bytes([7]) + struct.pack("<f", value)


def case(vertices, *, rows=16, cols=16, row0=0, col0=0, nonzero=False, two_threads=False, ring_mode=0,
         rings=(), far=False, negative_height=False, padding=0) -> bytes:
    """Encode one input.  `vertices` holds already-encoded (x, y) coordinates."""
    flags = (int(nonzero) | int(two_threads) << 1 | ring_mode << 2 | int(far) << 4
             | int(negative_height) << 5 | padding << 6)
    header = bytes([flags]) + struct.pack("<hh", row0, col0) + bytes([rows, cols, len(vertices), len(rings)])
    header += bytes(r & 0xFF for r in rings)
    return header + b"".join(x + y for x, y in vertices)


def g(*points):
    """Grid vertices from plain (x, y) numbers."""
    return [(grid(x), grid(y)) for x, y in points]


SQUARE = g((2, 2), (12, 2), (12, 12), (2, 12))
TRIANGLE = g((0, 0), (15, 3), (4, 14))
CONCAVE = g((1, 1), (14, 1), (14, 14), (8, 5), (1, 14))
BOWTIE = g((1, 1), (14, 14), (14, 1), (1, 14))
STAR = g((8, 0), (10, 14), (1, 5), (15, 5), (5, 14))
SPIKES = g((0, 0), (20, 0.5), (0, 1), (20, 1.5), (0, 2), (20, 2.5), (0, 3))
HALF_GRID = g((0.5, 0.5), (9.5, 1.5), (7.5, 9.5), (-3.5, 6.5))
TWO_SQUARES = g((1, 1), (7, 1), (7, 7), (1, 7), (4, 4), (12, 4), (12, 12), (4, 12))

SEEDS = {
    "square": case(SQUARE),
    "square_nonzero_2threads": case(SQUARE, nonzero=True, two_threads=True, rows=40, cols=40),
    "triangle_padded": case(TRIANGLE, padding=3),
    "concave": case(CONCAVE, rows=40, cols=17),
    "bowtie_evenodd": case(BOWTIE),
    "bowtie_nonzero": case(BOWTIE, nonzero=True),
    "star_evenodd": case(STAR, rows=20, cols=20),
    "star_nonzero": case(STAR, rows=20, cols=20, nonzero=True, two_threads=True),
    "spikes": case(SPIKES, rows=5, cols=40),
    "half_grid": case(HALF_GRID, rows=12, cols=12),
    "fine_grid": case([(fine(0.25), fine(0.75)), (fine(9.99609375), fine(0.00390625)), (fine(5.5), fine(9.5))]),
    "two_rings": case(TWO_SQUARES, ring_mode=1, rings=[4]),
    "two_rings_nonzero": case(TWO_SQUARES, ring_mode=1, rings=[4], nonzero=True),
    "empty_rings": case(TWO_SQUARES, ring_mode=1, rings=[0, 0, 4, 4]),
    "tiny_rings": case(SQUARE + TRIANGLE, ring_mode=1, rings=[1, 1, 1]),
    "bad_ring_ends": case(SQUARE, ring_mode=2, rings=[3, 2]),
    "ring_ends_past_end": case(SQUARE, ring_mode=2, rings=[9]),
    "no_rings": case([], ring_mode=3),
    "no_vertices": case([]),
    "one_vertex": case(g((3, 3))),
    "two_vertices": case(g((3, 3), (9, 9))),
    "empty_window": case(SQUARE, rows=0, cols=5),
    "negative_window": case(SQUARE, rows=3, negative_height=True),
    "window_offset": case(SQUARE, row0=-7, col0=5),
    "window_far": case(SQUARE, row0=32767, col0=-32768, far=True),
    "nan_vertex": case(SQUARE[:2] + [(grid(5), special(NAN))] + SQUARE[2:]),
    "inf_vertices": case([(special(NEG_INF), grid(1)), (grid(10), special(INF)), (special(INF), grid(10))]),
    "huge_vertices": case([(special(NEG_MAX), grid(1)), (special(MAX), grid(3)), (grid(8), special(MAX))]),
    "huge_overflow_cross": case([(special(NEG_MAX), special(NEG_MAX)), (special(MAX), grid(0)),
                                 (grid(5), special(MAX))]),
    "subnormal_vertices": case([(special(SUBNORMAL), special(NEG_SUBNORMAL)), (grid(10), special(SUBNORMAL)),
                                (grid(4), grid(9))]),
    "signed_zeros": case([(special(NEG_ZERO), special(ZERO)), (grid(6), special(NEG_ZERO)), (grid(3), grid(6))]),
    "int64_edges": case([(special(NEG_TWO_63), grid(0)), (special(TWO_63), grid(2)), (special(TWO_53), grid(12))]),
    "near_half": case([(special(HALF), special(BELOW_HALF)), (grid(10), special(HALF)), (grid(3), grid(8))]),
    "max_side": case([(special(MAX_SIDE), grid(0)), (grid(0), special(MAX_SIDE)), (grid(0), grid(0))]),
    "raw_doubles": case([(raw(1.0000000000000002), raw(0.9999999999999999)), (raw(7.3), raw(1e-310)),
                         (raw(3.999999), raw(11.000001))]),
    "float32_values": case([(single(0.1), single(0.3)), (single(9.7), single(2.2)), (single(4.4), single(9.9))]),
    "mixed_nan_rings": case(SQUARE + [(special(NAN), special(NAN))] + TRIANGLE, ring_mode=1, rings=[4, 5]),
}


def main() -> None:
    CORPUS.mkdir(exist_ok=True)
    for name, data in SEEDS.items():
        # Hand-written seeds carry a readable name; files named by a bare hash
        # were added by `scripts/fuzz.sh --merge` and are left alone.
        for stale in CORPUS.glob(f"{name}-*"):
            stale.unlink()
        digest = hashlib.sha1(data).hexdigest()[:8]
        (CORPUS / f"{name}-{digest}").write_bytes(data)
    print(f"wrote {len(SEEDS)} seeds, {sum(map(len, SEEDS.values()))} bytes, to {CORPUS}")


if __name__ == "__main__":
    main()
