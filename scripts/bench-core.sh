#!/usr/bin/env bash
# Build and run the C++ core's Google Benchmark suite (csrc/bench), single
# threaded, in Release.  Extra arguments go to the benchmark binary, e.g.
#
#   scripts/bench-core.sh --benchmark_filter=standard --benchmark_repetitions=5
set -euo pipefail
cd "$(dirname "$0")/.."

.venv/bin/python -m pip install --quiet "cmake>=3.21" ninja
configure() {
    .venv/bin/cmake -S . -B build/bench -G Ninja -DCMAKE_MAKE_PROGRAM="$PWD/.venv/bin/ninja" \
        -DCMAKE_BUILD_TYPE=Release -DPOLYMASK_BUILD_PYTHON=OFF -DPOLYMASK_BUILD_BENCH=ON \
        -DPOLYMASK_REQUIRE_OPENMP=ON
}
if ! configure >build-bench-configure.log 2>&1; then
    if grep -q "benchmark" build-bench-configure.log && command -v apt-get >/dev/null; then
        echo "==> Google Benchmark not found: installing libbenchmark-dev"
        apt-get update -qq && apt-get install -y -qq libbenchmark-dev >/dev/null
        configure >build-bench-configure.log 2>&1 || { cat build-bench-configure.log; exit 1; }
    else
        cat build-bench-configure.log
        exit 1
    fi
fi
rm -f build-bench-configure.log
.venv/bin/cmake --build build/bench --target polymask_core_bench
OMP_NUM_THREADS=1 build/bench/csrc/bench/polymask_core_bench "$@"
