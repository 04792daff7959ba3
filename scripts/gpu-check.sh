#!/usr/bin/env bash
# The OpenCL check on this machine's best OpenCL device (a GPU where there is one):
# each kernel beside the hardware's floor (writing the mask once; copying it to
# page-locked memory), the call users make, the CPU, and the pixels that differ.
#
#   scripts/gpu-check.sh                        (needs .venv from scripts/setup.sh opencl or test)
#   scripts/gpu-check.sh --device gpu:1 --sizes 1024 4096 --json gpu.json
#
# Every option is python -m polymask.bench.gpu's (--help lists them).  Exit status 1
# means some pixel differed from polymask.mask; 2 means no OpenCL device was found.
set -euo pipefail
cd "$(dirname "$0")/.."
python=.venv/bin/python
if [ ! -x "$python" ]; then
    echo "gpu-check: no .venv here; run scripts/setup.sh opencl first (or: python -m polymask.bench.gpu)" >&2
    exit 2
fi
exec "$python" -m polymask.bench.gpu "$@"
