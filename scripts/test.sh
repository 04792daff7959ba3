#!/usr/bin/env bash
# Set up everything and run every test: the wheel (scripts/wheel.sh, first, as the
# README's install command runs on a fresh clone), the C++ core's GoogleTest suite
# (ctest, also under sanitizers, and a fuzzing run),
# the Python suite against the repaired wheel (pytest: tests/ and, in a fast mode
# that runs each benchmark once, benchmarks/) and the documentation build.
#
#   scripts/test.sh [extra pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

# First, as a fresh clone's user does: the README's install command, exactly as written,
# before anything else has set up .venv (it builds, repairs and tests the wheel).
echo "==> the wheel: the README's install command on this checkout (scripts/wheel.sh)"
bash scripts/wheel.sh
scripts/setup.sh test
export POLYMASK_REQUIRE_OPENMP=1

echo "==> Python sources: ruff (the lint configuration is in pyproject.toml)"
.venv/bin/ruff check .
.venv/bin/python scripts/lint.py

echo "==> Python types: mypy --strict (library), mypy (course), stubtest (scripts/typecheck.sh)"
scripts/typecheck.sh

echo "==> C++ core: configure, build and run the GoogleTest suite"
.venv/bin/python -m pip install --quiet "cmake>=3.21" ninja
source scripts/lib.sh
configure_core_tests build/ctest -DPOLYMASK_REQUIRE_OPENMP=ON
"$CMAKE" --build build/ctest
"$CTEST" --test-dir build/ctest --output-on-failure

echo "==> C++ core under AddressSanitizer + UndefinedBehaviorSanitizer"
scripts/test-sanitizers.sh address
echo "==> C++ core under ThreadSanitizer"
scripts/test-sanitizers.sh thread
echo "==> fuzzing the C++ core for ${POLYMASK_FUZZ_SECONDS:-60} s (CMake target polymask_fuzz_core, clang)"
scripts/fuzz.sh "${POLYMASK_FUZZ_SECONDS:-60}"

echo "==> the repaired wheel (built above) replaces the source install in .venv: the suite tests what users install"
.venv/bin/python -m pip install --quiet --no-deps --force-reinstall dist/polymask-*manylinux*.whl

# Exit status 5 is "no test selected": extra arguments that pick none of one run's tests.
echo "==> Python: pytest (the README's and the docs' examples included)"
.venv/bin/python -m pytest tests benchmarks --benchmark-disable -m "not wallclock" "$@" || [ $? -eq 5 ]
echo "==> Python: the tests that assert on elapsed wall-clock time, after the rest, one at a time"
.venv/bin/python -m pytest tests benchmarks --benchmark-disable -m wallclock "$@" || [ $? -eq 5 ]

echo "==> the documentation site: warnings are errors, every public name in the API reference"
scripts/docs.sh
