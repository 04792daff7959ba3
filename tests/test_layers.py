"""The library stands alone: importing it loads no course module, and its default call is its own.

The course (``polymask.course``: stages, checker, lessons) stands on the
library; ``backend=`` reaches a stage explicitly, for comparisons, and
nothing in the environment reroutes the default call.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

import polymask
from tests._support import ABOVE_THE_LIBRARY, double_mask, run_isolated


def _run(code: str, **environment: str) -> dict:
    """Run `code` in a fresh interpreter (its last line prints JSON) and return what it printed."""
    env = {key: value for key, value in os.environ.items() if key != "POLYMASK_BACKEND"}
    env.update(environment)
    result = run_isolated([sys.executable, "-c", code], 120, env=env)
    assert result is not None, "no answer within 120 s"
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


LOADED_ABOVE = f"[name for name in sys.modules if name.startswith({ABOVE_THE_LIBRARY!r})]"


def test_import_polymask_loads_no_course_module():
    loaded = _run(f"import json, sys; import polymask; print(json.dumps({LOADED_ABOVE}))")
    assert loaded == []


def test_the_library_s_calls_load_no_course_module():
    code = f"""
import json, sys
import numpy as np
import polymask
square = [(1, 1), (5, 1), (5, 5), (1, 5)]
polymask.mask(square, (8, 8)); polymask.mask(np.array(square, float), (8, 8), window=(1, 1, 4, 4))
polymask.masks([square], (8, 8)); polymask.rasterize([square], (8, 8)); polymask.coverage(square, (8, 8))
polymask.contains(square, [2.0], [2.0]); polymask.contains_labels([square], [2.0], [2.0])
print(json.dumps({LOADED_ABOVE}))
"""
    assert _run(code) == []


def test_the_check_sees_a_course_module_when_one_is_loaded():
    loaded = _run(f"import json, sys; import polymask.course.stages; print(json.dumps({LOADED_ABOVE}))")
    assert "polymask.course.stages" in loaded


DEFAULT_CALL_TIMING = """
import json, statistics, sys, time
import numpy as np
import polymask
vertices = np.array([(10.5, 3.0), (190.0, 40.0), (120.0, 195.5), (4.0, 150.0)])
def median_seconds(call, repeats=5):
    times = []
    for _ in range(repeats):
        start = time.perf_counter(); call(); times.append(time.perf_counter() - start)
    return statistics.median(times)
default = polymask.mask(vertices, (200, 200))
default_s = median_seconds(lambda: polymask.mask(vertices, (200, 200)))
list_s = median_seconds(lambda: polymask.mask(vertices.tolist(), (200, 200)))
print(json.dumps({"mask": default.tolist(), "default_s": default_s, "list_s": list_s,
                  "loaded": {loaded}}))
""".replace("{loaded}", LOADED_ABOVE)


@pytest.mark.wallclock
def test_polymask_backend_in_the_environment_leaves_the_default_call_on_the_core():
    """$POLYMASK_BACKEND=python once made every default call run the pure-Python lesson (~100x slower here)."""
    plain = _run(DEFAULT_CALL_TIMING)
    forced = _run(DEFAULT_CALL_TIMING, POLYMASK_BACKEND="python")
    assert forced["loaded"] == []  # the course was never consulted
    vertices = np.array([(10.5, 3.0), (190.0, 40.0), (120.0, 195.5), (4.0, 150.0)])
    assert np.array_equal(np.array(forced["mask"]), double_mask(vertices, (200, 200)))
    # The pure-Python stage takes tens of milliseconds on 200x200; the core well under one.
    python_s = _run(DEFAULT_CALL_TIMING.replace("polymask.mask(vertices, (200, 200))",
                                                "polymask.mask(vertices, (200, 200), backend='python')"))["default_s"]
    for case in ("default_s", "list_s"):
        assert forced[case] < 5 * plain[case] + 1e-3
        assert forced[case] * 20 < python_s


def test_backend_names_a_course_stage_explicitly():
    vertices = np.array([(1.5, 1.0), (9.0, 2.0), (5.0, 9.5)])
    for backend in ("python", "cython_typed", "scanline"):
        assert np.array_equal(polymask.mask(vertices, (12, 12), backend=backend), polymask.mask(vertices, (12, 12)))
    with pytest.raises(ValueError, match=r"unknown backend 'warp_drive'; choose one of: auto, python"):
        polymask.mask(vertices, (12, 12), backend="warp_drive")
    with pytest.raises(TypeError, match=r"backend must be a string, got 3"):
        polymask.mask(vertices, (12, 12), backend=3)


def test_available_backends_lists_the_library_s_own_fill_and_the_course_s_stages():
    found = polymask.available_backends()
    assert "auto" not in found  # the library's own fill is no stage
    assert found["scanline"] == (True, "")
    assert {"python", "cython_prange", "opencl"} <= set(found)


#: The course made unimportable, as in an install that left it out: None in
#: sys.modules makes `import polymask.course...` raise ModuleNotFoundError.
WITHOUT_THE_COURSE = r"""
import json, sys
sys.modules["polymask.course"] = sys.modules["polymask.course.stages"] = None
import numpy as np
import polymask
found = polymask.available_backends()
try:
    polymask.mask([(1, 1), (6, 1), (3, 6)], (8, 8), backend="numpy")
    outcome = "returned"
except Exception as error:
    outcome = f"{type(error).__name__}: {error}"
print(json.dumps({"found": {name: list(entry) for name, entry in found.items()}, "numpy": outcome,
                  "auto": int(polymask.mask([(1, 1), (6, 1), (3, 6)], (8, 8)).sum())}))
"""


def test_without_the_course_backends_say_it_is_missing():
    """Once a raw ModuleNotFoundError from available_backends() and from backend="numpy"."""
    completed = run_isolated([sys.executable, "-c", WITHOUT_THE_COURSE], 120)
    assert completed is not None and completed.returncode == 0, completed and completed.stderr[-3000:]
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    assert report["found"] == {"course": [False, report["found"]["course"][1]]}, report
    assert "the backends of 'course' are missing" in report["found"]["course"][1]
    assert "ModuleNotFoundError" in report["found"]["course"][1]
    assert report["numpy"].startswith("RuntimeError: backend 'numpy' is not available here: the backends of "
                                      "'course' are missing"), report["numpy"]
    assert report["numpy"].endswith("available: auto"), report["numpy"]
    assert report["auto"] > 0  # the library itself never needed the course
