"""Coverage fractions and all_touched: their cost against the mask, and exactextract.

Three groups, medians compared as ratios within one run:

* ``coverage-4096-<polygon>``: ``polymask.mask`` (the centre rule), ``polymask.coverage``
  (float64, float32, uint8) and ``mask(all_touched=True)`` on a 4096x4096 image,
  one thread each, beside the memory floor of each output dtype (``np.ones``:
  writing every cell once; a float64 raster is 8x the bytes of the mask, so
  its floor alone is several times the mask's time), for three 1,000-vertex
  polygons: the project's standard
  random polygon (vertices uniform in the square, so it crosses itself about
  10^5 times), a star (sorted angles, random radii: simple, spiky) and a
  smooth outline (a circle bent by low harmonics, like a lake or a
  generalised coast).  Coverage and all_touched pay per cell an edge passes,
  the mask per crossing and per byte: the random polygon leaves 2.4 million
  cells partly covered (a fraction strictly between 0 and 1), the star
  364,000 and the outline 13,000, so the three bracket what a user's
  polygon costs.
* ``exactextract-4096-<polygon>``: the star's and the outline's fractions from
  exactextract (``coverage`` and ``cell_id`` of one feature) and from polymask; extra_info
  records the largest difference (exactextract stores fractions as float32).
* ``zonal-mean-100``: the coverage-weighted mean of a 4096x4096 image over 100
  star regions: ``polymask.coverages`` + NumPy against exactextract's ``mean``;
  ``zonal-mean-10000-small``: the same over 10,000 small zones (3-20 px),
  where the cost per zone, not per cell, decides.

    pytest benchmarks/test_coverage.py --benchmark-only --benchmark-columns=median,iqr,rounds
"""
import functools

import numpy as np
import pytest

import polymask
import polymask.course.problems

SIZE = 4096
SHAPE = (SIZE, SIZE)
NORTH_UP = (1.0, 0.0, 0.0, 0.0, -1.0, float(SIZE))  # world y up, row 0 at the top: exactextract's grid


def star(n_vertices, centre, radius, rng):
    angles = np.sort(rng.uniform(0, 2 * np.pi, n_vertices))
    radii = rng.uniform(0.5 * radius, radius, n_vertices)
    return np.c_[centre[0] + radii * np.cos(angles), centre[1] + radii * np.sin(angles)]


def outline(n_vertices, centre, radius, rng, harmonics=8):
    """A smooth closed outline: a circle whose radius is bent by harmonics 2 to harmonics + 1."""
    angles = np.linspace(0, 2 * np.pi, n_vertices, endpoint=False)
    radii = np.ones(n_vertices)
    for k in range(2, harmonics + 2):
        radii += rng.uniform(-0.25, 0.25) / k * np.cos(k * angles + rng.uniform(0, 2 * np.pi))
    radii *= radius / radii.max()
    return np.c_[centre[0] + radii * np.cos(angles), centre[1] + radii * np.sin(angles)]


POLYGONS = {
    "random-1000": polymask.course.problems.random_polygon(1000, SIZE),
    "star-1000": star(1000, (SIZE / 2, SIZE / 2), 0.45 * SIZE, np.random.default_rng(2014)),
    "outline-1000": outline(1000, (SIZE / 2, SIZE / 2), 0.45 * SIZE, np.random.default_rng(2014)),
}


def _fast(request):
    return getattr(request.config, "polymask_fast_mode", False)


@pytest.mark.parametrize("polygon", sorted(POLYGONS))
@pytest.mark.parametrize("what", ["mask", "all_touched", "coverage-float64", "coverage-float32", "coverage-uint8",
                                  "floor-float64", "floor-float32", "floor-uint8",
                                  "mask default-threads", "coverage-float64 default-threads"])
def test_coverage_against_mask(benchmark, request, polygon, what):
    vertices = POLYGONS[polygon]
    shape = (256, 256) if _fast(request) else SHAPE
    if _fast(request):
        vertices = vertices * (256 / SIZE)
    threads = None if what.endswith("default-threads") else 1  # the call users make, beside one thread
    what = what.split()[0]
    if what == "mask":
        run = lambda: polymask.mask(vertices, shape, threads=threads)  # noqa: E731
    elif what.startswith("floor"):  # writing every cell of a raster of that dtype once: np.ones
        run = functools.partial(np.ones, shape, dtype=what.split("-")[1])
    elif what == "all_touched":
        run = lambda: polymask.mask(vertices, shape, threads=1, all_touched=True)  # noqa: E731
    else:
        dtype = what.split("-")[1]
        run = lambda: polymask.coverage(vertices, shape, threads=threads, dtype=dtype)  # noqa: E731
    benchmark.group = f"coverage-{shape[0]}x{shape[1]}-{polygon}"
    result = benchmark(run)
    benchmark.extra_info.update(backend=what if threads == 1 or what.startswith("floor") else f"{what} default threads",
                                polygon=polygon, shape=list(shape))
    if what == "all_touched":  # the identity, checked where it is timed
        assert np.array_equal(result, polymask.coverage(vertices, shape) > 0)


def _exactextract_fractions(vertices, shape, image):
    from exactextract import exact_extract
    from exactextract.raster import NumPyRasterSource

    source = NumPyRasterSource(image, xmin=0, ymin=0, xmax=shape[1], ymax=shape[0])
    world = np.c_[vertices[:, 0] + 0.5, shape[0] - (vertices[:, 1] + 0.5)]  # sample frame -> cells, y up
    ring = np.vstack([world, world[:1]]).tolist()
    feature = {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [ring]}}

    def run():
        properties = exact_extract(source, [feature], ["cell_id", "coverage"])[0]["properties"]
        fractions = np.zeros(shape[0] * shape[1])
        fractions[np.asarray(properties["cell_id"], dtype=np.int64)] = properties["coverage"]
        return fractions.reshape(shape)

    return run


@pytest.mark.parametrize("polygon", ["star-1000", "outline-1000"])
@pytest.mark.parametrize("who", ["polymask", "exactextract"])
def test_fractions_against_exactextract(benchmark, request, who, polygon):
    pytest.importorskip("exactextract")  # the peers extra, installed by `test`
    size = 256 if _fast(request) else SIZE
    shape = (size, size)
    vertices = POLYGONS[polygon] * (size / SIZE)
    image = np.zeros(shape)
    if who == "polymask":
        run = lambda: polymask.coverage(vertices, shape, threads=1)  # noqa: E731
    else:
        run = _exactextract_fractions(vertices, shape, image)
    benchmark.group = f"exactextract-{size}x{size}-{polygon}"
    result = benchmark(run)
    reference = polymask.coverage(vertices, shape)
    difference = float(np.abs(result - reference).max())
    benchmark.extra_info.update(backend=who, largest_fraction_difference=difference)
    assert difference < 1e-6  # exactextract rounds fractions to float32


def _regions(count, size, seed=7):
    rng = np.random.default_rng(seed)
    return [star(24, rng.uniform(0.1 * size, 0.9 * size, 2), rng.uniform(0.01, 0.08) * size, rng)
            for _ in range(count)]


def _small_regions(count, size, seed=11):
    """Many small zones (parcels, buildings): 16 vertices, 3-20 px across at full size.

    Angles are jittered around 16 even steps, so no gap reaches half a turn
    and every zone is a simple polygon (valid for exactextract's GEOS too).
    """
    rng = np.random.default_rng(seed)
    scale = size / SIZE
    zones = []
    for _ in range(count):
        centre, radius = rng.uniform(0.02 * size, 0.98 * size, 2), rng.uniform(3, 20) * scale + 1
        angles = (np.arange(16) + rng.uniform(0, 0.8, 16)) * (2 * np.pi / 16)
        radii = rng.uniform(0.5 * radius, radius, 16)
        zones.append(np.c_[centre[0] + radii * np.cos(angles), centre[1] + radii * np.sin(angles)])
    return zones


@pytest.mark.parametrize("zones", ["100", "10000-small"])
@pytest.mark.parametrize("who", ["polymask", "exactextract"])
def test_zonal_mean_against_exactextract(benchmark, request, who, zones):
    pytest.importorskip("exactextract")
    size = 256 if _fast(request) else SIZE
    shape = (size, size)
    regions = _regions(100, size) if zones == "100" else _small_regions(10_000, size)
    image = np.random.default_rng(1).uniform(0, 100, shape)

    def polymask_means():
        means = []
        for crop in polymask.coverages(regions, shape, threads=1):
            means.append(float((crop.mask * image[crop.slices]).sum() / crop.mask.sum()))
        return np.array(means)

    if who == "polymask":
        run = polymask_means
    else:
        from exactextract import exact_extract
        from exactextract.raster import NumPyRasterSource

        source = NumPyRasterSource(image, xmin=0, ymin=0, xmax=size, ymax=size)
        features = []
        for vertices in regions:
            world = np.c_[vertices[:, 0] + 0.5, size - (vertices[:, 1] + 0.5)]
            features.append({"type": "Feature", "properties": {},
                             "geometry": {"type": "Polygon", "coordinates": [np.vstack([world, world[:1]]).tolist()]}})
        run = lambda: np.array([f["properties"]["mean"] for f in exact_extract(source, features, ["mean"])])  # noqa: E731
    benchmark.group = f"zonal-mean-{zones}-zones-{size}x{size}"
    result = benchmark(run)
    difference = float(np.abs(result - polymask_means()).max())
    benchmark.extra_info.update(backend=who, largest_mean_difference=difference)
    assert difference < 1e-4
