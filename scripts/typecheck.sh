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

echo "==> mypy --strict: the library (polymask without polymask.course)"
"$python" -m mypy --strict src/polymask --exclude '^src/polymask/course/'

echo "==> mypy: the course (polymask.course)"
"$python" -m mypy src/polymask/course

echo "==> stubtest: the sources' annotations and the .pyi stubs against the installed polymask"
"$python" -m mypy.stubtest polymask --mypy-config-file pyproject.toml \
    --allowlist scripts/stubtest-allowlist.txt
