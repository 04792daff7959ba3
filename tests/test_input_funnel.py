"""One funnel: an input's layout is recognised once, and its
conversion visits each input module once.

(a) Through the public functions, ``polymask._layouts.layout_of`` runs exactly
once per input (a collection: once, plus once per member of a plain sequence),
and every layout gives the mask of the same polygon handed in as plain rings.

(b) A trace of ``polymask._inputs.polygon`` / ``polygons``.  The rule: a
module is *entered* at every 'call' event (sys.setprofile) of a Python
function whose code belongs to it (its frame's globals), comprehensions,
generators and methods such as ``Rings.__init__`` included.  Collapse
consecutive repeats; no module may then appear twice.  So if A calls B and,
after B returns, A calls one of A's own functions again, that counts as a
return to A and fails; only code running on inline in a frame of A that is
already active (the funnel's own body, between its calls) is not an entry.
The rule holds for accepted inputs; a refusal may step back (a layout hint,
a sequence re-read member by member to name its first bad member).
"""
from __future__ import annotations

import sys

import numpy as np
import pytest

import polymask
from polymask import _inputs, _layouts

OUTER = [(1.0, 1.0), (9.0, 1.0), (9.0, 9.0), (1.0, 9.0)]
HOLE = [(3.0, 3.0), (6.0, 3.0), (6.0, 6.0), (3.0, 6.0)]
TRIANGLE = [(12.0, 1.0), (17.0, 1.0), (14.0, 6.0)]
SHAPE = (20, 20)
WHOLE = (0, 0) + SHAPE  # a window: keeps polymask.mask off its one-call branch

INPUT_MODULES = ("polymask._inputs", "polymask._layouts", "polymask._annotations", "polymask._geojson",
                 "polymask._geometries", "polymask._sequences", "polymask._validation", "polymask._transform",
                 "polymask._rings")


def _closed(ring):
    return [list(point) for point in ring] + [list(ring[0])]


def _flat(ring):
    return [value for point in ring for value in point]


def _contour(ring):
    return np.array(ring, dtype=np.int32).reshape(-1, 1, 2)


def _one_polygon_cases():
    shapely = pytest.importorskip("shapely")
    geo_polygon = {"type": "Polygon", "coordinates": [_closed(OUTER), _closed(HOLE)]}
    triangle = {"type": "Polygon", "coordinates": [_closed(TRIANGLE)]}
    hierarchy = np.array([[[-1, -1, 1, -1], [-1, -1, -1, 0]]], dtype=np.int32)
    return {  # id: (value, layout, the same polygon as plain rings)
        "ndarray ring": (np.array(OUTER), "ARRAY_RING", [OUTER]),
        "list of tuples": (OUTER, "POINTS", [OUTER]),
        "rings with a hole": ([OUTER, HOLE], "RING_LIST", [OUTER, HOLE]),
        "GeoJSON Polygon": (geo_polygon, "GEOJSON", [OUTER, HOLE]),
        "GeoJSON MultiPolygon": ({"type": "MultiPolygon", "coordinates": [geo_polygon["coordinates"],
                                                                          triangle["coordinates"]]},
                                 "GEOJSON", [OUTER, HOLE, TRIANGLE]),
        "GeoJSON Feature": ({"type": "Feature", "properties": {}, "geometry": geo_polygon}, "GEOJSON", [OUTER, HOLE]),
        "GeoJSON GeometryCollection": ({"type": "GeometryCollection", "geometries": [geo_polygon, triangle]},
                                       "GEOJSON", [OUTER, HOLE, TRIANGLE]),
        "shapely Polygon": (shapely.Polygon(OUTER, [HOLE]), "SHAPELY", [OUTER, HOLE]),
        "shapely MultiPolygon": (shapely.MultiPolygon([shapely.Polygon(OUTER, [HOLE]), shapely.Polygon(TRIANGLE)]),
                                 "SHAPELY", [OUTER, HOLE, TRIANGLE]),
        "COCO flat list": (_flat(OUTER), "COCO_FLAT", [OUTER]),
        "COCO segmentation": ([_flat(OUTER), _flat(TRIANGLE)], "COCO_SEGMENTATION", None),  # parts united
        "OpenCV contour": (_contour(OUTER), "CONTOUR", [OUTER]),
        "OpenCV contour list": ([_contour(OUTER), _contour(HOLE)], "CONTOUR_LIST", [OUTER, HOLE]),
        "findContours pair": (([_contour(OUTER), _contour(HOLE)], hierarchy), "CONTOURS_WITH_HIERARCHY",
                              [OUTER, HOLE]),
    }


def _collection_cases():
    shapely = pytest.importorskip("shapely")
    squares = np.array([OUTER, [(x + 10, y + 8) for x, y in OUTER]])
    padded = np.full((2, 4, 2), np.nan)
    padded[0] = OUTER
    padded[1, :3] = TRIANGLE
    features = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [_closed(ring)]}}
        for ring in (OUTER, TRIANGLE)]}
    hierarchy = np.array([[[-1, -1, 1, -1], [-1, -1, -1, 0]]], dtype=np.int32)
    cases = {  # id: (value, layout, the same polygons as plain rings, layout_of calls)
        "(P, N, 2) array": (squares, "STACKED_ARRAY", [[ring] for ring in squares.tolist()], 1),
        "padded NaN array": (padded, "PADDED", [[OUTER], [TRIANGLE]], 1),
        "list of arrays": ([np.array(OUTER), np.array(TRIANGLE)], "ARRAY_LIST", [[OUTER], [TRIANGLE]], 1),
        "shapely object array": (np.array([shapely.Polygon(OUTER, [HOLE]), shapely.Polygon(TRIANGLE)], dtype=object),
                                 "SHAPELY_ARRAY", [[OUTER, HOLE], [TRIANGLE]], 1),
        "FeatureCollection": (features, "FEATURE_COLLECTION", [[OUTER], [TRIANGLE]], 3),
        "sequence of polygons": ([[OUTER, HOLE], TRIANGLE], "SEQUENCE", [[OUTER, HOLE], [TRIANGLE]], 3),
        "findContours pair": (([_contour(OUTER), _contour(HOLE)], hierarchy), "CONTOURS_WITH_HIERARCHY",
                              [[OUTER, HOLE]], 1),
    }
    try:
        import geopandas
    except ImportError:
        return cases
    frame = geopandas.GeoDataFrame({"value": [1, 2]},
                                   geometry=[shapely.Polygon(OUTER, [HOLE]), shapely.Polygon(TRIANGLE)])
    cases["GeoDataFrame"] = (frame, "SHAPELY_ARRAY", [[OUTER, HOLE], [TRIANGLE]], 1)
    return cases


def _plain(rings):
    return [np.array(ring, dtype=np.float64) for ring in rings]


@pytest.fixture
def recognitions(monkeypatch):
    """The layouts layout_of returns, in order, while the test runs."""
    seen = []
    original = _layouts.layout_of

    def counting(value, many=False):
        layout = original(value, many)
        seen.append(layout)
        return layout

    monkeypatch.setattr(_layouts, "layout_of", counting)
    return seen


@pytest.mark.parametrize("case", list(_one_polygon_cases()))
def test_one_polygon_is_recognised_once_and_means_its_rings(case, recognitions):
    value, layout, rings = _one_polygon_cases()[case]
    got = polymask.mask(value, SHAPE, window=WHOLE)
    assert [item.name for item in recognitions] == [layout]
    if rings is None:  # a COCO segmentation: the union of its parts (polymask.mask unites them)
        expected = polymask.mask(_plain([OUTER]), SHAPE) | polymask.mask(_plain([TRIANGLE]), SHAPE)
    else:
        expected = polymask.mask(_plain(rings), SHAPE)
    assert got.any()
    np.testing.assert_array_equal(got, expected)
    if rings is not None:  # coverage reads its polygon through the same funnel
        recognitions.clear()
        fractions = polymask.coverage(value, SHAPE)
        assert len(recognitions) == 1
        np.testing.assert_array_equal(fractions, polymask.coverage(_plain(rings), SHAPE))


def test_a_ring_in_the_cores_form_is_recognised_by_the_one_call_branch_alone(recognitions):
    """polymask.mask's one-call branch knows a C-contiguous float64 ring by the funnel's one-step test
    (the one as_vertices starts with); a ring it hands back is recognised once, by layout_of."""
    ring = np.array(OUTER)
    plain = polymask.mask(ring, SHAPE)
    assert recognitions == []
    for handed_back in (OUTER, ring.astype(np.int64), np.asfortranarray(ring)):
        assert np.array_equal(polymask.mask(handed_back, SHAPE), plain)
        assert len(recognitions) == 1
        recognitions.clear()
    np.testing.assert_array_equal(plain, polymask.mask(ring, SHAPE, window=WHOLE))


@pytest.mark.parametrize("case", list(_collection_cases()))
def test_a_collection_is_recognised_once_and_means_its_rings(case, recognitions):
    value, layout, polygons, calls = _collection_cases()[case]
    got = polymask.rasterize(value, SHAPE)
    assert recognitions[0].name == layout and len(recognitions) == calls
    expected = polymask.rasterize([_plain(rings) for rings in polygons], SHAPE)
    assert got.any()
    np.testing.assert_array_equal(got, expected)


# -- (b) the trace ------------------------------------------------------------


def _trace(call, counted=INPUT_MODULES.__contains__) -> list[str]:
    """The modules `counted` picks (the input modules) entered by 'call' events while `call()` runs,
    consecutive repeats collapsed."""
    entered = []

    def profile(frame, event, arg):
        if event == "call":
            module = frame.f_globals.get("__name__")
            if module and counted(module) and (not entered or entered[-1] != module):
                entered.append(module)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return entered


def _returns(sequence: list[str]) -> list[str]:
    """The modules a collapsed trace enters again after leaving them."""
    collapsed = [module for k, module in enumerate(sequence) if k == 0 or sequence[k - 1] != module]
    return sorted({module for k, module in enumerate(collapsed) if module in collapsed[:k]})


def test_the_trace_check_catches_a_return():
    assert _returns(["a", "a", "b", "c", "c"]) == []
    assert _returns(["a", "b", "a"]) == ["a"]  # A calls B, then one of A's own functions: a return
    assert _returns(["a", "b", "c", "b", "d"]) == ["b"]


def _check_order(entered: list[str]) -> None:
    assert _returns(entered) == [], entered
    assert entered[:2] == ["polymask._inputs", "polymask._layouts"], entered
    steps = [module for module in entered if module in ("polymask._validation", "polymask._transform",
                                                         "polymask._rings")]
    assert steps == sorted(steps, key=["polymask._validation", "polymask._transform", "polymask._rings"].index)
    assert entered[-1] == "polymask._rings"  # the result is built last


IDENTITY = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0)


@pytest.mark.parametrize("case", list(_one_polygon_cases()))
@pytest.mark.parametrize("transform", [None, IDENTITY])
def test_one_polygon_visits_each_input_module_once(case, transform):
    value = _one_polygon_cases()[case][0]
    _inputs.polygon(value, transform, unite_parts=True)  # warm: first-time imports (shapely) stay out
    _check_order(_trace(lambda: _inputs.polygon(value, transform, unite_parts=True)))


@pytest.mark.parametrize("case", list(_collection_cases()))
@pytest.mark.parametrize("transform", [None, IDENTITY])
def test_a_collection_visits_each_input_module_once(case, transform):
    value = _collection_cases()[case][0]
    _inputs.polygons(value, transform)
    _check_order(_trace(lambda: _inputs.polygons(value, transform)))


def test_a_mixed_sequence_visits_each_input_module_once():
    shapely = pytest.importorskip("shapely")
    mixed = [np.array(OUTER), {"type": "Polygon", "coordinates": [_closed(TRIANGLE)]}, [OUTER, HOLE],
             _flat(TRIANGLE), shapely.Polygon(OUTER), _contour(OUTER), OUTER, {"type": "Polygon", "coordinates": []}]
    entered = _trace(lambda: _inputs.polygons(mixed, IDENTITY))
    _check_order(entered)
    for module in ("polymask._annotations", "polymask._geojson", "polymask._geometries", "polymask._sequences"):
        assert module in entered
    plain = [_plain([OUTER]), _plain([TRIANGLE]), _plain([OUTER, HOLE]), _plain([TRIANGLE]), _plain([OUTER]),
             _plain([OUTER]), _plain([OUTER]), []]
    np.testing.assert_array_equal(polymask.rasterize(mixed, SHAPE), polymask.rasterize(plain, SHAPE))
    assert _inputs.polygons(mixed).polygon_ends.tolist() == [1, 2, 4, 5, 6, 7, 8, 8]


def test_a_sequence_names_its_first_bad_member():
    """Members convert grouped by layout; a refusal still names the first bad one, as reading in order did."""
    bad = [[(0.0, 0.0), (float("nan"), 1.0), (2.0, 0.0)], {"type": "Point", "coordinates": [0, 0]}]
    with pytest.raises(ValueError, match=r"polygons\[0\]\[1\] = \(nan, 1\.0\) is not finite"):
        _inputs.polygons(bad)
    with pytest.raises(ValueError, match=r"polygons\[0\] must be a GeoJSON-like Polygon"):
        _inputs.polygons(bad[::-1])


@pytest.mark.parametrize("flat, error", [
    ([1.0, 1.0, 5.0, 1.0, 3.0], ValueError),                 # an odd count
    ([1.0, 1.0, "x", 1.0, 3.0, 4.0], TypeError),             # text among the numbers
    ([1.0, 1.0, None, 1.0, 3.0, 4.0], TypeError),
    ([1.0, 1.0, 5.0, float("nan"), 3.0, 4.0], ValueError),   # a non-finite vertex
], ids=["odd", "text", "none", "nan"])
def test_mask_and_coco_encode_read_flat_lists_with_one_reader(flat, error):
    """polymask.mask and polymask.coco.encode refuse a bad flat list with the same words."""
    from polymask import coco

    with pytest.raises(error) as by_mask:
        polymask.mask(flat, SHAPE)
    with pytest.raises(error) as by_encode:
        coco.encode([[flat]], *SHAPE)
    assert str(by_mask.value).replace("vertices", "objects[0][0]", 1) == str(by_encode.value)


def test_a_flat_list_gives_the_mask_of_its_vertices_by_mask_and_coco_encode():
    from polymask import coco

    flat = [1.5, 1.0, 9.0, 2.5, 6.0, 8.0, 2.0, 6.5]
    ring = np.reshape(flat, (-1, 2))
    assert np.array_equal(polymask.mask(flat, SHAPE), polymask.mask(ring, SHAPE))
    cells = polymask.mask(ring, SHAPE, transform=(1, 0, 0, 0, 1, 0))  # COCO's pixels are cells
    assert np.array_equal(coco.decode(coco.encode([[flat]], *SHAPE)[0]).astype(bool), cells)


MASK_CALLS = {  # id: (vertices, keyword arguments)
    "ndarray ring": (np.array(OUTER), {}),
    "ndarray ring, out=": (np.array(OUTER), {"out": np.zeros(SHAPE, dtype=bool)}),
    "list of tuples": (OUTER, {}),
    "rings with a hole": ([OUTER, HOLE], {}),
    "window": (np.array(OUTER), {"window": WHOLE}),
    "transform": (np.array(OUTER), {"transform": IDENTITY}),
    "all_touched": (OUTER, {"all_touched": "exact"}),
    "nonzero": ([OUTER, HOLE], {"fill_rule": "nonzero"}),
}


@pytest.mark.parametrize("case", list(MASK_CALLS))
def test_a_mask_call_returns_to_no_module_it_left(case):
    """The whole walk of polymask.mask, every module of the package counted: none entered twice."""
    vertices, options = MASK_CALLS[case]
    polymask.mask(vertices, SHAPE, **options)  # warm: first-time imports stay out
    entered = _trace(lambda: polymask.mask(vertices, SHAPE, **options), lambda module: module.startswith("polymask"))
    assert entered[0] == "polymask._api"
    assert _returns(entered) == [], entered
