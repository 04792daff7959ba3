"""What the table was measured on: the header of every benchmark report."""
from __future__ import annotations

import importlib
import os
import platform
import re
from importlib.metadata import PackageNotFoundError, version

import numpy as np

import polymask
from polymask.bench.records import MachineInfo


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


def stages_cython() -> str:
    """The Cython that compiled the stages, e.g. "3.3.1 (compiled the stages)".

    A module Cython compiled registers its function type under a module named
    after its Cython version (``_cython_3_3_1``), so the version is read from
    the built stage itself: right even where Cython is not installed at run
    time (pip builds in an isolated environment) or another version is.
    """
    for module, what in (("polymask.course.stages.cython_typed", "the stages"),
                         ("polymask._core", "polymask; the stages did not build")):
        try:
            compiled = importlib.import_module(module)
        except ImportError:
            continue
        for value in vars(compiled).values():
            found = re.match(r"_cython_(\d+)_(\d+)_(\d+)", type(value).__module__ or "")
            if found:
                return f"{'.'.join(found.groups())} (compiled {what})"
    return f"{_package_version('cython')} (installed; no compiled module says which Cython built it)"


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


def machine_info() -> MachineInfo:
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
        "cython": stages_cython(),
        "polymask": info["version"],
        "opencl_device": opencl_device(),
        "platform": platform.platform(),
    }
