#!/usr/bin/env bash
# Set up everything and run every test: the C++ core's GoogleTest suite
# (ctest) and the Python suite (pytest: tests/ and, in a fast mode that runs
# each benchmark once, benchmarks/).
#
#   scripts/test.sh [extra pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh test
export POLYMASK_REQUIRE_OPENMP=1

echo "==> Python sources: ruff (the lint configuration is in pyproject.toml)"
.venv/bin/ruff check .

echo "==> C++ core: configure, build and run the GoogleTest suite"
.venv/bin/python -m pip install --quiet "cmake>=3.21" ninja
configure() {
    .venv/bin/cmake -S . -B build/ctest -G Ninja -DCMAKE_MAKE_PROGRAM="$PWD/.venv/bin/ninja" \
        -DPOLYMASK_BUILD_TESTS=ON -DPOLYMASK_REQUIRE_OPENMP=ON "$@"
}
if ! configure >build-ctest-configure.log 2>&1; then
    if grep -q "GTest" build-ctest-configure.log && command -v apt-get >/dev/null; then
        echo "==> GoogleTest not found: installing libgtest-dev"
        apt-get update -qq && apt-get install -y -qq libgtest-dev >/dev/null
        configure >build-ctest-configure.log 2>&1 || { cat build-ctest-configure.log; exit 1; }
    else
        cat build-ctest-configure.log
        exit 1
    fi
fi
rm -f build-ctest-configure.log
.venv/bin/cmake --build build/ctest
.venv/bin/ctest --test-dir build/ctest --output-on-failure

echo "==> C++ core under AddressSanitizer + UndefinedBehaviorSanitizer"
scripts/test-sanitizers.sh
echo "==> C++ core under ThreadSanitizer"
scripts/test-tsan.sh
echo "==> fuzzing the C++ core for ${POLYMASK_FUZZ_SECONDS:-60} s"
scripts/fuzz.sh "${POLYMASK_FUZZ_SECONDS:-60}"

echo "==> Python: pytest"
.venv/bin/python -m pytest tests benchmarks --benchmark-disable "$@"
