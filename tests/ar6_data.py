"""The IPCC AR6 reference regions for the regionmask tests, without GitHub.

regionmask defines SREX, Giorgi and PRUDENCE in its code, but fetches AR6
(``IPCC-WGI-reference-regions-v4.zip``) from github.com with pooch the first
time it is used.  The same file, with the same SHA-256 that regionmask's pooch
registry checks, is inside regionmask's source distribution on PyPI.  This
module puts it where pooch looks (``<cache>/v<regionmask version>/``), taking
it from that sdist, so the tests need only PyPI, which installing the test
extra needs anyway.  ``scripts/setup.sh test`` runs it once, so pytest itself
downloads nothing:

    .venv/bin/python tests/ar6_data.py
"""
from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

NAME = "IPCC-WGI-reference-regions-v4.zip"
CACHE = Path(__file__).resolve().parent.parent / ".cache" / "regionmask"


def ar6_cache() -> Path:
    """The cache_dir for ``regionmask.set_options``, holding the AR6 file (fetched once)."""
    import regionmask

    target = CACHE / f"v{regionmask.__version__}" / NAME
    if not target.exists():
        _from_sdist(regionmask.__version__, target)
    return CACHE


def _from_sdist(version: str, target: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                        "--dest", folder, f"regionmask=={version}"], check=True)
        (sdist,) = Path(folder).glob("regionmask-*.tar.gz")
        with tarfile.open(sdist) as archive:
            member = archive.getmember(f"regionmask-{version}/data/{NAME}")
            data = archive.extractfile(member).read()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    partial.write_bytes(data)
    partial.replace(target)  # whole or absent: pooch checks its hash on use


if __name__ == "__main__":
    print(f"AR6 regions for the regionmask tests: {ar6_cache()}")
