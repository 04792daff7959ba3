#!/usr/bin/env bash
# Build and run the C++ core's Google Benchmark suite (csrc/bench), single
# threaded, in Release.  Extra arguments go to the benchmark binary, e.g.
#
#   scripts/bench-core.sh --benchmark_filter=standard --benchmark_repetitions=5
set -euo pipefail
cd "$(dirname "$0")/.."

.venv/bin/python -m pip install --quiet "cmake>=3.21" ninja
source scripts/lib.sh
configure_or_install build/bench benchmark libbenchmark-dev -DCMAKE_BUILD_TYPE=Release \
    -DPOLYMASK_BUILD_PYTHON=OFF -DPOLYMASK_BUILD_BENCH=ON -DPOLYMASK_REQUIRE_OPENMP=ON
"$CMAKE" --build build/bench --target polymask_core_bench
OMP_NUM_THREADS=1 build/bench/csrc/bench/polymask_core_bench "$@"
