#!/usr/bin/env bash
# Build the C++ core and its GoogleTest suite with ThreadSanitizer, then run
# the suite: every data race in the threading layer (csrc/src/thread_pool.cpp)
# or in a fill that two threads run at once fails the run.
#
#   scripts/test-tsan.sh
#
# The build lives in $TSAN_BUILD_DIR (default build/tsan).  The fills'
# threads are the core's own pool, not OpenMP, so there are no libgomp
# false positives to suppress.  Takes a minute or two on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

build="${TSAN_BUILD_DIR:-build/tsan}"

cmake=cmake
ctest=ctest
[ -x .venv/bin/cmake ] && cmake=.venv/bin/cmake && ctest=.venv/bin/ctest
generator=()
if [ -x .venv/bin/ninja ]; then
    generator=(-G Ninja -DCMAKE_MAKE_PROGRAM="$PWD/.venv/bin/ninja")
elif command -v ninja >/dev/null; then
    generator=(-G Ninja)
fi

echo "==> C++ core + GoogleTest with ThreadSanitizer: configure ($build)"
log="$build-configure.log"
mkdir -p "$(dirname "$build")"
if ! "$cmake" -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DPOLYMASK_TSAN=ON -DPOLYMASK_BUILD_TESTS=ON -DPOLYMASK_BUILD_PYTHON=OFF >"$log" 2>&1; then
    cat "$log"
    exit 1
fi
rm -f "$log"

echo "==> build"
"$cmake" --build "$build"

echo "==> run"
# halt_on_error: the first race fails the test that hit it.  die_after_fork=0:
# the fork test starts threads in a child of a threaded process on purpose.
export TSAN_OPTIONS="halt_on_error=1:abort_on_error=1:second_deadlock_stack=1:die_after_fork=0"
"$ctest" --test-dir "$build" --output-on-failure
echo "==> ThreadSanitizer: the core's GoogleTest suite passed with no report"
