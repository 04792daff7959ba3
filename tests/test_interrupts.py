"""Ctrl-C during a long fill raises KeyboardInterrupt promptly, and returns nothing.

A timer thread sends the process a real SIGINT while the main thread is
inside a fill that would take seconds.  Python runs signal handlers only on
the main thread between bytecodes, so without help the interrupt would wait
for the fill to return.  The scanline core checks between chunks of rows
(one check installed once per process by polymask/_core.pyx takes the GIL for
PyErr_CheckSignals about every 10 ms); the compiled teaching stages run on a
helper thread while the main thread waits in short steps
(polymask/course/stages/_running.py).  Each case runs in a
fresh interpreter under a timeout: a KeyboardInterrupt that escaped would
otherwise end the pytest session itself.
"""
from __future__ import annotations

import json
import sys
import textwrap

import pytest

import polymask
from tests._interrupt_harness import HARNESS, assert_interrupted_promptly
from tests._support import run_isolated

#: Every test here bounds how long after the SIGINT the KeyboardInterrupt came.
pytestmark = pytest.mark.wallclock


SCENARIO = HARNESS + textwrap.dedent('''
    backend, side, spikes, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    options = {} if threads < 0 else {"threads": threads}
    polymask.mask(comb(side, spikes), (8, 8), backend=backend, **options)  # warm up (Numba compiles, OpenCL builds)
    interrupt_during(lambda scale: later(polymask.mask, comb(side, spikes * scale), (side, side), backend=backend,
                                         **options))
''')


#: backend -> (side, comb teeth, threads (-1: stage takes none)): fills that take seconds.
LONG_FILLS = {
    "scanline": (16000, 6000, 0),
    "scanline_1_thread": (16000, 6000, 1),
    "cython_prange": (4000, 400, 0),
    "numba": (4000, 400, 0),
    "cython_cpp": (2000, 200, -1),
    "cython_class": (2000, 200, -1),
    # The kernel cannot be cancelled: after Ctrl-C it runs on (seconds), so keep it short.
    "opencl": (2000, 200, -1),
}
#: The promise: 0.25 s through the public API (scanline), 1 s for the teaching
#: stages; twice that here, because this machine is shared while tests run.
BOUND = {"scanline": 0.5, "scanline_1_thread": 0.5}

AVAILABLE = {name for name, (ok, _) in polymask.available_backends().items() if ok}


@pytest.mark.parametrize("case", list(LONG_FILLS))
def test_sigint_during_a_long_fill_raises_keyboard_interrupt(case):
    backend = case.split("_1_")[0]
    if backend not in AVAILABLE:
        pytest.fail(f"backend {backend} is not available here: {polymask.available_backends()[backend].reason}")
    side, spikes, threads = LONG_FILLS[case]
    completed = run_isolated([sys.executable, "-c", SCENARIO, backend, str(side), str(spikes), str(threads)], 120)
    assert completed is not None, f"{case}: no result within 120 s"
    assert completed.returncode == 0, f"{case}: the scenario failed:\n{completed.stderr[-3000:]}"
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    # "returned" may stay False for a fill that was not interrupted at all
    # (the held-back KeyboardInterrupt then lands right after it): the
    # latency is what tells.
    assert not report["returned"], f"{case}: the fill ran to the end: {report}"
    assert report["latency"] < BOUND.get(case, 2.0), f"{case}: KeyboardInterrupt came late: {report}"


# ---- coverage and coco.encode: their own extension modules ------------------------
# polymask._coverage_sweep and polymask._coco are extension modules of their
# own; they share the core library, and its one process-wide Ctrl-C check.
# Once each module had to install the check itself, and without it these
# calls ran to the end before the KeyboardInterrupt landed.

OTHER_MODULES = HARNESS + textwrap.dedent('''
    call, threads = sys.argv[1], int(sys.argv[2])

    side = 8000
    if call == "coverage":  # seconds of edge cells: every row crosses 8,000 edges
        run = lambda scale: later(polymask.coverage, comb(side, 4000 * scale), (side, side), dtype=np.uint8,
                                                      threads=threads)
    elif call == "coverages":  # two such polygons: with two threads a helper takes one
        run = lambda scale: later(polymask.coverages, [comb(side, 4000 * scale)] * 2, (side, side), dtype=np.uint8,
                                                       threads=threads)
    elif call == "coco.iou":  # 4,000 x 4,000 overlapping objects: seconds, in a loop that holds the GIL
        rng = np.random.default_rng(1)
        objects = []
        for _ in range(4000):
            angles = np.sort(rng.uniform(0, 2 * np.pi, 24))
            centre, radii = rng.uniform([0, 0], [640, 480]), rng.uniform(20, 240) * rng.uniform(0.3, 0.5, 24)
            ring = np.c_[centre[0] + radii * np.cos(angles), centre[1] + radii * np.sin(angles)]
            objects.append([ring.ravel().tolist()])
        rles = polymask.coco.encode(objects, 480, 640)
        run = lambda scale: later(polymask.coco.iou, rles * scale, rles * scale)
    else:  # 150 objects of tens of milliseconds each
        segmentation = [comb(side, 100).ravel().tolist()]
        run = lambda scale: later(polymask.coco.encode, [segmentation] * (150 * scale), side, side, threads=threads)
    interrupt_during(run)
''')


@pytest.mark.parametrize("call", ["coverage", "coverages", "coco.encode", "coco.iou"])
@pytest.mark.parametrize("threads", [0, 1])
def test_sigint_during_coverage_and_coco_encode_raises_keyboard_interrupt(call, threads):
    assert_interrupted_promptly(OTHER_MODULES, f"{call}, threads={threads}", call, threads)


# ---- label images: rasterize, centre rule and all_touched -----------------------
# Their bands were planned from the image's width and the polygon count
# alone, so on one thread 20 polygons crossing every row thousands of times
# made one band of seconds, and Ctrl-C waited for all of it (1.8 s).

LABEL_IMAGES = HARNESS + textwrap.dedent('''
    all_touched, threads = sys.argv[1] == "all_touched", int(sys.argv[2])
    side = 6000  # every polygon crosses every row 3,000 (all_touched) or 6,000 times
    teeth, count = (1500, 12) if all_touched else (3000, 20)
    interrupt_during(lambda scale: later(polymask.rasterize, [comb(side, teeth)] * (count * scale), (side, side),
                                                              all_touched=all_touched, threads=threads))
''')


@pytest.mark.parametrize("rule", ["centre", "all_touched"])
@pytest.mark.parametrize("threads", [0, 1])
def test_sigint_during_a_long_rasterize_raises_keyboard_interrupt(rule, threads):
    assert_interrupted_promptly(LABEL_IMAGES, f"rasterize {rule}, threads={threads}", rule, threads)


# A million small polygons: the core built them (and found their extents)
# in one uninterruptible loop of about a second before any band started,
# so Ctrl-C waited up to 0.8 s; they are now built in chunks with the check
# between them.

MANY_POLYGONS = HARNESS + textwrap.dedent('''
    all_touched = sys.argv[1] == "all_touched"
    rng = np.random.default_rng(0)

    def many(scale):
        count = 1_000_000 * scale
        polygons = rng.uniform(0, 4000, (count, 1, 2)) + rng.uniform(-5, 5, (count, 8, 2))
        return lambda: polymask.rasterize(polygons, (4000, 4000), all_touched=all_touched, threads=1)
    interrupt_during(many)
''')


@pytest.mark.parametrize("rule", ["centre", "all_touched"])
def test_sigint_while_a_million_polygons_are_read_raises_keyboard_interrupt(rule):
    assert_interrupted_promptly(MANY_POLYGONS, f"rasterize of a million polygons, {rule}", rule)


# ---- masks and coco.encode: one huge object in a batch ----------------------------
# A batch's chunks are whole objects, so an object of seconds held Ctrl-C
# back until it was done (1.3-1.9 s here, 10 s for a bigger COCO object), on
# a helper as much as on the caller.  Big objects are now swept in bands
# with the check between them, and a helper's bands stop when the batch does.

BATCHES = HARNESS + textwrap.dedent('''
    call, threads = sys.argv[1], int(sys.argv[2])
    # Seconds an object (teeth much narrower than a pixel: many crossings,
    # few spans); with two threads the helper takes one of the two.
    if call == "coco.encode":
        run = lambda scale: later(polymask.coco.encode, [[tall_comb(200, 30000, 20000 * scale).ravel().tolist()]]
                                                         * threads, 30000, 200, threads=threads)
    else:
        run = lambda scale: later(polymask.masks, [tall_comb(2000, 30000, 24000 * scale)] * threads,
                                                   (30000, 2000), threads=threads, crop=call == "masks-crop")
    interrupt_during(run)
''')


@pytest.mark.parametrize("call", ["masks", "masks-crop", "coco.encode"])
@pytest.mark.parametrize("threads", [1, 2])
def test_sigint_during_a_batch_with_a_huge_object_raises_keyboard_interrupt(call, threads):
    assert_interrupted_promptly(BATCHES, f"{call}, threads={threads}", call, threads)


# ---- one band of a pathological polygon ---------------------------------------------
# The exact sweeps (coverage, and all_touched once edges overlap) checked for
# Ctrl-C only between bands of rows, and one band could hold minutes of work:
# thousands of edges crossing each other inside one row (quadratic in the
# edges), or a detailed outline with tens of thousands of vertices per cell.
# They now poll every bounded number of steps inside a band.

ONE_BAND = HARNESS + textwrap.dedent('''
    case, threads = sys.argv[1], int(sys.argv[2])
    rng = np.random.default_rng(7)

    def crossing_polygon(edges, rows, width=4096):
        """Random vertices in `rows` rows: about 0.12 * edges**2 crossings."""
        return np.column_stack([rng.uniform(0, width, edges), rng.uniform(-0.45, rows - 0.55, edges)])

    def outline(vertices, radius, centre):
        angles = np.linspace(0, 2 * np.pi, vertices, endpoint=False)
        return np.column_stack([centre + radius * np.cos(angles), centre + radius * np.sin(angles)])

    if case in ("crossings-1-row", "crossings-4-rows", "crossings-100-rows"):
        rows = {"crossings-1-row": 1, "crossings-4-rows": 4, "crossings-100-rows": 100}[case]

        def run(scale):  # seconds of crossings
            polygon = crossing_polygon(30000 * scale, rows)
            return lambda: polymask.coverage(polygon, (rows, 4096), threads=threads)
    elif case == "all_touched-overlap":  # one edge traced back and forth: the exact area sweep
        def run(scale):
            polygon = crossing_polygon(30000 * scale, 4)
            polygon = np.concatenate([polygon, polygon[-2::-1]])
            return lambda: polymask.mask(polygon, (4, 4096), all_touched=True, threads=threads)
    else:  # "outline": 300,000 vertices on a circle of radius 4 px, thousands per cell
        # (one took 15 s and held Ctrl-C back for all of it; now 0.1 s, so 30 of them)
        polygon = outline(300_000, 4.0, 50.0)
        run = lambda scale: later(polymask.coverages, [polygon] * (30 * scale), (100, 100), threads=threads)
    interrupt_during(run)
''')


@pytest.mark.parametrize("case", ["crossings-1-row", "crossings-4-rows", "crossings-100-rows", "all_touched-overlap",
                                  "outline"])
@pytest.mark.parametrize("threads", [1, 2])
def test_sigint_inside_one_band_of_a_pathological_polygon_raises_keyboard_interrupt(case, threads):
    assert_interrupted_promptly(ONE_BAND, f"{case}, threads={threads}", case, threads)


# ---- points: contains and contains_labels ----------------------------------
# A comb's teeth all lay in one band of its outline, so each point tested
# every tooth, in chunks sized from the average band: no check for over 60 s.
# Indexes were built without a check: 8 s for 2x10^6 vertices, 3-7 s for
# 2x10^6 small polygons.  The SIGINT comes after `delay` s, past the
# vertices' own copy (the core's Polygon), inside the index's build.

POINTS = HARNESS + textwrap.dedent('''
    call, threads, delay = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    rng = np.random.default_rng(41)

    def run(scale):
        if call == "comb":  # a comb, with 5x10^6 points: seconds of queries
            n = 200_000
            xs, ys = np.linspace(0, 1000, n), np.where(np.arange(n) % 2, 1e-3, 0.0)
            polygon = np.vstack([np.c_[xs, ys], [(1000, 1e6), (0, 1e6)]])
            px, py = rng.uniform(0, 1000, 5_000_000 * scale), rng.uniform(0, 1e-3, 5_000_000 * scale)
            return later(polymask.contains, polygon, px, py, threads=threads)
        if call == "index":  # the edge index of 2x10^6 random vertices, for one point
            polygon = rng.uniform(0, 1000, (2_000_000 * scale, 2))
            return lambda: polymask.contains(polygon, [500.0], [500.0], threads=threads)
        if call in ("labels", "labels-index"):  # 2x10^6 six-vertex polygons and one point
            count = 2_000_000 * scale
            polygons = rng.uniform(0, 4000, (count, 1, 2)) + rng.uniform(-5, 5, (count, 6, 2))
            if call == "labels":
                return lambda: polymask.contains_labels(polygons, [100.0], [100.0], threads=threads)
            # the polygons' index alone, once the input funnel has read them
            flat = polymask._inputs.polygons(polygons)
            return lambda: polymask._points.PolygonLabels(flat.vertices, flat.ring_ends, flat.polygon_ends)
        # "labels-grid": tall combs on an 8000 x 8000 grid, 8,000 crossings a row each
        return later(polymask.contains_labels, [comb(8000, 4000)] * (20 * scale), np.arange(8000.0),
                    np.arange(8000.0)[:, None], threads=threads)
    # The index's build follows an uninterruptible copy of the vertices: aim past it.
    interrupt_during(run, delay, share=0.6 if call == "index" else None)
''')


@pytest.mark.parametrize("call, delay", [("comb", 0.3), ("index", 1.0), ("labels", 0.3),
                                         ("labels-index", 0.3), ("labels-grid", 0.3)])
@pytest.mark.parametrize("threads", [0, 1])
def test_sigint_during_point_queries_and_their_indexes_raises_keyboard_interrupt(call, delay, threads):
    assert_interrupted_promptly(POINTS, f"{call} after {delay} s, threads={threads}", call, threads, delay)


# ---- what out= holds after an interrupt ---------------------------------------------
# Documented (the `out` parameters, docs/guide/threads.md): partly written,
# some rows holding the result and the others what they held before.

INTERRUPTED_OUT = HARNESS + textwrap.dedent('''
    call = sys.argv[1]
    outs = []  # the last one made is the measured call's

    def run(scale):
        if call == "mask":
            polygon, side = comb(16000, 6000 * scale), 16000
            out = np.full((side, side), 7, dtype=np.uint8)  # 7: a value no mask writes
            outs[:] = [out]
            return lambda: polymask.mask(polygon, (side, side), out=out, threads=2)
        polygon, side = comb(4000, 8000 * scale), 4000
        out = np.full((side, side), 7.0, dtype=np.float32)  # 7.0: a value no fraction takes
        outs[:] = [out]
        return lambda: polymask.coverage(polygon, (side, side), out=out, threads=2)
    interrupt_during(run)
    out = outs[0]
    old = out == 7
    written = out[~old]
    print(json.dumps({"old": int(old.sum()), "size": int(out.size),
                      "in_range": bool(((written >= 0) & (written <= 1)).all())}))
''')


@pytest.mark.parametrize("call", ["mask", "coverage"])
def test_an_interrupted_fill_leaves_out_partly_written(call):
    completed = run_isolated([sys.executable, "-c", INTERRUPTED_OUT, call], 120)
    assert completed is not None and completed.returncode == 0, completed and completed.stderr[-3000:]
    interrupted, written = (json.loads(line) for line in completed.stdout.strip().splitlines()[-2:])
    assert not interrupted["returned"] and interrupted["latency"] < 0.5, interrupted
    # Partly: not every byte is the result (some keep their old value), and
    # what was written is a result (0/1 for a mask, a fraction for coverage).
    assert written["old"] > 0, f"{call}: out was complete after the interrupt: {written}"
    assert written["in_range"], written


# ---- a child forked from a worker thread ---------------------------------------
# CPython makes the forking thread the child's main thread; the Ctrl-C check
# must follow it (polymask/_core.pyx records the main thread again after a
# fork).  With the main thread noted once at import, a child forked from a
# worker thread never ran the check: its coverage ignored SIGINT for 30 s.
FORKED_FROM_A_WORKER_THREAD = HARNESS + textwrap.dedent('''
    call = sys.argv[1]
    calls = {
        "mask": lambda scale: later(polymask.mask, comb(16000, 6000 * scale), (16000, 16000), threads=1),
        "coverage": lambda scale: later(polymask.coverage, comb(8000, 4000 * scale), (8000, 8000), dtype=np.uint8,
                                                            threads=1),
        "rasterize": lambda scale: later(polymask.rasterize, [comb(16000, 6000 * scale)] * 2, (16000, 16000),
                                                              threads=1),
        "contains": lambda scale: later(polymask.contains, comb(8000, 4000 * scale), np.arange(8000.0),
                                                            np.arange(8000.0)[:, None]),
    }

    def fork_here():
        child = os.fork()
        if child == 0:  # this thread is the child's only thread, and its main thread
            try:
                interrupt_during(calls[call])
            finally:
                sys.stdout.flush()
                os._exit(0)
        os.waitpid(child, 0)

    worker = threading.Thread(target=fork_here)
    worker.start()
    worker.join()
''')


@pytest.mark.parametrize("call", ["mask", "coverage", "rasterize", "contains"])
def test_a_child_forked_from_a_worker_thread_answers_ctrl_c(call):
    assert_interrupted_promptly(FORKED_FROM_A_WORKER_THREAD, f"{call} in a child forked from a worker thread", call)


# ---- polymask.opencl.mask: the library's OpenCL call, default kernel --------------
# A call above launch.BLOCKING_WAIT_EDGE_TESTS waits for its copy by polling from
# Python, so Ctrl-C is heard while the kernel still runs (which goes on to its end
# on the device, and the engine waits for it before the next call).

OPENCL_DEFAULT = HARNESS + textwrap.dedent('''
    from polymask import opencl
    kernel, spin = sys.argv[1], sys.argv[2] == "spin"
    opencl.engine().spin_wait = spin  # a GPU's engine spins while it waits; a CPU device's sleeps
    opencl.mask(comb(4000, 10000)[:50], (16, 16), kernel=kernel)  # build first
    # 20,000 crossings a row: 1.5-2.5 s on PoCL
    interrupt_during(lambda scale: later(opencl.mask, comb(4000, 10000 * scale), (4000, 4000), kernel=kernel),
                     settle=opencl.engine().queue.finish)
    # The engine is still usable, and right, after the interrupt.
    small = comb(40, 7)
    assert (opencl.mask(small, (40, 40), kernel=kernel) == polymask.mask(small, (40, 40))).all()
''')


@pytest.mark.parametrize("kernel, wait", [("auto", "sleep"), ("rows", "sleep"), ("auto", "spin")])
def test_sigint_during_a_long_opencl_mask_raises_keyboard_interrupt(kernel, wait):
    assert_interrupted_promptly(OPENCL_DEFAULT, f"polymask.opencl.mask(kernel={kernel!r}), {wait}ing", kernel, wait)
