#!/usr/bin/env bash
# Fuzz the C++ core with libFuzzer + AddressSanitizer + UBSan for a bounded time.
#
#   scripts/fuzz.sh [SECONDS]          fuzz for SECONDS (default 60); CI runs this
#   scripts/fuzz.sh --merge [SECONDS]  fuzz, then fold the inputs that reach new
#                                      code into csrc/fuzz/corpus/ (for humans;
#                                      review and commit the new files)
#
# The target is csrc/fuzz/fuzz_core.cpp (what it checks is written there).
# It runs on a copy of the committed corpus, so a CI run never changes the
# repository.  Any crash, sanitizer report, failed check, leak or slow input
# makes this script exit non-zero; the input that caused it is saved under
# $FUZZ_BUILD_DIR/artifacts/ and printed, so it can be replayed with
#   $FUZZ_BUILD_DIR/fuzz_core FILE
# The target is built by CMake (-DPOLYMASK_BUILD_FUZZER=ON with clang) in
# $FUZZ_BUILD_DIR (default build/fuzz); rebuilds are incremental.
set -euo pipefail
cd "$(dirname "$0")/.."

merge=0
if [ "${1:-}" = "--merge" ]; then
    merge=1
    shift
fi
seconds="${1:-60}"
case "$seconds" in
    '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [--merge] [SECONDS]; got '$seconds'" >&2; exit 2 ;;
esac

build="${FUZZ_BUILD_DIR:-build/fuzz}"
corpus=csrc/fuzz/corpus
mkdir -p "$build"

# apt-get only when something is missing and we may install (CI runs as root);
# returns non-zero when it cannot.
apt_install() {
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
        echo "==> installing $* with apt-get"
        apt-get update -qq && apt-get install -y -qq "$@" >/dev/null
    else
        echo "error: need $*; install them (apt-get install $*)" >&2
        return 1
    fi
}

cxx="${CXX_FUZZ:-clang++}"
if ! command -v "$cxx" >/dev/null; then
    apt_install clang libclang-rt-dev || exit 1
fi

# The target is CMake's (option POLYMASK_BUILD_FUZZER, csrc/fuzz/CMakeLists.txt):
# the same core sources and floating-point flags as every other build, with
# libFuzzer, ASan and UBSan added; -O1 -g keeps reports readable.
source scripts/lib.sh
echo "==> configuring and building the fuzz target with $("$cxx" --version | head -n 1)"
"$CMAKE" -S . -B "$build" "${GENERATOR[@]}" -DCMAKE_CXX_COMPILER="$(command -v "$cxx")" \
    -DPOLYMASK_BUILD_FUZZER=ON -DPOLYMASK_BUILD_PYTHON=OFF \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" >"$build/configure.log" 2>&1 \
    || { cat "$build/configure.log"; exit 1; }
"$CMAKE" --build "$build" --target polymask_fuzz_core >"$build/build.log" 2>&1 || { cat "$build/build.log"; exit 1; }

work="$build/corpus-work"
rm -rf "$work" "$build/artifacts"
mkdir -p "$work" "$build/artifacts"
cp "$corpus"/* "$work"/

echo "==> fuzzing for ${seconds}s from $(ls "$corpus" | wc -l) seed inputs in $corpus"
log="$build/fuzz.log"
status=0
# -max_len: 64 vertices of two 9-byte coordinates plus the header fit.
# -timeout: any single input slower than 10 s is a bug (they take microseconds).
"$build/fuzz_core" "$work" \
    -max_total_time="$seconds" -max_len=1200 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/" >"$log" 2>&1 || status=$?

executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
if [ "$status" -ne 0 ]; then
    tail -n 60 "$log"
    echo "==> FUZZING FAILED (exit $status) after ${executed:-?} inputs; reproducer(s):" >&2
    ls "$build"/artifacts/* >&2 2>/dev/null || true
    exit 1
fi
grep -E '^stat::' "$log"
echo "==> fuzzed ${executed} inputs in ${seconds}s: no crash, no sanitizer report, fills agree"

if [ "$merge" = 1 ]; then
    # Keep only inputs that reach code the committed corpus does not; with
    # hit counters off, that is a handful of files, so the corpus stays small.
    before=$(ls "$corpus" | wc -l)
    "$build/fuzz_core" -merge=1 -use_counters=0 -max_len=1200 "$corpus" "$work" >"$build/merge.log" 2>&1
    echo "==> merged: $corpus went from $before to $(ls "$corpus" | wc -l) files; review them before committing"
fi
