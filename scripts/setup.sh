#!/usr/bin/env bash
# Set up polymask from source in ./.venv, with the given extras.
#
#   scripts/setup.sh EXTRAS        e.g.  scripts/setup.sh test,peers
#
# Creates the virtual environment if it is missing, then builds and installs
# polymask from this checkout (scikit-build-core + CMake + Cython) with
# OpenMP required: a build without it fails here instead of running slowly.
set -euo pipefail
cd "$(dirname "$0")/.."

extras="${1:-}"
python="${PYTHON:-python3}"

if [ ! -x .venv/bin/python ]; then
    echo "==> creating .venv with $("$python" --version)"
    "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip

spec="."
[ -n "$extras" ] && spec=".[$extras]"
echo "==> building and installing polymask from source: pip install '$spec'"
.venv/bin/python -m pip install --quiet "$spec" \
    --config-settings=cmake.define.POLYMASK_REQUIRE_OPENMP=ON

# pip's PoCL cannot build kernels on every CPU: fall back to the system's PoCL.
case ",$extras," in
    *,test,*|*,opencl,*|*,bench,*|*,notebooks,*) bash scripts/install-opencl.sh .venv/bin/python ;;
esac

# The AR6 regions the regionmask tests compare against: regionmask fetches them from
# github.com at run time; tests/ar6_data.py takes the same file from regionmask's sdist on PyPI.
case ",$extras," in
    *,test,*) .venv/bin/python tests/ar6_data.py ;;
esac

# rasterio's own feature tests (tests/test_rasterio_suite.py): its wheels carry no
# tests, so tests/rasterio_tests.py takes them from rasterio's sdist on PyPI.
case ",$extras," in
    *,test,*) .venv/bin/python tests/rasterio_tests.py ;;
esac

# Fail now, not later, if the compiled core did not build or import.
.venv/bin/python -c "import polymask, json; print(json.dumps(polymask.build_info()))"
