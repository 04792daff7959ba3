"""What the OpenCL test modules share: the opt-out, the kernels, the device marker
and the two fixtures.

These tests never skip for a missing runtime: `pip install .[test]` brings
PoCL (and scripts/install-opencl.sh the system's PoCL where pip's cannot
build kernels), so "no OpenCL here" is a failure.  The one way out is the
explicit POLYMASK_OPENCL=0, and then the tests check that it gives the clear
error instead.

A test module binds the fixtures by name (``engine = _opencl_support.engine``)
so that pytest finds them there.
"""
import os
from pathlib import Path

import pytest

from polymask import opencl
from polymask.opencl.common import DEVICE_ENV, OPENCL_ENV, PYOPENCL_ENV

OPTED_OUT = os.environ.get(OPENCL_ENV, "").strip() == "0"
KERNELS = ["pixel", "scanline", "rows"]
REPOSITORY = Path(__file__).resolve().parents[1]

needs_device = pytest.mark.skipif(OPTED_OUT, reason="POLYMASK_OPENCL=0: OpenCL turned off on purpose "
                                                    "(test_opt_out_gives_the_clear_error checks that)")


@pytest.fixture(autouse=True)
def no_device_environment(monkeypatch):
    # The device choice in the developer's shell must not steer these tests.
    monkeypatch.delenv(DEVICE_ENV, raising=False)
    monkeypatch.delenv(PYOPENCL_ENV, raising=False)


@pytest.fixture(scope="module")
def engine():
    return opencl.MaskEngine(precision="double")
