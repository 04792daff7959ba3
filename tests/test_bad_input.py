"""The bad-input table: every odd thing a caller may pass to ``polymask.mask``.

Each row of the table is one input.  It either *works*, and then the mask is
compared for equality with the independent float64 reference
(tests/_support.py's ``double_mask``), or it raises ValueError, TypeError or
MemoryError with a message that names what was received.  Never a crash,
never a silently wrong mask.  Every row runs on every backend that is
available here (``polymask.available_backends()``), so a stage that skips
validation or mishandles a layout shows up by name.  When a call that was
given ``out=`` fails, ``out`` must be left untouched.

tests/test_errors.py pins the exact wording of the errors; this file is the
systematic sweep over input *kinds*: containers, dtypes, memory layouts,
dimensions, special values, shapes and output buffers.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pytest

import polymask
import polymask.course.stages
from tests._support import double_mask, picture

SHAPE = (12, 13)
#: A concave polygon with non-integer vertices: most pixels' answers depend on real arithmetic.
POLYGON = [(1.5, 0.5), (11.25, 2.0), (6.0, 5.5), (10.5, 11.0), (0.5, 8.75)]
INT_POLYGON = [(1, 0), (11, 2), (6, 5), (10, 11), (0, 9)]


def available_backends() -> list[str]:
    return [name for name, (ok, _) in polymask.available_backends().items() if ok]


BACKENDS = available_backends()


@dataclass
class Case:
    """One row: the arguments, and either the expected mask's inputs or the error."""

    id: str
    vertices: object = field(default_factory=lambda: POLYGON)
    shape: object = SHAPE
    kwargs: dict = field(default_factory=dict)
    #: For rows that work: the polygon and shape the reference is computed from
    #: (default: `vertices` read as float64, and `shape`).
    expect_vertices: object = None
    expect_shape: tuple | None = None
    #: For rows that fail: the exception type and a regex its message must match.
    error: type | None = None
    match: str = ""
    #: Rows that only the scanline core accepts (windows, fill rules):
    #: teaching stages must refuse them with a ValueError instead.
    core_only: bool = False


def _strided(points, step=2):
    """`points` as a non-contiguous view: every `step`-th column of a wider array."""
    wide = np.zeros((len(points), 2 * step))
    wide[:, ::step] = points
    view = wide[:, ::step]
    assert not view.flags.c_contiguous
    return view


def _read_only(array):
    array = np.array(array)
    array.flags.writeable = False
    return array


def _out(dtype=bool, shape=SHAPE, fill=1, order="C", writeable=True):
    out = np.full(shape, fill, dtype=dtype, order=order)
    out.flags.writeable = writeable
    return out


P = np.array(POLYGON)

# ---- vertices -------------------------------------------------------------------------
WORKING_VERTICES = [
    Case("list of tuples"),
    Case("list of lists", [list(p) for p in POLYGON]),
    Case("tuple of tuples", tuple(POLYGON)),
    Case("python ints", INT_POLYGON),
    Case("int32 array", np.array(INT_POLYGON, np.int32)),
    Case("uint8 array", np.array(INT_POLYGON, np.uint8)),
    Case("int64 array", np.array(INT_POLYGON, np.int64)),
    # float32 is widened, never computed in: the reference uses the same widened values.
    Case("float32 array", np.array([(1.1, 0.3), (11.7, 2.9), (0.7, 10.1)], np.float32),
         expect_vertices=np.array([(1.1, 0.3), (11.7, 2.9), (0.7, 10.1)], np.float32).astype(np.float64)),
    Case("float16 array", np.array(POLYGON, np.float16)),
    Case("big-endian float64", P.astype(">f8")),
    Case("non-contiguous view", _strided(POLYGON)),
    Case("Fortran order", np.asfortranarray(P)),
    Case("reversed view (negative strides)", P[::-1], expect_vertices=P[::-1].copy()),
    Case("transposed (2, N) read as .T", P.T.copy().T),
    Case("read-only array", _read_only(POLYGON)),
    Case("object array of floats", np.array(POLYGON, dtype=object)),
    Case("Fractions", [(Fraction(3, 2), Fraction(1, 2)), (Fraction(45, 4), 2), (Fraction(1, 2), Fraction(35, 4))],
         expect_vertices=[(1.5, 0.5), (11.25, 2.0), (0.5, 8.75)]),
    Case("numpy scalars", [(np.float64(x), np.int16(round(y))) for x, y in POLYGON],
         expect_vertices=[(x, float(round(y))) for x, y in POLYGON]),
    Case("empty list", [], expect_vertices=np.zeros((0, 2))),
    Case("empty (0, 2) array", np.zeros((0, 2)), expect_vertices=np.zeros((0, 2))),
    Case("one vertex", [(5.5, 5.5)]),
    Case("two vertices", [(0, 0), (10, 10)]),
    Case("repeated vertices", [(1, 1)] * 3 + [(9, 1), (9, 1), (5, 9)]),
    Case("zero area", [(0, 0), (5, 5), (10, 10)]),
    Case("far outside", [(1e15, 1e15), (2e15, 1e15), (1e15, 3e15)]),
    Case("around the image from far away", [(-1e12, -1e12), (1e12, -1e12), (1e12, 1e12), (-1e12, 1e12)]),
    # Finite but so large that x_cross overflows to inf or NaN: part of the rule, not an error.
    Case("huge finite", [(-1.7e308, -1.7e308), (1.7e308, 5.5), (3.0, 1.7e308)]),
    Case("subnormal", [(5e-324, -5e-324), (10.0, 2.2250738585072014e-308), (4.0, 9.0)]),
    Case("negative zero", [(-0.0, -0.0), (10.0, -0.0), (-0.0, 10.0)]),
]

BAD_VERTICES = [
    Case("None", None, error=TypeError, match="got None"),
    Case("a string", "triangle", error=TypeError, match="'triangle'"),
    Case("bytes", b"\x00" * 16, error=TypeError, match="got b'"),
    Case("an int", 5, error=TypeError, match=r"got 5 \(type int\)"),
    Case("a float", 2.5, error=TypeError, match=r"got 2\.5 \(type float\)"),
    Case("1-D array", P.ravel(), error=ValueError, match=r"\(N, 2\).*\(10,\)"),
    Case("3-D array", P[None], error=ValueError, match=r"\(1, 5, 2\)"),
    Case("(N, 3) array", np.zeros((4, 3)), error=ValueError, match=r"\(N, 2\).*\(4, 3\)"),
    Case("(N, 1) array", np.zeros((4, 1)), error=ValueError, match=r"\(4, 1\)"),
    Case("ragged list", [(0, 0), (1, 2, 3), (4,)], error=ValueError, match=r"could not read \[\(0, 0\), \(1, 2, 3\)"),
    Case("NaN", [(0, 0), (10, float("nan")), (0, 10)], error=ValueError, match=r"vertices\[1\] = \(10\.0, nan\)"),
    Case("+inf", [(0, 0), (np.inf, 5), (0, 10)], error=ValueError, match=r"vertices\[1\] = \(inf, 5\.0\)"),
    Case("-inf", [(0, 0), (5, 5), (0, -np.inf)], error=ValueError, match=r"vertices\[2\].*-inf"),
    Case("NaN in float32", np.array([(0, 0), (5, np.nan), (0, 9)], np.float32), error=ValueError,
         match=r"vertices\[1\].*nan"),
    Case("NaN in a strided view", _strided([(0, 0), (5, np.nan), (0, 9)]), error=ValueError,
         match=r"vertices\[1\].*nan"),
    Case("inf in Fortran order", np.asfortranarray([(0.0, 0.0), (5.0, 5.0), (np.inf, 9.0)]), error=ValueError,
         match=r"vertices\[2\].*inf"),
    Case("float beyond float64", [(10**400, 0), (1, 1), (2, 2)], error=TypeError, match="float64"),
    # None and text in an object array are named, not read as NaN or parsed.
    Case("object array with None", np.array([(0, None), (1, 1), (2, 2)], dtype=object), error=TypeError,
         match=r"vertices\[0, 1\] is None"),
    Case("object array with a string", np.array([(0, "x"), (1, 1), (2, 2)], dtype=object), error=TypeError,
         match="real numbers"),
    Case("object array of numeric strings", np.array([("0", "0"), ("9", "0"), ("0", "9")], dtype=object),
         error=TypeError, match=r"vertices\[0, 0\] is '0' \(type str\)"),
    Case("object array with bytes", np.array([(0, 0), (9, b"1"), (0, 9)], dtype=object), error=TypeError,
         match=r"vertices\[1, 1\] is b'1'"),
    Case("object array with a NumPy string", np.array([(0, 0), (9, 1), (np.str_("0.5"), 9)], dtype=object),
         error=TypeError, match=r"vertices\[2, 0\] is np.str_\('0.5'\)"),
    Case("object array all None", np.full((3, 2), None, dtype=object), error=TypeError,
         match=r"vertices\[0, 0\] is None"),
    Case("strings", [("0", "0"), ("1", "0"), ("0", "1")], error=TypeError, match="real numbers"),
    Case("complex", np.array(POLYGON, complex), error=TypeError, match="complex"),
    Case("bool", np.ones((4, 2), bool), error=TypeError, match="bool"),
    Case("datetime64", np.zeros((3, 2), "datetime64[s]"), error=TypeError, match="datetime64"),
    Case("a set", {(0, 0), (1, 1), (0, 2)}, error=TypeError, match=r"\(type set\)"),
]

# ---- shapes -------------------------------------------------------------------------
WORKING_SHAPES = [
    Case("shape as a list", shape=[12, 13], expect_shape=(12, 13)),
    Case("shape as an array", shape=np.array([12, 13]), expect_shape=(12, 13)),
    Case("shape of numpy ints", shape=(np.int32(12), np.uint64(13)), expect_shape=(12, 13)),
    Case("1x1 image", shape=(1, 1)),
    Case("one row", shape=(1, 20)),
    Case("one column", shape=(20, 1)),
]

BAD_SHAPES = [
    Case("shape None", shape=None, error=TypeError, match="rows, cols.*None"),
    Case("shape an int", shape=12, error=TypeError, match="got 12"),
    Case("shape of one", shape=(12,), error=ValueError, match="got 1 values"),
    Case("shape of three", shape=(12, 13, 3), error=ValueError, match="got 3 values"),
    Case("zero rows", shape=(0, 13), error=ValueError, match="rows must be at least 1, got 0"),
    Case("zero cols", shape=(12, 0), error=ValueError, match="cols must be at least 1, got 0"),
    Case("negative rows", shape=(-12, 13), error=ValueError, match="got -12"),
    Case("negative cols", shape=(12, -1), error=ValueError, match="got -1"),
    Case("float rows", shape=(12.0, 13), error=TypeError, match="rows must be an integer, got 12.0"),
    Case("fractional cols", shape=(12, 13.5), error=TypeError, match="got 13.5"),
    Case("numpy float side", shape=(np.float64(12), 13), error=TypeError, match="rows must be an integer"),
    Case("string side", shape=("12", 13), error=TypeError, match="'12'"),
    Case("bool side", shape=(True, 13), error=TypeError, match="got True"),
    Case("side beyond the limit", shape=(2**31, 13), error=ValueError, match="at most 2147483647, got 2147483648"),
    Case("side beyond int64", shape=(12, 2**70), error=ValueError, match="at most"),
    Case("too large to allocate", shape=(2**31 - 1, 2**31 - 1), error=MemoryError,
         match="cannot allocate a 2147483647x2147483647 mask"),
]

# ---- out= ---------------------------------------------------------------------------
WORKING_OUTS = [
    Case("out bool", kwargs={"out": lambda: _out(bool, fill=True)}),
    Case("out uint8 full of garbage", kwargs={"out": lambda: _out(np.uint8, fill=7)}),
]

BAD_OUTS = [
    Case("out read-only", kwargs={"out": lambda: _out(writeable=False)}, error=ValueError, match="writable"),
    Case("out wrong shape", kwargs={"out": lambda: _out(shape=(13, 12))}, error=ValueError,
         match=r"shape \(12, 13\), got \(13, 12\)"),
    Case("out 1-D", kwargs={"out": lambda: _out(shape=(156,))}, error=ValueError, match=r"got \(156,\)"),
    Case("out 3-D", kwargs={"out": lambda: _out(shape=(12, 13, 1))}, error=ValueError, match=r"got \(12, 13, 1\)"),
    Case("out int8", kwargs={"out": lambda: _out(np.int8)}, error=TypeError, match="got int8"),
    Case("out int64", kwargs={"out": lambda: _out(np.int64)}, error=TypeError, match="got int64"),
    Case("out float32", kwargs={"out": lambda: _out(np.float32)}, error=TypeError, match="got float32"),
    Case("out non-contiguous", kwargs={"out": lambda: _out(shape=(12, 26))[:, ::2]}, error=ValueError,
         match="C-contiguous"),
    Case("out Fortran order", kwargs={"out": lambda: _out(order="F")}, error=ValueError, match="C-contiguous"),
    Case("out a list", kwargs={"out": lambda: [[False] * 13] * 12}, error=TypeError, match="got \\[\\["),
]

# ---- threads, fill rule, window -----------------------------------------------------
WORKING_OPTIONS = [
    Case("threads None", kwargs={"threads": None}),
    Case("threads 1", kwargs={"threads": 1}),
    Case("threads 3", kwargs={"threads": 3}),
    Case("threads numpy int", kwargs={"threads": np.int64(2)}),
    Case("window", kwargs={"window": (2, 3, 7, 8)}, core_only=True),
    Case("empty window", kwargs={"window": (4, 4, 0, 5)}, core_only=True),
    Case("fill_rule nonzero", kwargs={"fill_rule": "nonzero"}, core_only=True),
]

BAD_OPTIONS = [
    Case("threads negative", kwargs={"threads": -1}, error=ValueError, match="got -1"),
    Case("threads huge", kwargs={"threads": 10**9}, error=ValueError, match="got 1000000000"),
    Case("threads float", kwargs={"threads": 2.0}, error=TypeError, match="got 2.0"),
    Case("threads bool", kwargs={"threads": True}, error=TypeError, match="got True"),
    Case("fill_rule unknown", kwargs={"fill_rule": "even-odd"}, error=ValueError, match="'even-odd'"),
    Case("fill_rule None", kwargs={"fill_rule": None}, error=ValueError, match="got None"),
    Case("window outside", kwargs={"window": (10, 0, 5, 5)}, error=ValueError, match="reaches row 15"),
    Case("window negative", kwargs={"window": (-1, 0, 5, 5)}, error=ValueError, match="row0 must be at least 0"),
    Case("window floats", kwargs={"window": (0, 0, 5.0, 5)}, error=TypeError, match="height must be an integer"),
    Case("window of three", kwargs={"window": (0, 0, 5)}, error=ValueError, match="got 3 values"),
    Case("window an int", kwargs={"window": 5}, error=TypeError, match="got 5"),
    Case("backend unknown", kwargs={"backend": "gpu"}, error=ValueError, match="unknown backend 'gpu'"),
]

WORKING = WORKING_VERTICES + WORKING_SHAPES + WORKING_OUTS + WORKING_OPTIONS
BAD = BAD_VERTICES + BAD_SHAPES + BAD_OUTS + BAD_OPTIONS


def _expected(case: Case) -> np.ndarray:
    vertices = case.vertices if case.expect_vertices is None else case.expect_vertices
    shape = case.expect_shape or tuple(case.shape)
    kwargs = case.kwargs
    full = double_mask(np.asarray(vertices, dtype=np.float64).reshape(-1, 2), shape,
                       fill_rule=kwargs.get("fill_rule", "evenodd"))
    if "window" in kwargs:
        row0, col0, height, width = kwargs["window"]
        return full[row0:row0 + height, col0:col0 + width]
    return full


def _arguments(case: Case) -> dict:
    """The keyword arguments of `case`; out= buffers are built fresh for every call."""
    return {name: value() if callable(value) else value for name, value in case.kwargs.items()}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", WORKING, ids=[case.id for case in WORKING])
def test_input_that_works_gives_the_contract_mask(case, backend):
    if case.core_only and backend != "scanline":
        # The teaching stages fill one ring of the whole image under even-odd:
        # asking one for more must be a clear ValueError, not a wrong mask.
        with pytest.raises(ValueError, match="need the scanline core"):
            polymask.mask(case.vertices, case.shape, backend=backend, **_arguments(case))
        return
    kwargs = _arguments(case)
    result = polymask.mask(case.vertices, case.shape, backend=backend, **kwargs)
    expected = _expected(case)
    assert isinstance(result, np.ndarray)
    assert result.dtype == (kwargs["out"].dtype if "out" in kwargs else bool)
    assert result.shape == expected.shape
    if "out" in kwargs:
        assert result is kwargs["out"], "out= must be filled in place and returned"
        assert set(np.unique(result.view(np.uint8))) <= {0, 1}, "every byte of out must be rewritten"
    assert np.array_equal(result.astype(bool), expected), (
        f"{backend} on {case.id}:\n{picture(result)}\nexpected\n{picture(expected)}")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", BAD, ids=[case.id for case in BAD])
def test_bad_input_raises_a_clear_error(case, backend):
    kwargs = _arguments(case)
    out = kwargs.get("out")
    before = out.copy() if isinstance(out, np.ndarray) else None
    backend = kwargs.pop("backend", backend)
    with pytest.raises(case.error, match=case.match):
        polymask.mask(case.vertices, case.shape, backend=backend, **kwargs)
    if before is not None:
        assert np.array_equal(out, before), "a failed call must leave out= untouched"


def test_the_table_is_big_enough_to_mean_something():
    # The table covers many kinds of input; the counts guard against rows
    # silently dropping out of the table.
    assert len(WORKING) >= 40 and len(BAD) >= 60
    assert "scanline" in BACKENDS


# ---- the stage boundary: stage functions called directly -----------------------------------
# Learners and notebooks call ``stages.get(id).load()`` without polymask.mask's
# validation in front.  Every stage refuses a wrong shape with a ValueError
# (before: cython_cpp and cython_prange read 2N doubles from an (N, 1)
# array, and an (N, 3) array gave a wrong mask); the stages whose signature
# is a typed memoryview also refuse other dtypes and layouts with a
# ValueError instead of converting.  tests/test_crash_probes.py runs the
# crashing cases in a child process.

STAGE_BAD_SHAPES = [
    Case("stage (N, 1) array", np.ones((1000, 1)), error=ValueError, match=r"\(1000, 1\)|2 columns|\(N, 2\)"),
    Case("stage (N, 3) array", np.zeros((5, 3)), error=ValueError, match=r"\(5, 3\)|\(N, 2\)"),
    Case("stage 1-D array", np.zeros(6), error=ValueError, match=r"\(6,\)|dimensions|\(N, 2\)"),
    Case("stage 3-D array", np.zeros((2, 3, 2)), error=ValueError, match=r"\(2, 3, 2\)|dimensions|\(N, 2\)"),
]

#: Stages whose vertices parameter is ``const double[:, ::1]``: no conversion at the boundary.
TYPED_STAGES = ["cython_typed", "cython_cpp", "cython_prange"]

STAGE_BAD_LAYOUTS = [
    Case("stage int64 array", np.array(INT_POLYGON, np.int64), error=ValueError, match="dtype mismatch"),
    Case("stage float32 array", np.array(POLYGON, np.float32), error=ValueError, match="dtype mismatch"),
    Case("stage Fortran order", np.asfortranarray(P), error=ValueError, match="contiguous"),
    Case("stage strided view", _strided(POLYGON), error=ValueError, match="contiguous"),
]

STAGE_BAD = STAGE_BAD_SHAPES + STAGE_BAD_LAYOUTS


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", STAGE_BAD_SHAPES, ids=[case.id for case in STAGE_BAD_SHAPES])
def test_stage_functions_refuse_vertices_of_the_wrong_shape(case, backend):
    function = polymask.course.stages.get(backend).load()
    with pytest.raises(case.error, match=case.match):
        function(case.vertices, SHAPE)


@pytest.mark.parametrize("backend", [stage for stage in TYPED_STAGES if stage in BACKENDS])
@pytest.mark.parametrize("case", STAGE_BAD_LAYOUTS, ids=[case.id for case in STAGE_BAD_LAYOUTS])
def test_typed_stage_functions_refuse_other_dtypes_and_layouts(case, backend):
    function = polymask.course.stages.get(backend).load()
    with pytest.raises(case.error, match=case.match):
        function(case.vertices, SHAPE)


@pytest.mark.parametrize("backend", BACKENDS)
def test_stage_functions_take_the_array_polymask_mask_hands_them(backend):
    vertices = np.ascontiguousarray(POLYGON, dtype=np.float64)
    assert np.array_equal(polymask.course.stages.get(backend).load()(vertices, SHAPE), double_mask(vertices, SHAPE))
