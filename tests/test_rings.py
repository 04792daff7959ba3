"""Holes, multi-polygons and the nonzero fill rule in ``polymask.mask``.

Small literal masks show the conventions; every accepted input form (list
of rings, GeoJSON-like mapping, shapely, ``__geo_interface__``) must give the
same mask; random rings are checked against the slow references in
tests/_support.py, which flatten rings themselves.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polymask
from tests._support import double_rings_mask, exact_rings_mask, picture

# Overlapping rings are this file's subject: the warning that they are no holes
# (tests/test_input_mixups.py) is expected here.
pytestmark = pytest.mark.filterwarnings("ignore:.*so it is no hole:UserWarning")

OUTER = [(0, 0), (6, 0), (6, 6), (0, 6)]          # runs one way round
HOLE_SAME = [(2, 2), (4, 2), (4, 4), (2, 4)]      # the same way round
HOLE_REVERSED = HOLE_SAME[::-1]                   # the other way round


def rows_of(mask):
    return picture(mask).split("\n")


def test_hole_under_even_odd_whatever_its_direction():
    expected = ["######.",
                "######.",
                "##..##.",
                "##..##.",
                "######.",
                "######.",
                "......."]
    assert rows_of(polymask.mask([OUTER, HOLE_SAME], (7, 7))) == expected
    assert rows_of(polymask.mask([OUTER, HOLE_REVERSED], (7, 7))) == expected


def test_nonzero_keeps_a_hole_only_when_it_winds_the_other_way():
    filled = polymask.mask([OUTER, HOLE_SAME], (7, 7), fill_rule="nonzero")
    holed = polymask.mask([OUTER, HOLE_REVERSED], (7, 7), fill_rule="nonzero")
    assert filled[:6, :6].all() and filled.sum() == 36
    assert rows_of(holed) == rows_of(polymask.mask([OUTER, HOLE_SAME], (7, 7)))


def test_pentagram_centre_is_out_under_even_odd_and_in_under_nonzero():
    star = [(5, 0), (8, 10), (0, 4), (10, 4), (2, 10)]
    # Five points joined every second one: the inner pentagon is crossed
    # twice (even-odd: out) but wound once (nonzero: in).
    assert rows_of(polymask.mask(star, (11, 11))) == [
        "...........",
        ".....#.....",
        ".....#.....",
        ".....#.....",
        "####...###.",
        "..##...##..",
        "...#...#...",
        "...#..##...",
        "...##.##...",
        "...#...#...",
        "...........",
    ]
    assert rows_of(polymask.mask(star, (11, 11), fill_rule="nonzero")) == [
        "...........",
        ".....#.....",
        ".....#.....",
        ".....#.....",
        "##########.",
        "..#######..",
        "...#####...",
        "...#####...",
        "...##.##...",
        "...#...#...",
        "...........",
    ]


def test_overlapping_parts_cancel_under_even_odd_and_merge_under_nonzero():
    left, right = [(0, 0), (4, 0), (4, 2), (0, 2)], [(2, 0), (6, 0), (6, 2), (2, 2)]
    assert rows_of(polymask.mask([left, right], (2, 7))) == ["##..##.", "##..##."]
    assert rows_of(polymask.mask([left, right], (2, 7), fill_rule="nonzero")) == ["######.", "######."]


def test_single_ring_list_is_still_one_ring():
    triangle = [(0, 0), (3, 0), (0, 3)]
    assert np.array_equal(polymask.mask(triangle, (4, 4)), polymask.mask(np.array(triangle, float), (4, 4)))
    assert np.array_equal(polymask.mask([triangle], (4, 4)), polymask.mask(triangle, (4, 4)))


class GeoThing:
    """Any object that speaks __geo_interface__ (as shapely, geopandas rows... do)."""

    def __init__(self, mapping):
        self.mapping = mapping

    @property
    def __geo_interface__(self):
        return self.mapping


def closed(ring):
    return [*ring, ring[0]]  # GeoJSON repeats the first vertex


PART_B = [(8, 1), (11, 1), (11, 5)]
FORMS = {
    "list of lists": [OUTER, HOLE_SAME, PART_B],
    "tuple of arrays": tuple(np.array(ring, float) for ring in (OUTER, HOLE_SAME, PART_B)),
    "geojson polygons": {"type": "MultiPolygon",
                         "coordinates": [[closed(OUTER), closed(HOLE_SAME)], [closed(PART_B)]]},
    "geojson feature": {"type": "Feature", "properties": {},
                        "geometry": {"type": "MultiPolygon",
                                     "coordinates": [[OUTER, HOLE_SAME], [PART_B]]}},
    "geo interface": GeoThing({"type": "MultiPolygon", "coordinates": [[OUTER, HOLE_SAME], [PART_B]]}),
}


@pytest.mark.parametrize("fill_rule", ["evenodd", "nonzero"])
@pytest.mark.parametrize("form", list(FORMS))
def test_every_input_form_gives_the_reference_mask(form, fill_rule):
    expected = double_rings_mask([OUTER, HOLE_SAME, PART_B], (8, 13), fill_rule)
    assert np.array_equal(polymask.mask(FORMS[form], (8, 13), fill_rule=fill_rule), expected), form


def test_geojson_polygon_with_hole():
    geometry = {"type": "Polygon", "coordinates": [closed(OUTER), closed(HOLE_REVERSED)]}
    expected = exact_rings_mask([OUTER, HOLE_REVERSED], (7, 7))
    assert np.array_equal(polymask.mask(geometry, (7, 7)), expected)
    assert np.array_equal(polymask.mask(geometry, (7, 7), fill_rule="nonzero"), expected)


def test_shapely_polygon_and_multipolygon():
    shapely = pytest.importorskip("shapely")
    holed = shapely.Polygon(OUTER, [HOLE_REVERSED])
    both = shapely.MultiPolygon([holed, shapely.Polygon(PART_B)])
    for rule in ("evenodd", "nonzero"):
        assert np.array_equal(polymask.mask(holed, (8, 13), fill_rule=rule),
                              exact_rings_mask([OUTER, HOLE_REVERSED], (8, 13), rule))
        assert np.array_equal(polymask.mask(both, (8, 13), fill_rule=rule),
                              exact_rings_mask([OUTER, HOLE_REVERSED, PART_B], (8, 13), rule))


def test_empty_and_degenerate_rings_are_not_errors():
    assert not polymask.mask({"type": "Polygon", "coordinates": []}, (3, 3)).any()
    assert not polymask.mask([[(0, 0), (2, 2)], [(1, 1)]], (3, 3)).any()
    with_empty = polymask.mask([OUTER, np.zeros((0, 2))], (7, 7))
    assert np.array_equal(with_empty, polymask.mask(OUTER, (7, 7)))


BAD_RINGS = [
    ([OUTER, [(0, 0), (float("nan"), 1), (2, 2)]], ValueError, r"vertices\[1\]\[1\] = \(nan, 1.0\) is not finite"),
    ([OUTER, [(0, 0, 0), (1, 1, 1)]], ValueError, r"vertices\[1\] must have shape \(N, 2\).*\(2, 3\)"),
    ([OUTER, "abc"], TypeError, r"vertices\[1\] must be an \(N, 2\)"),
    ({"type": "Point", "coordinates": [0, 0]}, ValueError, "Polygon or MultiPolygon.*got type 'Point'"),
    ({"type": "Polygon"}, ValueError, "without 'coordinates'"),
    ({"type": "Polygon", "coordinates": 5}, TypeError, r"vertices\['coordinates'\] must be a sequence of rings, got 5"),
    ({"type": "MultiPolygon", "coordinates": [[OUTER], [[(0, 0), (1, float("inf")), (2, 0)]]]}, ValueError,
     r"vertices\['coordinates'\]\[1\]\[0\]\[1\] = \(1.0, inf\) is not finite"),
    ({"type": "Feature", "geometry": None}, TypeError, "Feature without a geometry"),
]


@pytest.mark.parametrize("vertices,error,message", BAD_RINGS, ids=range(len(BAD_RINGS)))
def test_bad_rings_name_the_ring_and_value(vertices, error, message):
    with pytest.raises(error, match=message):
        polymask.mask(vertices, (5, 5))


@pytest.mark.parametrize("fill_rule", ["even-odd", "EVENODD", None, 1])
def test_unknown_fill_rule_lists_the_choices(fill_rule):
    with pytest.raises(ValueError, match=r"fill_rule must be one of 'evenodd', 'nonzero', got"):
        polymask.mask(OUTER, (5, 5), fill_rule=fill_rule)


@pytest.mark.parametrize("options,named", [
    ({"vertices": [OUTER, HOLE_SAME]}, "several rings"),
    ({"fill_rule": "nonzero"}, "fill_rule='nonzero'"),
])
def test_teaching_stages_refuse_what_only_the_core_does(options, named):
    # The numpy stage runs everywhere; the refusal comes before it is called.
    arguments = {"vertices": OUTER, **options}
    with pytest.raises(ValueError, match=f"backend 'numpy' fills one ring.*{named}.*backend='scanline'"):
        polymask.mask(arguments.pop("vertices"), (5, 5), backend="numpy", **arguments)


coordinate = st.floats(-3.0, 25.0, allow_nan=False, width=64)
ring = st.lists(st.tuples(coordinate, coordinate), min_size=0, max_size=10)
grid_coordinate = st.integers(-3, 25)
grid_ring = st.lists(st.tuples(grid_coordinate, grid_coordinate), min_size=3, max_size=8)


@settings(max_examples=150, deadline=None)
@given(rings=st.lists(ring, min_size=1, max_size=4), fill_rule=st.sampled_from(["evenodd", "nonzero"]))
def test_random_rings_equal_the_double_rule(rings, fill_rule):
    expected = double_rings_mask(rings, (22, 23), fill_rule)
    assert np.array_equal(polymask.mask(rings, (22, 23), fill_rule=fill_rule), expected), picture(expected)


@settings(max_examples=60, deadline=None)
@given(rings=st.lists(grid_ring, min_size=1, max_size=3), fill_rule=st.sampled_from(["evenodd", "nonzero"]))
def test_random_integer_rings_equal_exact_arithmetic(rings, fill_rule):
    expected = exact_rings_mask(rings, (16, 17), fill_rule)
    assert np.array_equal(polymask.mask(rings, (16, 17), fill_rule=fill_rule), expected), picture(expected)
