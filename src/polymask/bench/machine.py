"""What the table was measured on: the header of every benchmark report."""
from __future__ import annotations

import os
import platform
from importlib.metadata import PackageNotFoundError, version

import numpy as np

import polymask


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _package_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def opencl_device() -> str:
    """The device the OpenCL backend would use, or why there is none."""
    try:
        from polymask import opencl
    except ImportError as error:
        return f"none ({error})".splitlines()[0][:120]
    try:
        return opencl.describe_default_device()
    except Exception as error:  # noqa: BLE001 -- a header must never abort the benchmark
        return f"unavailable ({type(error).__name__}: {error})".splitlines()[0][:120]


def machine_info() -> dict:
    info = polymask.build_info()
    return {
        "cpu": cpu_model(),
        "cores": usable_cores(),
        # The production fills' default thread count, in polymask's own pool
        # (build_info()["threading"]); OpenMP serves only the cython_prange lesson.
        "threads": info["threads"],
        "threading": info["threading"],
        "openmp": info["openmp"],
        "compiler": info["compiler"],
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cython": _package_version("cython"),
        "polymask": info["version"],
        "opencl_device": opencl_device(),
        "platform": platform.platform(),
    }
