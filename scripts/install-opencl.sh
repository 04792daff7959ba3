#!/usr/bin/env bash
# Make OpenCL work for polymask, with no manual step.
#
#   scripts/install-opencl.sh [PYTHON]      default PYTHON: .venv/bin/python
#
# `pip install '.[opencl]'` (and so '.[test]') already brings PyOpenCL and a
# CPU runtime from PyPI (PoCL, pocl-binary-distribution).  That PoCL is
# built against an older LLVM that does not know every CPU (it then fails
# every kernel build with "unknown target CPU 'generic'").  So: ask polymask
# whether a device builds and runs its kernels, and only if none does,
# install the system's PoCL with apt-get.  PyOpenCL's ICD loader finds it
# through /etc/OpenCL/vendors, beside the pip one, and polymask picks the
# device that builds.  POLYMASK_OPENCL=0 skips all of this.
set -euo pipefail
cd "$(dirname "$0")/.."

python="${1:-.venv/bin/python}"

if [ "${POLYMASK_OPENCL:-}" = "0" ]; then
    echo "==> POLYMASK_OPENCL=0: OpenCL turned off, no runtime installed"
    exit 0
fi

echo "==> OpenCL: checking that a device builds polymask's kernels"
if "$python" -m polymask.opencl; then
    exit 0
fi

echo "==> OpenCL: no usable device from pip's runtime; installing the system's PoCL (pocl-opencl-icd)"
if ! command -v apt-get >/dev/null; then
    echo "no apt-get here: install an OpenCL runtime with the system's package manager" \
         "(PoCL, or a GPU vendor's driver), or set POLYMASK_OPENCL=0" >&2
    exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq pocl-opencl-icd ocl-icd-libopencl1 >/dev/null

"$python" -m polymask.opencl
