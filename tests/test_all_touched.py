"""all_touched="exact": a pixel is in iff its cell shares positive area with the region.

(``all_touched=True`` differs only where a coordinate lies within 1e-7 pixel of
a cell side: tests/test_all_touched_tolerance.py.)

Checked three ways: against the exact rational reference of
tests/coverage_reference.py (small grids, vertices on pixel corners, edges
along cell sides); as the identity ``mask(all_touched="exact") == coverage > 0``;
and against GDAL's all-touched burning through rasterio (0 differing pixels
on random float polygons and multipolygons with holes under north-up,
south-up, rotated and sheared transforms).

Where GDAL differs (not tested for equality, by design): GDAL's all-touched
burns a pixel when the polygon's boundary merely *touches* the cell, e.g. an
edge exactly along a cell side or a vertex exactly on a cell corner, where
the shared area is zero; polymask follows the area definition.  GDAL also
misses the odd cell the polygon really covers: over 6,400 random geometries
(seeds 0-59 and 300-699 of _random_geometries, four transforms) one geometry
(seed 607) differs in 2 cells under every transform, covered 0.066% and
0.45% by the exact rational reference, which polymask matches and GDAL
leaves out.  The seeds below are fixed (not hash(name): that changes per
process) and free of that case.
"""
from __future__ import annotations

import numpy as np
import pytest

import polymask
import polymask.course.problems
from tests.coverage_reference import exact_coverage, positive

RULES = ("evenodd", "nonzero")


def test_known_answer_triangle():
    triangle = [(0.3, 0.3), (2.2, 0.4), (1.0, 2.6)]
    expected = [[1, 1, 1, 0],
                [1, 1, 1, 0],
                [0, 1, 1, 0],
                [0, 1, 0, 0]]
    np.testing.assert_array_equal(polymask.mask(triangle, (4, 4), all_touched="exact").astype(int), expected)
    # The centre rule claims only (1, 1) and (2, 1); the other seven are touched, not centred.
    assert np.argwhere(polymask.mask(triangle, (4, 4))).tolist() == [[1, 1], [2, 1]]


def test_edges_along_cell_sides_touch_nothing_beyond():
    # A square whose sides lie on cell sides (half-integers in the sample
    # frame): exactly the 3 x 2 cells inside, none of the neighbours whose
    # side it only shares.
    square = [(0.5, 0.5), (3.5, 0.5), (3.5, 2.5), (0.5, 2.5)]
    expected = np.zeros((4, 5), dtype=bool)
    expected[1:3, 1:4] = True
    np.testing.assert_array_equal(polymask.mask(square, (4, 5), all_touched="exact"), expected)


def test_vertex_on_a_corner_touches_no_diagonal_neighbour():
    # The triangle's apex is the corner (1.5, 1.5): cell (2, 2) meets it in a point only.
    triangle = [(-0.5, -0.5), (1.5, -0.5), (1.5, 1.5)]
    touched = polymask.mask(triangle, (3, 3), all_touched="exact")
    assert not touched[2, 2] and not touched[1, 0] and touched[1, 1]


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("grid", ["integer", "half_integer", "quarter"])
@pytest.mark.parametrize("seed", range(4))
def test_matches_exact_area_reference(grid, rule, seed):
    rng = np.random.default_rng(100 + seed)
    scale = {"integer": 1, "half_integer": 2, "quarter": 4}[grid]
    rings = [rng.integers(-scale, 9 * scale, (6, 2)) / scale]
    if seed % 2:  # a hole or a second part on the same grid
        rings.append(rng.integers(0, 8 * scale, (4, 2)) / scale)
    touched = polymask.mask(rings, (8, 8), fill_rule=rule, all_touched="exact")
    np.testing.assert_array_equal(touched, positive(exact_coverage(rings, (8, 8), rule)))


@pytest.mark.parametrize("rule", RULES)
def test_equals_coverage_positive_on_random_float_polygons(rule):
    for seed in range(5):
        polygon = polymask.course.problems.random_polygon(40, 64, seed=seed)
        touched = polymask.mask(polygon, (64, 64), fill_rule=rule, all_touched="exact")
        np.testing.assert_array_equal(touched, polymask.coverage(polygon, (64, 64), fill_rule=rule) > 0)
        # Every pixel whose centre is in has a cell that meets the region.
        assert not np.any(polymask.mask(polygon, (64, 64), fill_rule=rule) & ~touched)


@pytest.mark.parametrize("rule", RULES)
def test_new_masks_over_most_rows_have_every_byte_written(rule):
    # A polygon over most rows of a heap-sized mask gets an np.empty result
    # with every byte written (views.pxd: writes_every_byte): freed dirty
    # memory of the same size is what malloc hands back next.
    for seed in range(6):
        polygon = polymask.course.problems.random_polygon(30, 300, seed=seed)
        polygon[0, 1], polygon[1, 1] = -3.0, 303.0  # reach every row
        expected = polymask.coverage(polygon, (300, 300), fill_rule=rule) > 0
        dirty = np.full((300, 300), True)
        del dirty
        touched = polymask.mask(polygon, (300, 300), fill_rule=rule, all_touched="exact")
        np.testing.assert_array_equal(touched, expected)
        assert set(np.unique(touched.view(np.uint8))) <= {0, 1}


# The edge-marking path (csrc/src/touched.cpp) and the area sweep it falls
# back to when edges may overlap along a stretch: both must equal the exact
# reference.  Each case names the path it takes.
OVERLAP_CASES = {
    # a spike traced back over itself: zero area, touches nothing
    "spike": [(1, 1), (5, 3), (1, 1), (1, 4)],
    # two squares sharing a side (a MultiPolygon of adjacent parcels)
    "shared-side": [[(0.5, 0.5), (3.5, 0.5), (3.5, 3.5), (0.5, 3.5)], [(3.5, 0.5), (6.2, 0.5), (6.2, 3.5), (3.5, 3.5)]],
    # a zero-width sliver: a ring traced back along a diagonal
    "sliver": [(0.2, 0.3), (6.7, 5.1), (0.2, 0.3), (3.3, 6.6), (6.1, 6.0)],
    # collinear horizontal edges overlapping inside a row strip
    "flat-overlap": [[(1, 2.2), (6, 2.2), (6, 5), (1, 5)], [(2, 2.2), (4, 2.2), (3, 0.4)]],
}
MARKING_CASES = {
    # collinear edges on one line that do not overlap (a staircase): marking
    "staircase": [(0.5, 0.5), (2.5, 0.5), (2.5, 2.5), (4.5, 2.5), (4.5, 0.5), (6.5, 0.5), (6.5, 5.5), (0.5, 5.5)],
    # edges through cell corners and along cell sides
    "corners": [(0.5, 0.5), (3.5, 3.5), (6.5, 0.5), (6.5, 6.5), (0.5, 6.5)],
    # a self-intersecting bow tie: its edges cross inside a cell
    "bow-tie": [(0.3, 0.2), (6.6, 6.1), (6.4, 0.4), (0.1, 6.7)],
    # a hole oriented like its outer ring: nonzero fills it (winding 2)
    "same-way-hole": [[(0.2, 0.2), (7.1, 0.2), (7.1, 7.3), (0.2, 7.3)],
                      [(2.1, 2.4), (5.2, 2.4), (5.2, 5.3), (2.1, 5.3)]],
}


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("name", sorted({**OVERLAP_CASES, **MARKING_CASES}))
def test_both_paths_match_the_exact_reference(name, rule):
    polygon = {**OVERLAP_CASES, **MARKING_CASES}[name]
    rings = polygon if isinstance(polygon[0][0], list | tuple) else [polygon]
    touched = polymask.mask(polygon, (8, 8), fill_rule=rule, all_touched="exact")
    np.testing.assert_array_equal(touched, positive(exact_coverage(rings, (8, 8), rule)))
    np.testing.assert_array_equal(touched, polymask.coverage(polygon, (8, 8), fill_rule=rule) > 0)


def test_a_spike_traced_back_touches_nothing():
    assert not polymask.mask(OVERLAP_CASES["spike"], (8, 8), all_touched="exact").any()


def test_an_edge_grazing_a_corner_touches_the_cell():
    # The edge x + y = 3 - 2^-30 cuts off cell (1, 1)'s corner (3/2, 3/2): a
    # triangle of area 2^-61, far below the area sweep's rounding, but
    # positive, so the cell is touched and its coverage is positive too.
    eps = 2.0 ** -30
    triangle = [(6.0, -3.0 - eps), (6.0, 6.0), (-3.0 - eps, 6.0)]
    touched = polymask.mask(triangle, (6, 6), all_touched="exact")
    fractions = polymask.coverage(triangle, (6, 6))
    assert touched[1, 1] and 0 < fractions[1, 1] < 1e-12
    assert not touched[1, 0] and not touched[0, 1]
    np.testing.assert_array_equal(touched, fractions > 0)
    np.testing.assert_array_equal(touched, positive(exact_coverage([triangle], (6, 6))))


@pytest.mark.parametrize("height", [49, 98])
def test_edges_through_cell_corners_with_awkward_heights(height):
    # The marking multiplies by 1 / height instead of dividing, and redoes
    # with the exact division any abscissa within its error bound of a cell
    # side.  For heights like 49 (49 * fl(1/49) != 1) the product misses
    # the cell side c + 1/2 that the edge passes exactly, by an ulp, and so
    # names a cell the edge only touches at its corner.  Without the redo
    # (its bound set to 2^-80), 46 of these 488 masks differed from
    # coverage > 0, and the height-98 triangle below from the exact
    # reference; no other test caught it.
    shape = (height + 2, 40)
    for width in range(-30, 31):
        start = 32 if width < 0 else 2  # the long edge runs from (start, 0) to (start + width, height)
        # The third vertex, as (offset from start - 2, row): near the long edge's ends and middle.
        for offset, row in [(-1, 5), (-1, height - 5), (5, height - 5), (3, 71 * height // 98)]:
            triangle = np.array([(start, 0), (start + width, height), (start - 2 + offset, row)], float)
            touched = polymask.mask(triangle, shape, all_touched="exact", threads=1)
            np.testing.assert_array_equal(touched, polymask.coverage(triangle, shape) > 0,
                                          err_msg=f"triangle {triangle.tolist()}")
    # One of them against exact rationals too, over its top 50 rows.
    triangle = np.array([(2.0, 0.0), (30.0, height), (-1.0, 5.0)])
    window = (0, 0, 50, 32)
    np.testing.assert_array_equal(polymask.mask(triangle, shape, all_touched="exact", window=window),
                                  positive(exact_coverage([triangle], shape, window=window)))


@pytest.mark.parametrize("rule", RULES)
def test_far_coordinates_take_the_extended_path(rule):
    # Vertices beyond 2^16 use extended-precision abscissae; the answer is
    # the same as the same polygon shifted next to the origin.
    shift = 3 * 2 ** 17
    polygon = polymask.course.problems.random_polygon(12, 40, seed=11)
    near = polymask.mask(polygon, (40, 40), fill_rule=rule, all_touched="exact")
    far = polymask.mask(polygon + shift, (shift + 40, shift + 40), fill_rule=rule, all_touched="exact",
                        window=(shift, shift, 40, 40))
    np.testing.assert_array_equal(far, near)
    np.testing.assert_array_equal(near, positive(exact_coverage(polygon, (40, 40), rule)))


def test_absurd_coordinates_take_the_area_sweep():
    # Found by the fuzzer: at +-DBL_MAX the contract's x_cross overflows, so
    # the centre rule is no longer the test for "wholly inside"; beyond 2^40
    # the area sweep decides, and the identity with coverage holds.
    big = np.finfo(np.float64).max
    triangle = np.array([(-big, 1.0), (big, 3.0), (8.0, big)])
    touched = polymask.mask(triangle, (16, 16), all_touched="exact")
    np.testing.assert_array_equal(touched, polymask.coverage(triangle, (16, 16)) > 0)
    assert touched[3:].all() and not touched[:2].any()


def test_windows_and_out():
    polygon = polymask.course.problems.random_polygon(25, 50, seed=3)
    full = polymask.mask(polygon, (50, 60), all_touched="exact")
    out = np.zeros((11, 17), dtype=np.uint8)
    result = polymask.mask(polygon, (50, 60), all_touched="exact", window=(20, 30, 11, 17), out=out)
    assert result is out
    np.testing.assert_array_equal(out.view(bool), full[20:31, 30:47])


def test_teaching_stage_backend_is_refused():
    with pytest.raises(ValueError, match="all_touched needs the scanline core"):
        polymask.mask([(0, 0), (3, 0), (0, 3)], (4, 4), all_touched=True, backend="python")


def test_rasterize_all_touched_is_the_touched_masks_in_order():
    rng = np.random.default_rng(5)
    polygons = [rng.uniform(-2, 30, (5, 2)) for _ in range(6)]
    labels = polymask.rasterize(polygons, (28, 28), all_touched="exact", fill_rule="nonzero")
    expected = np.zeros((28, 28), dtype=np.uint8)
    for value, polygon in enumerate(polygons, start=1):
        expected[polymask.mask(polygon, (28, 28), all_touched="exact", fill_rule="nonzero")] = value
    np.testing.assert_array_equal(labels, expected)
    window = polymask.rasterize(polygons, (28, 28), all_touched="exact", fill_rule="nonzero", window=(3, 5, 20, 9))
    np.testing.assert_array_equal(window, labels[3:23, 5:14])


@pytest.mark.parametrize("threads", [1, 2])
def test_rasterize_all_touched_in_one_core_call_equals_the_masks(threads):
    # The core burns every polygon's touched cells in one call (csrc/src/touched.cpp):
    # the same cells as each polygon's own all_touched mask, later over earlier,
    # for spikes traced back over themselves (the area sweep's polygons),
    # vertices on cell corners, polygons past the image and far from the origin.
    rng = np.random.default_rng(31)
    polygons = [rng.uniform(-4, 40, (int(rng.integers(3, 12)), 2)) for _ in range(40)]
    polygons[3] = np.array([(2.0, 2.0), (20.0, 9.0), (2.0, 2.0), (9.0, 20.0)])  # a spike traced back
    polygons[7] = np.round(polygons[7] * 2) / 2  # a half-integer grid: edges through corners
    polygons[11] = polygons[11] + 500.0  # wholly outside the image
    polygons[13] = polygons[13] - [60.0, 0.0]  # left of it
    shape = (36, 36)
    expected = np.zeros(shape, dtype=np.uint16)
    for value, polygon in enumerate(polygons, start=1):
        expected[polymask.mask(polygon, shape, all_touched="exact")] = value
    labels = polymask.rasterize(polygons, shape, all_touched="exact", threads=threads, dtype=np.uint16)
    np.testing.assert_array_equal(labels, expected)
    # Far from the origin (Extended abscissae): the same cells, moved.
    far = [polygon + 70000.0 for polygon in polygons]
    moved = polymask.rasterize(far, (70036, 70036), all_touched="exact", threads=threads, dtype=np.uint16,
                               window=(70000, 70000, 36, 36))
    np.testing.assert_array_equal(moved, expected)


# ---- against GDAL (rasterio) --------------------------------------------------

rasterio_features = pytest.importorskip("rasterio.features")  # the peers extra, installed by `test`
affine = pytest.importorskip("affine")
geometry = pytest.importorskip("shapely.geometry")

TRANSFORMS = {
    "north-up": affine.Affine(0.5, 0, 100, 0, -0.5, 200),
    "south-up": affine.Affine(2, 0, -10, 0, 3, 5),
    "rotated": affine.Affine.translation(3, 4) @ affine.Affine.rotation(30) @ affine.Affine.scale(1.5, 1.5),
    "sheared": affine.Affine(1, 0.4, 0, 0.2, -1, 0),
}


def _star(rng, center, radius, n):
    angles = np.sort(rng.uniform(0, 2 * np.pi, n))
    radii = rng.uniform(0.3 * radius, radius, n)
    return np.c_[center[0] + radii * np.cos(angles), center[1] + radii * np.sin(angles)]


def _random_geometries(transform, count, seed):
    """Valid polygons with holes and two-part multipolygons, in world coordinates."""
    rng = np.random.default_rng(seed)
    a, b, c, d, e, f = tuple(transform)[:6]
    to_world = lambda ring: np.c_[a * ring[:, 0] + b * ring[:, 1] + c, d * ring[:, 0] + e * ring[:, 1] + f]  # noqa: E731
    made = []
    while len(made) < count:
        outer = _star(rng, rng.uniform(5, 25, 2), rng.uniform(3, 14), 9)
        hole = _star(rng, outer.mean(axis=0), 1.2, 5)
        part = geometry.Polygon(to_world(outer), [to_world(hole)])
        other = geometry.Polygon(to_world(_star(rng, rng.uniform(0, 30, 2), 3, 6)))
        shape = geometry.MultiPolygon([part, other]) if part.is_valid and not part.intersects(other) else part
        if shape.is_valid:
            made.append(shape)
    return made


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_zero_pixels_differ_from_gdal_all_touched(name):
    transform = TRANSFORMS[name]
    shape = (24, 30)
    for seed, shape_geometry in enumerate(_random_geometries(transform, 12, seed=sorted(TRANSFORMS).index(name))):
        gdal = rasterio_features.geometry_mask([shape_geometry], shape, transform, all_touched=True, invert=True)
        ours = polymask.coverage(shape_geometry, shape, transform=transform) > 0
        assert np.sum(gdal != ours) == 0, (name, seed)
        touched = polymask.mask(shape_geometry, shape, transform=transform, all_touched=True)
        assert np.sum(gdal != touched) == 0, (name, seed)


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_rasterize_all_touched_matches_gdal(name):
    from polymask._transform import as_transform, to_sample_frame

    transform = TRANSFORMS[name]
    shape = (24, 30)
    geometries = _random_geometries(transform, 5, seed=7)
    values = list(range(1, len(geometries) + 1))
    gdal = rasterio_features.rasterize(zip(geometries, values), out_shape=shape, transform=transform,
                                       all_touched=True, dtype=np.uint8)
    # polymask.rasterize has no transform= on this branch: map the rings into the sample frame.
    sample = as_transform(transform)
    mapped = [[to_sample_frame(np.asarray(ring.coords, dtype=float), sample) for ring in _rings(g)] for g in geometries]
    ours = polymask.rasterize(mapped, shape, values, all_touched=True, dtype=np.uint8)
    assert np.sum(gdal != ours) == 0


def _rings(shape_geometry):
    parts = shape_geometry.geoms if hasattr(shape_geometry, "geoms") else [shape_geometry]
    for part in parts:
        yield part.exterior
        yield from part.interiors
