"""Sphinx configuration of polymask's documentation site.

Build it with ``scripts/docs.sh`` (warnings are errors; the API reference is
checked against every module's public names).  The pages are MyST Markdown;
the API reference is generated from the numpydoc docstrings, and a public name
whose docstring is missing or fails numpydoc's checks below fails the build.
Nothing here reaches the network: intersphinx reads only the inventories kept
in ``docs/_inventories/`` (see ``intersphinx_mapping``).
"""
from __future__ import annotations

from importlib.metadata import version as _installed_version
from pathlib import Path

import polymask

project = "polymask"
author = "the polymask authors"
copyright = "2026, the polymask authors"
# The one version: pyproject.toml's, as installed (polymask.__version__ reads the same metadata).
release = polymask.__version__
version = ".".join(release.split(".")[:2])
assert release == _installed_version("polymask"), "docs built against another polymask than the one installed"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "_inventories", "README.md"]
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3

# -- API reference ------------------------------------------------------------------
autodoc_default_options = {"members": True, "undoc-members": True, "member-order": "bysource"}
autodoc_typehints = "none"          # the numpydoc sections say the types
autosummary_generate = False
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# Checks every public docstring must pass (numpydoc's codes): a docstring exists (GL08), it
# opens with a one-line summary that ends with a period (SS01, SS03), and its Parameters
# section names only parameters the signature has (PR02) with types well written (PR06).
numpydoc_validation_checks = {"GL08", "SS01", "SS03", "PR02", "PR06"}
# Fields of dataclasses and named tuples are documented by ``#:`` comments, which autodoc
# shows but numpydoc cannot read (it reads __doc__); private modules are not in the reference.
# Constants (UPPER_CASE, __version__) are documented by ``#:`` comments too.
numpydoc_validation_exclude = {r"\._[a-z]", r"\.__init__$", r"\.__call__$", r"\.cached_property$",
                               r"\.[A-Z][A-Z0-9_]+$", r"\.__version__$",
                               r"polymask\.course\.stages\.Stage\.[a-z_0-9]+$",
                               r"polymask\.course\.checker\.(CheckResult|Exercise)\.[a-z_]+$"}
numpydoc_validation_overrides = {"SS03": [r"^Alias for field number \d+$"]}

# -- Cross-references to the libraries polymask works with --------------------------
# The build never reaches the network: an inventory is used only when its objects.inv
# is kept in docs/_inventories/NAME.inv (fetch it from URL/objects.inv where the network
# allows).  Without it, references to that library are plain text.
_INVENTORY_URLS = {
    "numpy": "https://numpy.org/doc/stable/",
    "shapely": "https://shapely.readthedocs.io/en/stable/",
    "rasterio": "https://rasterio.readthedocs.io/en/stable/",
    "xarray": "https://docs.xarray.dev/en/stable/",
    "dask": "https://docs.dask.org/en/stable/",
}
_INVENTORIES = Path(__file__).parent / "_inventories"
intersphinx_mapping = {name: (url, str(_INVENTORIES / f"{name}.inv"))
                       for name, url in _INVENTORY_URLS.items() if (_INVENTORIES / f"{name}.inv").is_file()}
intersphinx_disabled_reftypes = ["*"]

# -- HTML -------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"polymask {release}"
html_static_path = []
html_theme_options = {
    "navbar_end": ["navbar-icon-links"],
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "changelog": []}
html_show_sourcelink = False


# -- Constants re-exported through __all__ ----------------------------------------
# automodule documents the functions and classes a module's __all__ names, but not the
# constants it imports from its submodules; each API page gets those appended here, so
# every public name appears without editing the pages (docs/check_api.py checks it).
def _append_public_constants(app, docname, source):
    import importlib
    import inspect

    if not docname.startswith("api/") or docname == "api/index":
        return
    #: The course's pages document modules of polymask.course.
    course_pages = {"stages", "checker"}
    page = docname.split("/")[1]
    module_name = ("polymask" if page == "polymask"
                   else f"polymask.course.{page}" if page in course_pages else f"polymask.{page}")
    module = importlib.import_module(module_name)
    constants = [name for name in getattr(module, "__all__", [])
                 if not (inspect.isroutine(getattr(module, name)) or inspect.isclass(getattr(module, name))
                         or inspect.ismodule(getattr(module, name)))]
    lines = [f".. autodata:: {module_name}.{name}\n   :no-value:\n" for name in constants]
    if lines:
        source[0] += "\nConstants\n---------\n\n" + "\n".join(lines)


def setup(app):
    app.connect("source-read", _append_public_constants)
