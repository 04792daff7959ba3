"""Sphinx configuration of polymask's documentation site.

Build it with ``scripts/docs.sh`` (warnings are errors; the API reference is
checked against every module's public names).  The pages are MyST Markdown;
the API reference is generated from the numpydoc docstrings, and a public name
whose docstring is missing or fails numpydoc's checks below fails the build.
Nothing here reaches the network: intersphinx reads only the inventories compiled
from ``docs/_inventories/`` (see ``intersphinx_mapping``).
"""
from __future__ import annotations

import re
import sys
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
    "sphinx_copybutton",
    "cli_help",                     # docs/_ext/cli_help.py: the CLI reference from the parser
    "see_also",                     # docs/_ext/see_also.py: every function's See Also, from one table
]
sys.path.insert(0, str(Path(__file__).parent / "_ext"))

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "_inventories", "README.md"]
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3

# -- API reference ------------------------------------------------------------------
autodoc_default_options = {"members": True, "undoc-members": True, "member-order": "bysource"}
autodoc_typehints = "none"          # the numpydoc sections say the types
# One page per public function and class (docs/api/generated/, rebuilt by every build from
# the autosummary tables of the module pages; docs/_templates/autosummary/ shapes them).
autosummary_generate = True
autosummary_imported_members = True
templates_path = ["_templates"]
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# Every public docstring passes all of numpydoc's checks but these (numpydoc's codes):
numpydoc_validation_checks = {
    "all",
    "ES01",  # an extended summary: short functions say enough in their summary line
    "SA01",  # a See Also in the docstring: docs/_ext/see_also.py adds each one's from one table
    "SS05",  # summaries in the infinitive ("Return ..."): ours may name what is returned
    "SS06",  # a one-line summary: a few summaries need two lines to say what is returned
    "PR08",  # parameter descriptions start with a capital: some start with a value ("``None``: ...")
    "RT02",  # only a type on the Returns line: a named result reads better for tuples
    "YD01",  # a Yields section: the one generator (a context manager) documents Returns
    "GL01", "GL02",  # where the summary starts after the opening quotes: either is fine
}
# Fields of dataclasses and named tuples are documented by ``#:`` comments, which autodoc
# shows but numpydoc cannot read (it reads __doc__); private modules are not in the reference.
# Constants (UPPER_CASE, __version__) are documented by ``#:`` comments too.  The course's
# modules (polymask.course.*) are checked for a docstring and its summary only (below).
numpydoc_validation_exclude = {r"\._[a-z]", r"\.__init__$", r"\.__call__$", r"\.cached_property$",
                               r"\.[A-Z][A-Z0-9_]+$", r"\.__version__$", r"^polymask\.course\.",
                               # fields and attributes, documented by ``#:`` comments
                               r"^polymask\.Crop\.(mask|row0|col0)$", r"^polymask\.opencl\.DeviceInfo\.[a-z_0-9]+$",
                               r"^polymask\.opencl\.MaskEngine\.(builds|spin_wait)$"}
numpydoc_validation_overrides = {"SS03": [r"^Alias for field number \d+$"]}

# -- Cross-references to the libraries polymask works with --------------------------
# The build never reaches the network: each library's inventory is compiled here from
# docs/_inventories/NAME.txt, the objects the pages link to written out in Sphinx's
# inventory format, into docs/_build/inventories/NAME.inv.  Links point at each
# library's stable site.  A name missing from its file is a broken reference
# (nitpicky): add it to the file.
_INVENTORY_URLS = {
    "numpy": "https://numpy.org/doc/stable/",
    "shapely": "https://shapely.readthedocs.io/en/stable/",
    "rasterio": "https://rasterio.readthedocs.io/en/stable/",
    "xarray": "https://docs.xarray.dev/en/stable/",
    "dask": "https://docs.dask.org/en/stable/",
}


def _compiled_inventory(name: str) -> str:
    """docs/_inventories/NAME.txt as the objects.inv intersphinx reads; returns its path."""
    import zlib

    source = Path(__file__).parent / "_inventories" / f"{name}.txt"
    entries = [line for line in source.read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.startswith("#")]
    target = Path(__file__).parent / "_build" / "inventories" / f"{name}.inv"
    target.parent.mkdir(parents=True, exist_ok=True)
    header = f"# Sphinx inventory version 2\n# Project: {name}\n# Version: stable\n"
    header += "# The remainder of this file is compressed using zlib.\n"
    target.write_bytes(header.encode() + zlib.compress(("\n".join(entries) + "\n").encode()))
    return str(target)


intersphinx_mapping = {name: (url, _compiled_inventory(name)) for name, url in _INVENTORY_URLS.items()}
# Only references that name an object resolve through the inventories, never a page.
intersphinx_disabled_reftypes = ["std:doc"]
# Parameter and return types link where they name one of these; other words stay text.
numpydoc_xref_param_type = True
numpydoc_xref_ignore = "all"
# (An alias to an explicit role: numpydoc leaves a name that is its own alias unlinked.)
numpydoc_xref_aliases = {name: f":class:`{name}`" for name in (
    "numpy.ndarray", "numpy.dtype", "numpy.bool_", "numpy.uint8", "numpy.int64", "numpy.float32",
    "numpy.float64", "xarray.DataArray", "xarray.Dataset", "dask.array.Array", "shapely.Polygon",
    "shapely.MultiPolygon", "shapely.GeometryCollection")}
numpydoc_xref_aliases.update({"Crop": ":class:`~polymask.Crop`", "DeviceInfo": ":class:`~polymask.opencl.DeviceInfo`",
                              "MaskEngine": ":class:`~polymask.opencl.MaskEngine`"})
# Names of other libraries that the pages cross-reference without an inventory here.
nitpick_ignore = [("py:class", "affine.Affine")]

# -- HTML -------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"polymask {release}"
html_static_path = ["_static"]
html_css_files = ["polymask.css"]      # wide tables and code scroll instead of being cut
html_theme_options = {
    "navbar_end": ["navbar-icon-links"],
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
# Pages without sub-pages get no left sidebar (it would hold an empty "Section Navigation").
html_sidebars = {"index": [], "getting-started": [], "performance": [], "contributing": [], "changelog": [],
                 "cli": []}
# The copy button copies the code of a >>> session without its prompts and outputs.
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True
copybutton_exclude = ".linenos, .gp, .go"
html_show_sourcelink = False


# -- Constants re-exported through __all__ ----------------------------------------
# automodule documents the functions and classes a module's __all__ names, but not the
# constants it imports from its submodules; each API page gets those appended here, so
# every public name appears without editing the pages (docs/check_api.py checks it).
def _append_public_constants(app, docname, source):
    import importlib
    import inspect

    if not docname.startswith("api/") or docname == "api/index" or docname.startswith("api/generated/"):
        return
    if docname == "api/typing":  # type aliases, each written out on the page (autodoc cannot render them)
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
    # A name the page writes out itself (a type alias autodoc cannot render) is left to the page.
    lines = [f".. autodata:: {module_name}.{name}\n   :no-value:\n" for name in constants
             if f".. py:data:: {name}\n" not in source[0]]
    if lines:
        source[0] += "\nConstants\n---------\n\n" + "\n".join(lines)


# -- Checks numpydoc cannot express ------------------------------------------------
#: The modules whose users get the full numpydoc checks above.
_PUBLIC_MODULES = ("polymask", "polymask.coco", "polymask.dask", "polymask.xarray", "polymask.opencl")
#: The checks the course's pages pass: a docstring that opens with a one-line summary
#: ending with a period, and a Parameters section naming only real parameters, well typed.
_COURSE_CHECKS = {"GL08", "SS01", "SS03", "PR02", "PR06"}
#: What the course's checks leave out, as numpydoc_validation_exclude does for the rest; and the
#: fields of the course's dataclasses, documented by ``#:`` comments that numpydoc cannot read.
_COURSE_EXCLUDE = [r"\._[a-z]", r"\.__init__$", r"\.__call__$", r"\.cached_property$", r"\.[A-Z][A-Z0-9_]+$",
                   r"polymask\.course\.stages\.Stage\.[a-z_0-9]+$",
                   r"polymask\.course\.checker\.(CheckResult|Exercise)\.[a-z_]+$"]
#: Public callables that raise nothing of their own, so have no Raises section.
_RAISE_NOTHING = {
    "polymask.available_backends", "polymask.build_info",
    "polymask.Crop", "polymask.Crop.slices",
    "polymask.opencl.available", "polymask.opencl.unavailable_reason", "polymask.opencl.kernel_dir",
    "polymask.opencl.describe_default_device", "polymask.opencl.DeviceInfo", "polymask.opencl.OpenCLError",
    "polymask.opencl.OpenCLBuildError", "polymask.opencl.OpenCLMemoryError", "polymask.opencl.OpenCLUnavailable",
    "polymask.opencl.MaskEngine.release", "polymask.opencl.MaskEngine.resident_bytes",
    "polymask.opencl.MaskEngine.timings", "polymask.opencl.release", "polymask.opencl.devices",
}


def _check_docstring(app, what, name, obj, options, lines):
    """Warn (an error under -W) where a docstring misses what numpydoc's checks do not test."""
    from numpydoc.docscrape import get_doc_object
    from numpydoc.validate import validate
    from sphinx.util import logging

    logger = logging.getLogger("polymask.docs")
    if what not in {"function", "class", "method", "exception", "property"}:
        return
    if name.startswith("polymask.course."):
        if any(re.search(pattern, name) for pattern in _COURSE_EXCLUDE):
            return
        errors = [(code, message) for code, message in validate(get_doc_object(obj))["errors"]
                  if code in _COURSE_CHECKS]
        if errors:
            logger.warning("docstring of %s: %s", name, "; ".join(f"{code}: {text}" for code, text in errors))
        return
    public = any(name.rsplit(".", 1)[0] == module or name.startswith(module + ".") and name.count(".") ==
                 module.count(".") + 2 for module in _PUBLIC_MODULES)
    if public and name not in _RAISE_NOTHING and not get_doc_object(obj)["Raises"]:
        logger.warning("docstring of %s has no Raises section (or list it in _RAISE_NOTHING in docs/conf.py)", name)


def _only_our_type_links(app, config):
    """Type links for the names in numpydoc_xref_aliases only: numpydoc adds its own for the
    builtins and NumPy's glossary, which point into inventories this offline build does not have."""
    config.numpydoc_xref_aliases_complete = dict(config.numpydoc_xref_aliases)


def setup(app):
    app.connect("config-inited", _only_our_type_links, priority=900)  # after numpydoc's own (500)
    app.connect("source-read", _append_public_constants)
    app.connect("autodoc-process-docstring", _check_docstring, priority=400)
