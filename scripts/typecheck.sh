#!/usr/bin/env bash
# Type-check polymask: mypy --strict over the library, plain mypy over the
# course, and stubtest (every annotation and the compiled modules' .pyi stubs
# against the installed package).  The configuration is pyproject.toml's
# [tool.mypy]; the allowlist of stubtest is scripts/stubtest-allowlist.txt.
#
#   scripts/typecheck.sh        (after scripts/setup.sh test: mypy comes with the test extra)
set -euo pipefail
cd "$(dirname "$0")/.."
python=.venv/bin/python

# The modules --strict finds clean: the public API, its input funnel and the
# COCO module.  polymask.dask, polymask.xarray (and its _xarray_* modules),
# polymask.opencl's engine modules and polymask.bench are not strict-clean yet;
# plain mypy (the course's run below follows them) keeps them error-free.
strict_clean=(
    __init__.py __main__.py typing.py cli.py coco.py
    _api.py _masks.py _coverage.py _contains.py _rasterize.py _outputs.py _inputs.py _transform.py
    _threads.py _sequences.py _describe.py _backends.py _validation.py _geojson.py _layouts.py
    _annotations.py _geometries.py _rings.py _bounds.py _fill.py _cpu.py _install_dirs.py _version.py
    opencl/__init__.py opencl/_state.py
)
echo "==> mypy --strict: the library's strict-clean modules"
"$python" -m mypy --strict --follow-imports=silent "${strict_clean[@]/#/src/polymask/}"

echo "==> mypy: the whole library (polymask without polymask.course)"
"$python" -m mypy src/polymask --exclude '^src/polymask/course/'

echo "==> mypy: the course (polymask.course)"
"$python" -m mypy src/polymask/course

echo "==> stubtest: the sources' annotations and the .pyi stubs against the installed polymask"
"$python" -m mypy.stubtest polymask --mypy-config-file pyproject.toml \
    --allowlist scripts/stubtest-allowlist.txt
