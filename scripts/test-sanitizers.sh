#!/usr/bin/env bash
# Build the C++ core and its GoogleTest suite with AddressSanitizer +
# UndefinedBehaviorSanitizer, then run the suite with ctest.
#
#   scripts/test-sanitizers.sh
#
# Any out-of-bounds access, use after free, leak, signed overflow, bad
# float-to-int cast or other undefined behaviour aborts the test that hit it
# (-fno-sanitize-recover=all plus halt_on_error), so ctest and this script
# fail.  The build lives in $SANITIZE_BUILD_DIR (default build/sanitize) and
# uses the system C++ compiler with OpenMP (GCC's libgomp runs cleanly under
# ASan), so the threaded fills are checked with real threads.
set -euo pipefail
cd "$(dirname "$0")/.."

build="${SANITIZE_BUILD_DIR:-build/sanitize}"

# Prefer the CMake and Ninja that scripts/test.sh puts in .venv, else the system's.
cmake=cmake
ctest=ctest
[ -x .venv/bin/cmake ] && cmake=.venv/bin/cmake && ctest=.venv/bin/ctest
generator=()
if [ -x .venv/bin/ninja ]; then
    generator=(-G Ninja -DCMAKE_MAKE_PROGRAM="$PWD/.venv/bin/ninja")
elif command -v ninja >/dev/null; then
    generator=(-G Ninja)
fi

configure() {
    "$cmake" -S . -B "$build" "${generator[@]}" \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DPOLYMASK_SANITIZE=ON -DPOLYMASK_BUILD_TESTS=ON -DPOLYMASK_BUILD_PYTHON=OFF \
        -DPOLYMASK_REQUIRE_OPENMP=ON
}

echo "==> C++ core + GoogleTest with ASan + UBSan: configure ($build)"
log="$build-configure.log"
mkdir -p "$(dirname "$build")"
if ! configure >"$log" 2>&1; then
    if grep -q "GTest" "$log" && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
        echo "==> GoogleTest not found: installing libgtest-dev"
        apt-get update -qq && apt-get install -y -qq libgtest-dev >/dev/null
        configure >"$log" 2>&1 || { cat "$log"; exit 1; }
    else
        cat "$log"
        exit 1
    fi
fi
rm -f "$log"

echo "==> build"
"$cmake" --build "$build"

echo "==> run"
# halt_on_error: the first report ends the process with a failure, even for
# checks that could recover; detect_leaks: a leak is a failure too.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
"$ctest" --test-dir "$build" --output-on-failure
echo "==> ASan + UBSan: the core's GoogleTest suite passed with no sanitizer report"
