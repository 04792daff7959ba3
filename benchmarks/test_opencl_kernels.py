"""The OpenCL kernels on the course's standard problem: wall time, kernel time, transfers;
and the cost of a warm call beside a bare PyOpenCL launch.

    pytest benchmarks/test_opencl_kernels.py --benchmark-only --benchmark-columns=median,iqr,rounds

What is timed is a resident engine's `mask` call: upload the polygon,
run the kernel, copy the mask back (the program is built and the buffers
allocated before timing).  extra_info adds what the wall time hides, read
from OpenCL events by polymask.opencl.profile (medians): kernel_s, the
kernel alone, and transfer_s, the polygon's upload plus the mask's download.
The per-pixel kernel is the course's GPU rung; the scanline kernel is the
algorithmic one; the rows kernel (a work-group per row) is the library's
default on GPUs.  Under --benchmark-disable each runs once on a small image.

The group "warm 32x32 OpenCL call" times ``polymask.opencl.mask`` of a
triangle on a 32x32 image beside a bare PyOpenCL launch of a one-line
kernel and a blocking copy of the same 1,024 bytes: what a call costs
beyond the runtime's own floor.  (``python -m polymask.bench.gpu`` measures
the same pair alternated, with medians of many calls.)
"""
import numpy as np
import pytest

import polymask
from polymask import opencl
from polymask.course.problems import STANDARD_SIZE, STANDARD_VERTICES, standard_problem

GROUP = "standard 1024x1024, 24 vertices"  # the group of test_stages.py and test_peers.py
FAST_MODE_SIZE = 96


@pytest.fixture(scope="module")
def engine():
    reason = opencl.unavailable_reason()
    # No skip: the test extra installs a runtime; only POLYMASK_OPENCL=0 opts out.
    if reason is not None and "POLYMASK_OPENCL=0" in reason:
        pytest.skip(reason)
    assert reason is None, f"OpenCL must run here: {reason}"
    return opencl.MaskEngine()


@pytest.mark.parametrize("kernel", ["pixel", "scanline", "rows"])
def test_opencl_kernel(benchmark, engine, kernel, request):
    size = FAST_MODE_SIZE if request.config.polymask_fast_mode else STANDARD_SIZE
    vertices, shape = standard_problem(size)
    engine.mask(vertices, shape, kernel=kernel)  # build and allocate outside the timing
    benchmark.group = GROUP
    result = benchmark(engine.mask, vertices, shape, kernel=kernel)

    from benchmarks._support import record

    record(benchmark, backend=f"opencl_{kernel}", kind="opencl", shape=shape, n_vertices=STANDARD_VERTICES,
           result=result, expected=polymask.mask(vertices, shape))
    split = opencl.profile(vertices, shape, kernel=kernel, precision=engine.precision,
                           repeats=1 if request.config.polymask_fast_mode else 10, device=engine.device)
    benchmark.extra_info.update(kernel=kernel, device=split["device"], precision=engine.precision,
                                kernel_s=split["kernel_s"], transfer_s=split["transfer_s"],
                                upload_s=split["upload_s"], download_s=split["download_s"])
    assert result.dtype == np.bool_
    if engine.precision == "double":  # float32 may differ near edges (polymask.opencl.SINGLE_PRECISION_NOTE)
        assert benchmark.extra_info["matches_contract"], \
            f"{kernel}: {benchmark.extra_info['pixels_differing']} pixels differ from polymask.mask"


WARM = "warm 32x32 OpenCL call"
TRIANGLE = np.array([(1.0, 1.0), (30.0, 3.0), (20.0, 29.0)])


def test_opencl_warm_call(benchmark, engine):
    opencl.mask(TRIANGLE, (32, 32))
    benchmark.group = WARM
    result = benchmark(opencl.mask, TRIANGLE, (32, 32))
    assert np.array_equal(result, polymask.mask(TRIANGLE, (32, 32)))


def test_opencl_bare_launch_and_copy(benchmark, engine):
    import pyopencl as cl

    shared = opencl.engine()
    program = cl.Program(shared.context, "__kernel void touch(__global uchar *m) { m[get_global_id(0)] = 1; }")
    touch = program.build().touch
    device_buffer = cl.Buffer(shared.context, cl.mem_flags.READ_WRITE, 32 * 32)
    host = np.empty(32 * 32, np.uint8)
    touch.set_args(device_buffer)

    def bare():
        cl.enqueue_nd_range_kernel(shared.queue, touch, (32 * 32,), None)
        cl.enqueue_copy(shared.queue, host, device_buffer, is_blocking=True)

    benchmark.group = WARM
    benchmark(bare)
    assert host.all()
