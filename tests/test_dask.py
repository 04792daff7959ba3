"""polymask.dask: lazy masks and label images whose blocks the core fills.

Every block is a window of the full image, so the Dask array must equal the
in-memory result bit for bit -- here on a dask.distributed LocalCluster of
two worker processes, which also proves the polygon and the block functions
travel between processes.

"Too large to hold at once", sized for CI, is checked two ways:

* a 200,000 x 200,000 mask (40 GB) is defined lazily, a handful of its
  blocks are computed on the cluster and stored into a full-size Zarr array
  (Zarr keeps only written chunks), and the stored blocks are spot-checked
  against windows of ``polymask.mask``;
* an 8,000 x 8,000 mask (64 MB) is written to Zarr completely, block by
  block, while tracemalloc (which sees NumPy's buffers) shows that the
  process never held more than 8 of its 64 blocks (1 MB each) at once.
"""
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest

import polymask
from polymask.course.problems import standard_problem

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
zarr = pytest.importorskip("zarr")
import polymask.dask  # noqa: E402  (after the importorskips)

SHAPE = (1000, 1100)
VERTICES, _ = standard_problem(size=1000, n_vertices=40)
RINGS = [VERTICES, VERTICES[::-1][:12] * 0.5 + 200]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    with distributed.Client(cluster) as connected:
        yield connected
    cluster.close()


@pytest.mark.parametrize("fill_rule", ["evenodd", "nonzero"])
def test_dask_mask_equals_the_in_memory_mask_on_two_workers(client, fill_rule):
    lazy = polymask.dask.mask(RINGS, SHAPE, chunks=(256, 300), fill_rule=fill_rule)
    assert isinstance(lazy, da.Array) and lazy.dtype == bool and lazy.shape == SHAPE
    assert lazy.chunks == ((256, 256, 256, 232), (300, 300, 300, 200))
    computed = client.compute(lazy).result()
    assert np.array_equal(computed, polymask.mask(RINGS, SHAPE, fill_rule=fill_rule))


def test_dask_rasterize_equals_the_in_memory_labels_on_two_workers(client):
    rng = np.random.default_rng(4)
    polygons = rng.uniform(0, 1000, size=(3000, 1, 2)) + rng.uniform(-15, 15, size=(3000, 7, 2))
    lazy = polymask.dask.rasterize(polygons, SHAPE, chunks=(300, 256))
    assert lazy.dtype == np.uint16
    computed = client.compute(lazy).result()
    assert np.array_equal(computed, polymask.rasterize(polygons, SHAPE))
    values = np.linspace(-1, 1, 3000)
    floats = polymask.dask.rasterize(polygons, SHAPE, values, dtype=np.float32, chunks=400)
    assert np.array_equal(client.compute(floats).result(),
                          polymask.rasterize(polygons, SHAPE, values, dtype=np.float32))


def test_the_polygon_is_one_key_that_every_block_shares():
    lazy = polymask.dask.mask(VERTICES, SHAPE, chunks=500)
    graph = dict(lazy.__dask_graph__())
    blocks = [key for key in graph if isinstance(key, tuple) and key[0] == lazy.name]
    polygon_keys = [key for key in graph if isinstance(key, str) and key.startswith("polymask-polygon-")]
    assert len(blocks) == 2 * 3 and len(polygon_keys) == 1 and len(graph) == len(blocks) + 1
    # Deterministic names: the same polygon and shape give the same graph.
    assert polymask.dask.mask(VERTICES, SHAPE, chunks=500).name == lazy.name
    assert polymask.dask.mask(VERTICES, SHAPE, chunks=400).name != lazy.name


def test_blocks_equal_windows_without_a_cluster():
    lazy = polymask.dask.mask(RINGS, SHAPE, chunks=(333, 517))
    block = lazy.blocks[1, 2].compute(scheduler="synchronous")
    assert np.array_equal(block, polymask.mask(RINGS, SHAPE, window=(333, 1034, 333, 66)))


@pytest.mark.parametrize("fill_rule", ["evenodd", "nonzero"])
def test_all_touched_blocks_equal_the_in_memory_all_touched(fill_rule):
    polygon = polymask.course.problems.random_polygon(30, 70, seed=4)
    shape = (70, 90)
    lazy = polymask.dask.mask(polygon, shape, chunks=(17, 23), fill_rule=fill_rule, all_touched=True)
    expected = polymask.mask(polygon, shape, fill_rule=fill_rule, all_touched=True)
    np.testing.assert_array_equal(lazy.compute(scheduler="sync"), expected)
    assert not np.array_equal(expected, polymask.mask(polygon, shape, fill_rule=fill_rule))  # the option matters
    polygons = [polymask.course.problems.random_polygon(12, 60, seed=s) + 5 * s for s in range(4)]
    labels = polymask.dask.rasterize(polygons, shape, chunks=(17, 23), fill_rule=fill_rule, all_touched=True)
    np.testing.assert_array_equal(labels.compute(scheduler="sync"),
                                  polymask.rasterize(polygons, shape, fill_rule=fill_rule, all_touched=True))


@pytest.mark.parametrize("all_touched", [False, True])
@pytest.mark.parametrize("chunks", [7, 16, 50])
def test_label_blocks_burn_only_nearby_polygons_and_equal_the_in_memory_labels(chunks, all_touched):
    # Each block burns only the polygons whose boxes come within two pixels
    # of it (polymask._dask_blocks.Burn): small ones across block edges, one with a
    # hole, a big self-crossing one, an empty one, one far outside, and one
    # with a coordinate past 2^40 (which every block keeps).
    import polymask.dask

    rng = np.random.default_rng(5)
    polygons = [rng.uniform(-10, 130, (1, 2)) + rng.uniform(-8, 8, (int(rng.integers(3, 9)), 2))
                for _ in range(200)]
    polygons[7] = [np.array([[10, 10], [60, 10], [60, 60], [10, 60.0]]),
                   np.array([[20, 20], [40, 20], [40, 40], [20, 40.0]])]
    polygons[11] = rng.uniform(0, 120, (40, 2))
    polygons[13] = {"type": "Polygon", "coordinates": []}
    polygons[17] = np.array([[500.0, 500.0], [510.0, 500.0], [505.0, 510.0]])
    polygons[19] = np.array([[0.0, 0.0], [2.0**45, 5.0], [3.0, 100.0]])
    expected = polymask.rasterize(polygons, (120, 130), all_touched=all_touched)
    labels = polymask.dask.rasterize(polygons, (120, 130), chunks=chunks, all_touched=all_touched)
    np.testing.assert_array_equal(labels.compute(scheduler="sync"), expected)


def test_a_label_block_takes_the_polygons_near_it_in_order():
    from polymask._dask_blocks import Burn
    from polymask._inputs import polygons as as_polygon_list

    polygons = [np.array([[1.0, 1.0], [5.0, 1.0], [3.0, 5.0]]),                       # top left
                [np.array([[40.0, 40], [60, 40], [60, 60], [40, 60]]),
                 np.array([[45.0, 45], [55, 45], [55, 55], [45, 55]])],                  # centre, a hole
                np.array([[90.0, 2.0], [99.0, 2.0], [95.0, 9.0]]),                      # top right
                {"type": "Polygon", "coordinates": []},                                  # empty
                np.array([[0.0, 0.0], [2.0**45, 5.0], [3.0, 100.0]])]                   # far: everywhere
    flat = as_polygon_list(polygons)
    burn = Burn(flat, np.arange(1, 6, dtype=np.uint8))
    chosen, labels = burn.reaching(0, 0, 20, 20)
    assert labels.tolist() == [1, 5]
    assert chosen.vertices.tolist() == flat.vertices[:3].tolist() + flat.vertices[-3:].tolist()
    assert chosen.ring_ends.tolist() == [3, 6] and chosen.polygon_ends.tolist() == [1, 2]
    chosen, labels = burn.reaching(35, 35, 30, 30)
    assert labels.tolist() == [2, 5] and chosen.ring_ends.tolist() == [4, 8, 11]
    assert chosen.polygon_ends.tolist() == [2, 3]
    assert burn.reaching(0, 86, 4, 4)[1].tolist() == [3, 5]  # within two pixels of the box
    assert burn.reaching(0, 102, 4, 4)[1].tolist() == [5]


def test_bad_arguments_are_checked_before_any_block_runs():
    with pytest.raises(ValueError, match=r"vertices\[2\] = \(nan, 0.0\) is not finite"):
        polymask.dask.mask([(0, 0), (1, 1), (np.nan, 0)], SHAPE)
    with pytest.raises(ValueError, match=r"chunks must be block sizes for an array of shape \(1000, 1100\)"):
        polymask.dask.mask(VERTICES, SHAPE, chunks=(1, 2, 3))
    with pytest.raises(ValueError, match="shape rows must be at least 1"):
        polymask.dask.rasterize([VERTICES], (0, 5))
    with pytest.raises(ValueError, match="fill_rule must be one of"):
        polymask.dask.mask(VERTICES, SHAPE, fill_rule="odd")


def test_a_mask_too_large_to_hold_is_stored_to_zarr_and_spot_checked(client, tmp_path):
    side, chunk = 200_000, 2_000
    # A wavy 90-gon spanning the whole 40 GB image.
    angles = np.linspace(0, 2 * np.pi, 90, endpoint=False)
    radius = side * (0.4 + 0.05 * np.sin(5 * angles))
    vertices = np.column_stack([side / 2 + radius * np.cos(angles) + 0.3, side / 2 + radius * np.sin(angles) + 0.7])
    lazy = polymask.dask.mask(vertices, (side, side), chunks=chunk)
    target = zarr.open_array(str(tmp_path / "big.zarr"), mode="w", shape=(side, side), chunks=(chunk, chunk),
                             dtype=bool)
    # Blocks holding a vertex cross the polygon's boundary; a corner block is all outside.
    picks = [(0, 0), (99, 99)] + [(int(y // chunk), int(x // chunk)) for x, y in vertices[::23]]
    regions = [(slice(i * chunk, (i + 1) * chunk), slice(j * chunk, (j + 1) * chunk)) for i, j in picks]
    da.store([lazy[region] for region in regions], [target] * len(regions), regions=regions, lock=False)

    stored = zarr.open_array(str(tmp_path / "big.zarr"), mode="r")
    assert stored.shape == (side, side)
    for (i, j), region in zip(picks, regions):
        expected = polymask.mask(vertices, (side, side), window=(i * chunk, j * chunk, chunk, chunk))
        assert np.array_equal(stored[region], expected), (i, j)
    mixed = sum(bool(stored[region].any() and not stored[region].all()) for region in regions)
    assert mixed >= 3, f"only {mixed} stored blocks cross the polygon's boundary"
    # Unwritten chunks stay unwritten: nothing close to 40 GB was produced.
    assert not stored[10 * chunk:10 * chunk + 5, 0:5].any()


def test_a_whole_mask_goes_to_zarr_block_by_block_in_bounded_memory(tmp_path):
    side, chunk = 8_000, 1_000
    vertices, _ = standard_problem(size=side, n_vertices=60)
    lazy = polymask.dask.mask(vertices, (side, side), chunks=chunk)
    with dask.config.set(scheduler="synchronous"):
        # Warm up first: the first Zarr write imports codecs, which tracemalloc would count.
        lazy[:chunk, :chunk].to_zarr(str(tmp_path / "warm-up.zarr"))
        tracemalloc.start()
        try:
            lazy.to_zarr(str(tmp_path / "whole.zarr"))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    block_bytes, full_bytes = chunk * chunk, side * side
    assert peak < 8 * block_bytes, f"peak {peak / 1e6:.1f} MB: more than 8 blocks of a {full_bytes / 1e6:.0f} MB mask"
    stored = zarr.open_array(str(tmp_path / "whole.zarr"), mode="r")
    for row0, col0 in [(0, 0), (3_000, 5_000), (7_000, 7_000), (1_234, 6_543)]:
        window = (row0, col0, 500, 700)
        assert np.array_equal(stored[row0:row0 + 500, col0:col0 + 700],
                              polymask.mask(vertices, (side, side), window=window))


def test_importing_polymask_does_not_import_dask():
    code = "import sys, polymask; sys.exit(1 if 'dask' in sys.modules else 0)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_without_dask_the_import_error_names_the_extra():
    code = ("import sys; sys.modules['dask'] = None; sys.modules['dask.array'] = None\n"
            "import polymask\n"
            "assert polymask.mask([(0, 0), (2, 0), (0, 2)], (3, 3)).any()\n"
            "try:\n    import polymask.dask\nexcept ImportError as error:\n    print(error)\n")
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
    assert "pip install 'polymask[dask]'" in completed.stdout
