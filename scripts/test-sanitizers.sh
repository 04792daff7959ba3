#!/usr/bin/env bash
# Build the C++ core and its GoogleTest suite under a sanitizer, then run the
# suite with ctest.
#
#   scripts/test-sanitizers.sh [address|thread]      (default: address)
#
# address: AddressSanitizer + UndefinedBehaviorSanitizer.  Any out-of-bounds
#   access, use after free, leak, signed overflow, bad float-to-int cast or
#   other undefined behaviour aborts the test that hit it.  Build in
#   $SANITIZE_BUILD_DIR (default build/sanitize).
# thread: ThreadSanitizer.  Every data race in the threading layer
#   (csrc/src/thread_pool.cpp) or in a fill that two threads run at once fails
#   the run.  The fills' threads are the core's own pool, not OpenMP, so
#   there are no libgomp false positives to suppress.  Build in
#   $TSAN_BUILD_DIR (default build/tsan).
#
# Reports are never recovered from (-fno-sanitize-recover=all plus
# halt_on_error), so ctest and this script fail.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

mode="${1:-address}"
case "$mode" in
    address)
        build="${SANITIZE_BUILD_DIR:-build/sanitize}"
        label="ASan + UBSan"
        options=(-DPOLYMASK_SANITIZE=ON -DPOLYMASK_REQUIRE_OPENMP=ON)
        # detect_leaks: a leak is a failure too.
        export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
        export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
        ;;
    thread)
        build="${TSAN_BUILD_DIR:-build/tsan}"
        label="ThreadSanitizer"
        # The plain x86-64 baseline here (the other builds are x86-64-v2), so
        # CI runs the core's suite on both: ceil_clamped has a path for each.
        options=(-DPOLYMASK_TSAN=ON -DPOLYMASK_X86_64_V2=OFF)
        # die_after_fork=0: the fork test starts threads in a child of a threaded process on purpose.
        export TSAN_OPTIONS="halt_on_error=1:abort_on_error=1:second_deadlock_stack=1:die_after_fork=0"
        ;;
    *)
        echo "usage: scripts/test-sanitizers.sh [address|thread], got '$mode'" >&2
        exit 2
        ;;
esac

echo "==> C++ core + GoogleTest with $label: configure ($build)"
configure_core_tests "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPOLYMASK_BUILD_PYTHON=OFF "${options[@]}"
echo "==> build"
"$CMAKE" --build "$build"
echo "==> run"
"$CTEST" --test-dir "$build" --output-on-failure
echo "==> $label: the core's GoogleTest suite passed with no report"
