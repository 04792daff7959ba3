#!/usr/bin/env bash
# Set up everything a learner needs and open Jupyter Lab on the lessons.
#
#   scripts/learn.sh                  set up .venv, then open Jupyter Lab on notebooks/
#   scripts/learn.sh --no-browser     the same, printing the URL instead of opening a browser
#                                     (any other option goes to `jupyter lab` too)
#   scripts/learn.sh --setup-only     set up, say how to start, open nothing
#
# Builds polymask from this checkout into .venv with the `notebooks` extra
# (Jupyter, line_profiler, Cython and setuptools for `polymask check` and
# %%cython, PyOpenCL), makes OpenCL work where it can, registers the
# kernel, and puts .venv/bin first on PATH so `polymask check` works in
# Jupyter's terminals too.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh notebooks
# OpenCL is one lesson of nine: without a device, lesson and exercise 07 say why.
bash scripts/install-opencl.sh .venv/bin/python \
    || echo "==> no usable OpenCL device: lesson 07 and exercise 07 will explain what is missing"
.venv/bin/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (polymask)" >/dev/null
export PATH="$PWD/.venv/bin:$PATH"

if [ "${1:-}" = "--setup-only" ]; then
    echo "==> ready. Start with:  source .venv/bin/activate && jupyter lab notebooks/"
    echo "    first exercise:       polymask check 01 exercises/01_python/mask.py"
    exit 0
fi
echo "==> opening Jupyter Lab on notebooks/ (first exercise: polymask check 01 exercises/01_python/mask.py)"
exec .venv/bin/jupyter lab --notebook-dir=notebooks "$@"
