"""rasterio's own tests/test_features.py (and its conftest.py) from rasterio's sdist on PyPI.

rasterio's wheels carry no tests; its source distribution does.  This module
takes the two files for the installed rasterio version out of that sdist
into ``.cache/rasterio/v<version>/rasterio_tests/`` (a package of its own,
so its relative imports work and it never shadows polymask's ``tests``),
for tests/test_rasterio_suite.py.  ``scripts/setup.sh test`` runs it once,
so pytest itself downloads nothing:

    .venv/bin/python tests/rasterio_tests.py

rasterio's conftest.py refuses to start unless six test rasters exist in
``data/``; the sdist leaves them out, and the rasterize and geometry_mask
tests read none of them, so empty files stand in for them.

pip reads an sdist's metadata before saving it, and rasterio's build asks
``gdal-config`` for GDAL's version; a stand-in answering with the installed
wheel's GDAL version lets pip save the file without GDAL's headers.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

CACHE = Path(__file__).resolve().parent.parent / ".cache" / "rasterio"
FILES = ("conftest.py", "test_features.py")
#: The rasters rasterio's conftest.py checks for before any test runs.
CHECKED_RASTERS = ("RGB.byte.tif", "float.tif", "float32.tif", "float_nan.tif", "shade.tif", "RGBA.byte.tif")


def rasterio_tests() -> Path:
    """The folder that holds the ``rasterio_tests`` package (fetched once)."""
    import rasterio

    folder = CACHE / f"v{rasterio.__version__}"
    package = folder / "rasterio_tests"
    if not all((package / name).exists() for name in FILES + tuple(f"data/{r}" for r in CHECKED_RASTERS)):
        _from_sdist(rasterio.__version__, rasterio.__gdal_version__, package)
    return folder


def _from_sdist(version: str, gdal_version: str, package: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        stand_in = Path(folder) / "gdal-config"
        stand_in.write_text(f'#!/bin/sh\ncase "$1" in --version) echo {gdal_version} ;; *) echo ;; esac\n')
        stand_in.chmod(0o755)
        environment = {**os.environ, "GDAL_CONFIG": str(stand_in), "PATH": f"{folder}:{os.environ['PATH']}"}
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--no-binary",
                "rasterio",
                "--dest",
                folder,
                f"rasterio=={version}",
            ],
            check=True,
            env=environment,
        )
        (sdist,) = Path(folder).glob("rasterio-*.tar.gz")
        with tarfile.open(sdist) as archive:
            texts = {name: archive.extractfile(f"rasterio-{version}/tests/{name}").read() for name in FILES}
    package.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        partial = package / f"{name}.part"
        partial.write_bytes(text)
        partial.replace(package / name)
    (package / "__init__.py").write_text("")
    (package / "data").mkdir(exist_ok=True)
    for name in CHECKED_RASTERS:
        (package / "data" / name).write_bytes(b"")


if __name__ == "__main__":
    print(f"rasterio's feature tests: {rasterio_tests()}")
