#!/usr/bin/env bash
# Set up everything a learner needs and open Jupyter Lab on the lessons.
#
#   scripts/learn.sh                  set up .venv (if needed), then open Jupyter Lab on notebooks/
#   scripts/learn.sh --no-browser     the same, printing the URL instead of opening a browser
#                                     (any other option goes to `jupyter lab` too)
#   scripts/learn.sh --setup-only     set up, say how to start, open nothing
#   scripts/learn.sh --rebuild        rebuild polymask even if nothing changed since the last build
#
# Builds polymask from this checkout into .venv with the `notebooks` extra
# (Jupyter, line_profiler, Numba, Cython and setuptools for `polymask check`
# and %%cython, PyOpenCL), makes OpenCL work where it can, registers the
# kernel, and puts .venv/bin first on PATH so `polymask check` works in
# Jupyter's terminals too.  The build is skipped when no source file
# changed since the last one (the stamp is .venv/.polymask-learn-stamp).
# Run as root (a container), Jupyter needs --allow-root: it is passed for you.
set -euo pipefail
cd "$(dirname "$0")/.."

setup_only=0
rebuild=0
jupyter_args=()
for argument in "$@"; do
    case "$argument" in
        --setup-only) setup_only=1 ;;
        --rebuild) rebuild=1 ;;
        *) jupyter_args+=("$argument") ;;
    esac
done

stamp=.venv/.polymask-learn-stamp
sources=(src csrc kernels cmake CMakeLists.txt pyproject.toml scripts/setup.sh)
changed() {
    [ "$rebuild" = 1 ] || [ ! -f "$stamp" ] && return 0
    .venv/bin/python -c "import polymask, line_profiler, numba, nbclient" 2>/dev/null || return 0
    [ -n "$(find "${sources[@]}" -newer "$stamp" -type f -print -quit 2>/dev/null)" ]
}

if changed; then
    # setup.sh would check the OpenCL device itself and stop without one; check it once, here.
    POLYMASK_OPENCL=0 scripts/setup.sh notebooks
    # OpenCL is one lesson of nine: without a device, lesson and exercise 07 say why.
    bash scripts/install-opencl.sh .venv/bin/python \
        || echo "==> no usable OpenCL device: lesson 07 and exercise 07 will explain what is missing"
    .venv/bin/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (polymask)" >/dev/null
    touch "$stamp"
else
    echo "==> polymask in .venv is up to date with this checkout (scripts/learn.sh --rebuild to rebuild anyway)"
fi
export PATH="$PWD/.venv/bin:$PATH"

if [ "$setup_only" = 1 ]; then
    echo "==> ready. Start with:  source .venv/bin/activate && jupyter lab notebooks/"
    echo "    first exercise:       polymask check 01 exercises/01_python/mask.py"
    exit 0
fi
if [ "$(id -u)" = 0 ]; then
    echo "==> running as root (a container?): passing --allow-root to Jupyter"
    jupyter_args+=(--allow-root)
fi
echo "==> opening Jupyter Lab on notebooks/ (first exercise: polymask check 01 exercises/01_python/mask.py)"
exec .venv/bin/jupyter lab --notebook-dir=notebooks ${jupyter_args[@]+"${jupyter_args[@]}"}
