"""Both OpenCL kernels on the course's standard problem: wall time, kernel time, transfers.

    pytest benchmarks/test_opencl_kernels.py --benchmark-only --benchmark-columns=median,iqr,rounds

What is timed is a resident engine's `mask` call: upload the polygon,
run the kernel, copy the mask back (the program is built and the buffers
allocated before timing).  extra_info adds what the wall time hides, read
from OpenCL events by polymask.opencl.profile (medians): kernel_s, the
kernel alone, and transfer_s, the polygon's upload plus the mask's download.
The per-pixel kernel is the course's GPU rung; the scanline kernel is the
algorithmic one.  Under --benchmark-disable each runs once on a small image.
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


@pytest.mark.parametrize("kernel", ["pixel", "scanline"])
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
