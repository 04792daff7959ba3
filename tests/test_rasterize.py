"""Label images: ``polymask.rasterize`` burns each polygon's exact mask,
later polygons over earlier ones, and a partition labels every pixel once.

The reference (tests/_support.py ``labels_in_order``) applies each
polygon's slow double-precision mask in order; partitions are checked both
through ``polymask.mask`` (every pixel claimed exactly once) and through
``rasterize`` (every pixel carries the label of the one cell that holds it).
"""
import numpy as np
import pytest

import polymask
from tests._support import double_rings_mask, labels_in_order

TWO_RECTANGLES = [[(0, 0), (2, 0), (2, 3), (0, 3)], [(2, 0), (4, 0), (4, 3), (2, 3)]]


def test_literal_side_by_side_rectangles():
    assert polymask.rasterize(TWO_RECTANGLES, (4, 5)).tolist() == [[1, 1, 2, 2, 0],
                                                                   [1, 1, 2, 2, 0],
                                                                   [1, 1, 2, 2, 0],
                                                                   [0, 0, 0, 0, 0]]


def test_later_polygons_land_over_earlier_ones():
    big, small = [(0, 0), (5, 0), (5, 3), (0, 3)], [(1, 1), (3, 1), (3, 2), (1, 2)]
    assert polymask.rasterize([big, small], (3, 6), values=[7, 9]).tolist() == [[7, 7, 7, 7, 7, 0],
                                                                                [7, 9, 9, 7, 7, 0],
                                                                                [7, 7, 7, 7, 7, 0]]
    assert polymask.rasterize([small, big], (3, 6), values=[9, 7]).tolist() == [[7, 7, 7, 7, 7, 0]] * 3


def random_polygons(rng, count, shape, max_rings=1):
    """Small random polygons (some with extra rings) scattered over and past the image."""
    polygons = []
    for _ in range(count):
        centre = rng.uniform(-5, max(shape) + 5, size=2)
        rings = [centre + rng.uniform(-10, 10, size=(rng.integers(3, 9), 2))
                 for _ in range(rng.integers(1, max_rings + 1))]
        polygons.append(rings)
    return polygons


@pytest.mark.parametrize("fill_rule", ["evenodd", "nonzero"])
@pytest.mark.parametrize("seed", range(4))
def test_random_polygons_with_holes_equal_the_reference(seed, fill_rule):
    rng = np.random.default_rng(seed)
    shape = (53, 61)
    polygons = random_polygons(rng, 60, shape, max_rings=3)
    values = rng.integers(1, 2**31 - 1, size=len(polygons))
    expected = labels_in_order(polygons, shape, values, fill_rule=fill_rule)
    for threads in (1, 2, 3):
        labels = polymask.rasterize(polygons, shape, values, fill_rule=fill_rule, threads=threads)
        assert labels.dtype == np.int32
        assert np.array_equal(labels, expected), f"threads={threads}"


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int32", "uint32", "int64", "float32", "float64"])
def test_every_label_dtype(dtype):
    rng = np.random.default_rng(1)
    shape = (40, 40)
    polygons = random_polygons(rng, 30, shape)
    values = np.arange(100, 130)
    labels = polymask.rasterize(polygons, shape, values, dtype=dtype)
    assert labels.dtype == np.dtype(dtype)
    assert np.array_equal(labels, labels_in_order(polygons, shape, values))


@pytest.mark.parametrize("values,expected_dtype", [
    (None, np.uint8),
    ([0, 255], np.uint8),
    ([256, 1], np.uint16),
    ([70_000, 1], np.int32),
    ([-1, 5], np.int32),
    ([2**40, 1], np.int64),
    ([1.0, 2.0], np.uint8),
    ([0.5, 2.0], np.float64),
    (np.array([3, 4], np.uint64), np.uint8),
])
def test_default_dtype_is_the_smallest_that_holds_the_values(values, expected_dtype):
    labels = polymask.rasterize(TWO_RECTANGLES, (3, 5), values)
    assert labels.dtype == expected_dtype
    if values is not None:
        assert labels[0, 0] == values[0] and labels[0, 3] == values[1]


def test_default_values_count_up_and_pick_uint16_past_255():
    squares = np.array([[(c, 0), (c + 1, 0), (c + 1, 1), (c, 1)] for c in range(300)], float)
    labels = polymask.rasterize(squares, (1, 300))
    assert labels.dtype == np.uint16
    assert labels[0].tolist() == list(range(1, 301))


def test_scalar_value_labels_every_polygon():
    labels = polymask.rasterize(TWO_RECTANGLES, (3, 5), values=4)
    assert labels.tolist() == [[4, 4, 4, 4, 0]] * 3


def test_out_keeps_its_content_as_background():
    out = np.full((3, 5), 9, np.int64)
    result = polymask.rasterize(TWO_RECTANGLES[:1], (3, 5), out=out)
    assert result is out
    assert out.tolist() == [[1, 1, 9, 9, 9]] * 3
    polymask.rasterize(TWO_RECTANGLES[1:], (3, 5), values=[2], out=out)  # a second layer
    assert out.tolist() == [[1, 1, 2, 2, 9]] * 3


def test_input_forms():
    shapely = pytest.importorskip("shapely")
    forms = [
        np.array(TWO_RECTANGLES, float),                                     # (P, N, 2) array
        [np.array(ring, float) for ring in TWO_RECTANGLES],                  # list of arrays
        [{"type": "Polygon", "coordinates": [ring]} for ring in TWO_RECTANGLES],
        [shapely.Polygon(ring) for ring in TWO_RECTANGLES],
        (TWO_RECTANGLES[0], [TWO_RECTANGLES[1]]),                            # ring, list of rings
    ]
    for form in forms:
        assert polymask.rasterize(form, (3, 5)).tolist() == [[1, 1, 2, 2, 0]] * 3, type(form[0])


def test_no_polygons_is_all_background():
    assert not polymask.rasterize([], (3, 4)).any()
    assert not polymask.rasterize(np.zeros((0, 3, 2)), (3, 4)).any()


BAD = [
    ({"polygons": None}, TypeError, r"polygons must be a sequence of polygons .* got None"),
    ({"polygons": {"type": "Polygon", "coordinates": TWO_RECTANGLES[:1]}}, TypeError, r"pass \[polygon\]"),
    ({"polygons": np.zeros((3, 2))}, ValueError, r"got an array of shape \(3, 2\)"),
    ({"polygons": [TWO_RECTANGLES[0], [(0, 0), (1, np.nan), (2, 2)]]}, ValueError,
     r"polygons\[1\]\[1\] = \(1.0, nan\) is not finite"),
    ({"polygons": np.array([[(0, 0), (1, 1), (2, 0)], [(0, 0), (np.inf, 1), (2, 0)]])}, ValueError,
     r"polygons\[1\]\[1\] = \(inf, 1.0\) is not finite"),
    ({"values": [1, 2, 3]}, ValueError, r"one value per polygon \(2\), got shape \(3,\)"),
    ({"values": ["a", "b"]}, TypeError, "values must be real numbers"),
    ({"values": [1, 300], "dtype": "uint8"}, ValueError, r"values\[1\] = 300 does not fit uint8"),
    ({"values": [1, -1], "dtype": "uint16"}, ValueError, r"values\[1\] = -1 does not fit uint16"),
    ({"values": [1.5, 2], "dtype": "int32"}, ValueError, r"values\[0\] = 1.5 does not fit int32"),
    ({"dtype": "int8"}, TypeError, "dtype must be one of uint8, .* got int8"),
    ({"dtype": "complex128"}, TypeError, "got complex128"),
    ({"out": np.zeros((3, 5), np.int8)}, TypeError, "out must have one of the dtypes .* got int8"),
    ({"out": np.zeros((3, 5), np.int32), "dtype": "int64"}, TypeError, "disagrees with out's dtype int32"),
    ({"out": np.zeros((3, 6), np.int32)}, ValueError, r"out must have shape \(3, 5\), got \(3, 6\)"),
    ({"out": np.zeros((3, 10), np.int32)[:, ::2]}, ValueError, "C-contiguous"),
    ({"out": [[0] * 5] * 3}, TypeError, "out must be a NumPy array"),
    ({"fill_rule": "winding"}, ValueError, "fill_rule must be one of"),
    ({"threads": -1}, ValueError, "threads must be between"),
]


@pytest.mark.parametrize("options,error,message", BAD, ids=range(len(BAD)))
def test_bad_input_names_what_was_received(options, error, message):
    arguments = {"polygons": TWO_RECTANGLES, "shape": (3, 5), **options}
    with pytest.raises(error, match=message):
        polymask.rasterize(**arguments)


def test_read_only_out_is_refused():
    out = np.zeros((3, 5), np.int32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        polymask.rasterize(TWO_RECTANGLES, (3, 5), out=out)


# ---- partitions: every pixel exactly once ----------------------------------
#
# Vertices on a 1/16 grid keep every x_cross comparison exact (as integer
# vertices do in the contract), so a partition is exact whichever direction
# each cell runs along a shared edge.  The real-valued jittered grid checks
# the same with arbitrary doubles.


def jittered_grid(shape, cells, rng, step=None):
    """Quadrilateral cells of a grid whose inner nodes are jittered; the
    outer nodes stay on the image border so the cells cover it exactly."""
    rows, cols = shape
    ys = np.linspace(0, rows, cells[0] + 1)
    xs = np.linspace(0, cols, cells[1] + 1)
    nodes = np.stack(np.meshgrid(xs, ys), axis=-1)  # nodes[i, j] = (x, y)
    jitter = rng.uniform(-0.3, 0.3, size=nodes.shape) * [cols / cells[1], rows / cells[0]]
    jitter[0, :, 1] = jitter[-1, :, 1] = 0  # top and bottom nodes slide along x only
    jitter[:, 0, 0] = jitter[:, -1, 0] = 0  # left and right nodes slide along y only
    jitter[[0, 0, -1, -1], [0, -1, 0, -1]] = 0
    nodes = nodes + jitter
    if step is not None:
        nodes = np.round(nodes / step) * step
    return [np.array([nodes[i, j], nodes[i, j + 1], nodes[i + 1, j + 1], nodes[i + 1, j]])
            for i in range(cells[0]) for j in range(cells[1])]


def voronoi_cells(sites, shape, step=1 / 16):
    """The Voronoi diagram of `sites` clipped to the image, by half-plane clipping.

    Each cell is the image rectangle clipped by the bisector of its site and
    every other site.  Neighbouring cells compute their shared corners
    separately, so corners closer than 1e-6 are merged to one point and then
    snapped to the `step` grid: shared edges then have identical ends.
    """
    rows, cols = shape
    cells = []
    for k, site in enumerate(sites):
        cell = [np.array(p, float) for p in [(0, 0), (cols, 0), (cols, rows), (0, rows)]]
        for other in np.delete(sites, k, axis=0):
            normal, middle = other - site, (other + site) / 2
            cell = clip_half_plane(cell, normal, middle)
        cells.append(np.array(cell))
    corners = np.concatenate(cells)
    canonical = corners.copy()
    for index in range(len(corners)):
        close = np.flatnonzero(np.abs(corners - corners[index]).max(axis=1) < 1e-6)
        canonical[index] = corners[close[0]]
    canonical = np.round(canonical / step) * step
    bounds = np.cumsum([len(cell) for cell in cells])[:-1]
    return np.split(canonical, bounds)


def clip_half_plane(polygon, normal, middle):
    """Sutherland-Hodgman: keep the part of a convex polygon where (p - middle) . normal <= 0."""
    kept = []
    for index, current in enumerate(polygon):
        previous = polygon[index - 1]
        d_current, d_previous = np.dot(current - middle, normal), np.dot(previous - middle, normal)
        if (d_current <= 0) != (d_previous <= 0):
            t = d_previous / (d_previous - d_current)
            kept.append(previous + t * (current - previous))
        if d_current <= 0:
            kept.append(current)
    return kept


def assert_partition(cells, shape):
    claims = np.zeros(shape, np.int32)
    for cell in cells:
        claims += polymask.mask(cell, shape)
    assert claims.min() == 1 and claims.max() == 1, f"{np.count_nonzero(claims != 1)} pixels not claimed once"
    labels = polymask.rasterize(cells, shape, threads=2)
    assert labels.min() == 1, "a pixel was left unlabelled"
    expected = np.zeros(shape, np.int64)
    for number, cell in enumerate(cells, start=1):
        expected[double_rings_mask([cell], shape)] = number
    assert np.array_equal(labels, expected)


@pytest.mark.parametrize("step", [1 / 16, None], ids=["dyadic", "real"])
@pytest.mark.parametrize("seed", range(3))
def test_jittered_grid_partition_covers_every_pixel_once(seed, step):
    shape = (67, 93)
    assert_partition(jittered_grid(shape, (7, 9), np.random.default_rng(seed), step), shape)


@pytest.mark.parametrize("seed", range(3))
def test_voronoi_partition_covers_every_pixel_once(seed):
    shape = (71, 83)
    sites = np.random.default_rng(seed).uniform(0, 1, size=(40, 2)) * [shape[1], shape[0]]
    cells = voronoi_cells(sites, shape)
    assert len(cells) == 40
    assert_partition(cells, shape)
