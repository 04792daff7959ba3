"""Crash probes: inputs and situations that once killed the process or gave a
wrong answer silently, each now a clear Python error or the right
result.

Whatever could crash runs in a child process, so a regression shows up as a
failed test with the child's exit status and output, not as a dead test run.
Each probe prints what happened; the test checks the exit status (0, or 2
for the command line's usage errors) and the message, and that no traceback
escaped.

What the probes cover, by the issue's items:

1. OpenCL under an address-space limit: a mask too big for memory is a
   MemoryError, never SIGSEGV (tests/test_opencl_engine.py checks the engine's
   error paths, snapshots and buffer release in-process).
2. Stage functions called directly with the wrong shape, dtype or layout
   raise ValueError instead of reading past the end of the array.
3. Dask graphs and rasterize read what was validated, not what the caller
   changed afterwards.
4. Clear errors: dask chunks=0, the command line's
   bad options, unreadable files and unwritable output paths.
5. Building a Dask array costs no memory per block; absurd chunkings are
   refused before anything is built.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
import tracemalloc

import numpy as np
import pytest

import polymask
from polymask.course import stages
from tests._support import double_mask

TRIANGLE = np.array([(1.5, 0.5), (30.25, 4.0), (9.0, 27.5)])


def run_child(code: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `code` in a fresh interpreter; its exit status and output come back."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True,
                          text=True, timeout=timeout)


def run_cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "polymask.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def assert_clean_exit(completed: subprocess.CompletedProcess, status: int, *messages: str) -> None:
    """Exit `status`, every message in the output, and no traceback."""
    output = completed.stdout + completed.stderr
    assert completed.returncode == status, f"exit status {completed.returncode}, expected {status}:\n{output}"
    assert "Traceback" not in output, output
    for message in messages:
        assert message in output, f"{message!r} not in:\n{output}"


# ---- 1. OpenCL out of memory: an error, not SIGSEGV -----------------------------------------------------

OPENCL_UNDER_A_LIMIT = """
    import resource, sys
    import numpy as np
    import polymask
    from polymask import opencl
    how, extra_mib = sys.argv[1], int(sys.argv[2])
    triangle = [(0, 0), (39999, 0), (0, 39999)]
    engine = opencl.MaskEngine("cpu")
    engine.mask(triangle, (10, 10))                 # build the program before the limit
    polymask.mask(triangle, (10, 10), backend="opencl")
    with open("/proc/self/status") as status:
        address_space = int(status.read().split("VmSize:")[1].split()[0]) * 1024
    limit = address_space + extra_mib * 2**20
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))  # the soft limit only: it can be lifted again
    for attempt in range(2):                        # the engine must stay usable after the error
        try:
            if how == "engine":
                engine.mask(triangle, (40000, 40000))
            else:
                polymask.mask(triangle, (40000, 40000), backend="opencl")
            print("computed")
        except MemoryError as error:
            print("MemoryError:", type(error).__name__, str(error)[:60])
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    print("still alive:", bool(engine.mask(triangle, (10, 10)).any()))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")
@pytest.mark.skipif(not polymask.available_backends()["opencl"].available,
                    reason="POLYMASK_OPENCL=0 (test_opencl.py checks the opt-out)")
@pytest.mark.parametrize("how", ["engine", "polymask.mask"])
@pytest.mark.parametrize("extra_mib", [1000, 2000])
def test_an_opencl_mask_too_big_for_memory_is_a_memory_error(how, extra_mib):
    # 1000 MiB: the 1.6 GB host mask cannot be allocated; 2000 MiB: the host
    # mask fits, the device buffer does not (PoCL's CPU device lives in host
    # memory).  Before the fix both ended in SIGSEGV.
    completed = run_child(OPENCL_UNDER_A_LIMIT, how, str(extra_mib))
    assert_clean_exit(completed, 0, "still alive: True")
    assert completed.stdout.count("MemoryError:") == 2, completed.stdout


# ---- 2. stage functions check what they are handed -------------------------------------------------------

STAGE_PROBE = """
    import sys
    import numpy as np
    from polymask.course import stages
    inputs = {
        "(10**6, 1) ones": np.ones((10**6, 1)),
        "(5, 3) zeros": np.zeros((5, 3)),
        "(6,) flat": np.zeros(6),
        "(2, 3, 2) stack": np.zeros((2, 3, 2)),
    }
    for stage_id in sys.argv[1:]:
        function = stages.get(stage_id).load()
        for label, vertices in inputs.items():
            try:
                function(vertices, (4, 4))
                print(stage_id, label, "no error", flush=True)
            except ValueError as error:
                print(stage_id, label, "ValueError", flush=True)
"""

BOUNDARY_STAGES = [stage_id for stage_id, status in polymask.available_backends().items() if status.available]


def test_stage_functions_refuse_the_wrong_shape_in_a_child_process():
    # cython_cpp and cython_prange read 2N doubles from an (N, 1) array
    # before the fix: SIGSEGV, or a silently wrong mask for (N, 3).
    completed = run_child(STAGE_PROBE, *BOUNDARY_STAGES, timeout=300)
    assert_clean_exit(completed, 0)
    lines = completed.stdout.splitlines()
    assert len(lines) == 4 * len(BOUNDARY_STAGES), completed.stdout
    wrong = [line for line in lines if not line.endswith("ValueError")]
    assert not wrong, "\n".join(wrong)


# ---- 3. what was validated is what is computed -----------------------------------------------------------


def test_a_dask_mask_is_the_polygon_as_it_was_when_the_graph_was_built():
    import polymask.dask

    vertices = TRIANGLE.copy()
    expected = double_mask(TRIANGLE, (32, 40))
    lazy = polymask.dask.mask(vertices, (32, 40), chunks=(16, 15))
    vertices[1] = [np.nan, np.inf]
    assert np.array_equal(lazy.compute(), expected)
    vertices[:] = [(0, 0), (40, 0), (40, 32)]
    assert np.array_equal(lazy.compute(), expected), "a second compute must not see a second change"


def test_a_dask_label_image_ignores_later_changes_to_polygons_and_values():
    import polymask.dask

    polygons = np.stack([TRIANGLE, TRIANGLE + 4])
    values = np.array([5, 9], dtype=np.uint8)
    expected = polymask.rasterize(polygons.copy(), (32, 40), values.copy())
    lazy = polymask.dask.rasterize(polygons, (32, 40), values, chunks=16)
    polygons[:] = 0
    values[:] = 1
    assert np.array_equal(lazy.compute(), expected)


@pytest.mark.parametrize("threads", [1, 2])
def test_rasterize_copies_values_that_live_inside_out(threads):
    # values[p] sits in row 0 of out, under polygon 0: burning polygon 0
    # would rewrite polygon 1's label before polygon 1 is burned.
    polygons = [[(0, 0), (8, 0), (8, 6), (0, 6)], [(0, 3), (8, 3), (8, 8), (0, 8)]]
    out = np.zeros((8, 8), dtype=np.int32)
    out[0, :2] = [5, 7]
    values = out[0, :2]
    expected_out = out.copy()
    expected = polymask.rasterize(polygons, (8, 8), out[0, :2].copy(), out=expected_out, threads=threads)
    assert expected[4, 0] == 7 and expected[0, 0] == 5
    result = polymask.rasterize(polygons, (8, 8), values, out=out, threads=threads)
    assert np.array_equal(result, expected)


# ---- 4. clear errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize("chunks", [0, (0, 8), (8, 0), -2, "lots"])
def test_dask_chunks_that_are_no_block_size_are_a_value_error(chunks):
    import polymask.dask

    with pytest.raises(ValueError, match="chunks must be block sizes"):
        polymask.dask.mask(TRIANGLE, (32, 40), chunks=chunks)
    with pytest.raises(ValueError, match="chunks must be block sizes"):
        polymask.dask.rasterize([TRIANGLE], (32, 40), chunks=chunks)


@pytest.mark.parametrize("option, value, message", [
    ("--threads", "2000", "--threads must be at most 1,024, got 2,000"),
    ("--threads", "-1", "--threads must be at least 0, got -1"),
    ("--seed", "-1", "--seed must be at least 0, got -1"),
    ("--size", "300000", "--size must be at most 32,768, got 300,000"),
    ("--vertices", "0", "--vertices must be at least 1, got 0"),
])
def test_bench_refuses_numbers_it_cannot_run_with_exit_status_2(option, value, message):
    assert_clean_exit(run_cli("bench", option, value, "--no-progress"), 2, message)


@pytest.mark.parametrize("content, message", [
    ("{not json", "cannot read --from-json"),
    ("[1, 2]", "not a pytest-benchmark JSON file"),
    (json.dumps({"benchmarks": [{"name": "x"}]}), "benchmark 0 is not in pytest-benchmark's layout"),
    (json.dumps({"benchmarks": [{"stats": {"median": "fast"}}]}), "benchmark 0"),
])
def test_bench_from_json_says_what_is_wrong_with_the_file(tmp_path, content, message):
    report = tmp_path / "run.json"
    report.write_text(content)
    assert_clean_exit(run_cli("bench", "--from-json", str(report)), 2, message, str(report))


def test_bench_from_json_of_a_missing_file(tmp_path):
    assert_clean_exit(run_cli("bench", "--from-json", str(tmp_path / "nowhere.json")), 2,
                      "cannot read --from-json", "No such file")


@pytest.mark.wallclock
@pytest.mark.parametrize("option", ["--json", "--csv", "--plot"])
def test_bench_output_into_a_missing_folder_is_refused_before_the_run(tmp_path, option):
    target = tmp_path / "missing" / "report.out"
    started = time.perf_counter()
    completed = run_cli("bench", option, str(target), "--no-progress")
    assert_clean_exit(completed, 2, f"{option} ", "does not exist; create it first")
    assert completed.stdout == "", "nothing may run before the output path is checked"
    assert time.perf_counter() - started < 60
    (tmp_path / "a_file").write_text("")
    assert_clean_exit(run_cli("bench", option, str(tmp_path / "a_file" / "x"), "--no-progress"), 2,
                      "is not a directory")
    assert_clean_exit(run_cli("bench", option, str(tmp_path), "--no-progress"), 2,
                      "is a directory; expected a file name")


def test_annotate_onto_an_existing_file_is_a_clean_error(tmp_path):
    existing = tmp_path / "notes.txt"
    existing.write_text("keep me")
    assert_clean_exit(run_cli("annotate", "cython_cpp", "-o", str(existing)), 2,
                      "polymask annotate:", "is a file, not a directory")
    assert_clean_exit(run_cli("annotate", "cython_cpp", "-o", str(existing / "deeper")), 2,
                      "is a file, not a directory")
    assert existing.read_text() == "keep me"


# ---- 5. memory: a Dask graph costs nothing per block -------------------------------------------------------


def test_building_a_dask_mask_costs_no_memory_per_block():
    import polymask.dask

    tracemalloc.start()
    try:
        lazy = polymask.dask.mask(TRIANGLE, (1000, 1000), chunks=1)  # a million blocks
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert lazy.numblocks == (1000, 1000)
    # Before: 1.4 GiB (a dict of block information per block).  Now the chunk
    # boundaries, one tuple per axis.
    assert peak < 16 * 2**20, f"building the graph peaked at {peak / 2**20:.0f} MiB"
    assert np.array_equal(lazy[10:14, 2:31].compute(), double_mask(TRIANGLE, (1000, 1000))[10:14, 2:31])


@pytest.mark.wallclock
@pytest.mark.parametrize("shape, chunks", [((3000, 3000), 1), ((2**31 - 1, 2**31 - 1), 1000),
                                           ((4000, 4000), (1, 4000 // 300))])
def test_absurd_dask_chunkings_are_refused_before_anything_is_built(shape, chunks):
    import polymask.dask

    started = time.perf_counter()
    with pytest.raises(ValueError, match=r"blocks; at most 1,000,000 are allowed"):
        polymask.dask.mask(TRIANGLE, shape, chunks=chunks)
    assert time.perf_counter() - started < 5


def test_a_stage_boundary_refusal_names_the_shape():
    function = stages.get("scanline").load()
    with pytest.raises(ValueError, match=r"\(N, 2\).*\(5, 3\)"):
        function(np.zeros((5, 3)), (4, 4))
