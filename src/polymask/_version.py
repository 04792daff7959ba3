"""The installed version, read from the package metadata (pyproject.toml owns it)."""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("polymask")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"
