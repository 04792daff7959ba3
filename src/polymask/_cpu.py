"""Whether this CPU can run the core polymask was built for.

On x86-64 the core is compiled for x86-64-v2 (SSE4.2 and POPCNT; every
x86-64 CPU since about 2009, and the baseline NumPy's own x86-64 wheels
require since NumPy 2.4), unless it was built with
``-DPOLYMASK_X86_64_V2=OFF``.  On an older CPU (or a virtual machine that
hides these features) its first SSE4 instruction would kill the process with
SIGILL; ``polymask/__init__.py`` imports this module first, and importing it
raises an ImportError that says what is missing and how to build for any
x86-64 CPU.  The CPU's features come from NumPy's own run-time detection.
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping

from polymask import _build_flags

#: The features -msse4.2 -mpopcnt let the compiler use, as NumPy names them.
X86_64_V2_FEATURES = ("SSE3", "SSSE3", "SSE41", "SSE42", "POPCNT")


def numpy_cpu_features() -> Mapping[str, bool] | None:
    """NumPy's run-time CPU feature table (name -> present), or None where NumPy has none."""
    try:
        # A private NumPy module, absent from NumPy's type stubs: looked up by name.
        multiarray = importlib.import_module("numpy._core._multiarray_umath")
    except ImportError:  # NumPy 1.x
        try:
            multiarray = importlib.import_module("numpy.core._multiarray_umath")
        except ImportError:
            return None
    features: Mapping[str, bool] = multiarray.__cpu_features__
    return features


def check_cpu(built_for_x86_64_v2: bool, features: Mapping[str, bool] | None) -> None:
    """Raise ImportError if the core needs x86-64-v2 and `features` says this CPU lacks part of it.

    Nothing is checked when the core was built for the plain baseline, or when
    the features are unknown (`features` None: NumPy did not say).
    """
    if not built_for_x86_64_v2 or features is None:
        return
    missing = [name for name in X86_64_V2_FEATURES if features.get(name) is False]
    if missing:
        raise ImportError(
            "polymask's C++ core was built for x86-64-v2 CPUs (SSE4.2 and POPCNT, like NumPy's own "
            f"wheels), and this CPU lacks {', '.join(missing)}.  Build polymask for any x86-64 CPU "
            "from source: pip install --no-binary polymask polymask "
            "--config-settings=cmake.define.POLYMASK_X86_64_V2=OFF")


check_cpu(_build_flags.CORE_X86_64_V2, numpy_cpu_features())
