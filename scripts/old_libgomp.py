"""Fetch the OpenMP runtime the wheels carry: GCC 10's libgomp, as Debian bullseye ships it.

The course's prange stage links libgomp, and `auditwheel repair` copies the one it finds
into the wheel.  This machine's own libgomp may need a newer glibc than the wheel's floor
(Debian 12's needs 2.34); bullseye's needs glibc 2.17 and has every GOMP_ and OMP_ version
GCC 12 calls (up to GOMP_5.0).  The package is pinned by its SHA-256.

    python scripts/old_libgomp.py DIR     prints the folder holding libgomp.so.1 (cached in DIR)
"""

from __future__ import annotations

import hashlib
import io
import sys
import tarfile
import urllib.request
from pathlib import Path

PACKAGE = "libgomp1_10.2.1-6_amd64.deb"
URL = f"https://deb.debian.org/debian/pool/main/g/gcc-10/{PACKAGE}"
SHA256 = "4530c95aefa48e33fd8cf4acbe5c4b559dbe7bdf4c56469986c83a203982cef1"
LIBRARY_DIR = "usr/lib/x86_64-linux-gnu"


def ar_members(archive: bytes) -> dict[str, bytes]:
    """The members of a Debian package (an `ar` archive) by name."""
    if not archive.startswith(b"!<arch>\n"):
        raise ValueError("not an ar archive")
    members, at = {}, 8
    while at + 60 <= len(archive):
        header = archive[at : at + 60]
        name, size = header[:16].decode().strip().rstrip("/"), int(header[48:58])
        members[name] = archive[at + 60 : at + 60 + size]
        at += 60 + size + size % 2
    return members


def main(folder: Path) -> None:
    library_dir = folder / LIBRARY_DIR
    if not (library_dir / "libgomp.so.1").exists():
        with urllib.request.urlopen(URL, timeout=60) as response:
            package = response.read()
        digest = hashlib.sha256(package).hexdigest()
        if digest != SHA256:
            sys.exit(f"{URL}: SHA-256 {digest}, expected {SHA256}")
        data = ar_members(package)["data.tar.xz"]
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:xz") as tar:
            libraries = [m for m in tar.getmembers() if m.name.startswith(f"./{LIBRARY_DIR}/libgomp")]
            tar.extractall(folder, members=libraries, filter="data")
    print(library_dir.resolve())


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(Path(sys.argv[1]))
