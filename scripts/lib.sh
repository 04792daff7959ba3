# Shared by the scripts that configure the C++ core with CMake: source it.
#
# CMAKE, CTEST: the CMake and CTest that scripts/test.sh puts in .venv, else
# the system's.  GENERATOR: Ninja where there is one.
#
# configure_or_install BUILD_DIR FIND_NAME DEBIAN_PACKAGE [CMAKE ARGS...]:
#   configure this checkout into BUILD_DIR; when CMake fails to find
#   FIND_NAME (GTest, benchmark) and apt-get is usable as root, install
#   DEBIAN_PACKAGE and configure again.  The log is shown only on failure.
# configure_core_tests BUILD_DIR [CMAKE ARGS...]: the core with its
#   GoogleTest suite (libgtest-dev when missing).

CMAKE=cmake
CTEST=ctest
[ -x .venv/bin/cmake ] && CMAKE=.venv/bin/cmake && CTEST=.venv/bin/ctest
GENERATOR=()
if [ -x .venv/bin/ninja ]; then
    GENERATOR=(-G Ninja -DCMAKE_MAKE_PROGRAM="$PWD/.venv/bin/ninja")
elif command -v ninja >/dev/null; then
    GENERATOR=(-G Ninja)
fi

configure_or_install() {
    local build="$1" find_name="$2" package="$3"
    shift 3
    local log="$build-configure.log"
    mkdir -p "$(dirname "$build")"
    if ! "$CMAKE" -S . -B "$build" "${GENERATOR[@]}" "$@" >"$log" 2>&1; then
        if grep -q "$find_name" "$log" && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
            echo "==> $find_name not found: installing $package"
            apt-get update -qq && apt-get install -y -qq "$package" >/dev/null
            "$CMAKE" -S . -B "$build" "${GENERATOR[@]}" "$@" >"$log" 2>&1 || { cat "$log"; return 1; }
        else
            cat "$log"
            return 1
        fi
    fi
    rm -f "$log"
}

configure_core_tests() {
    local build="$1"
    shift
    configure_or_install "$build" GTest libgtest-dev -DPOLYMASK_BUILD_TESTS=ON "$@"
}
