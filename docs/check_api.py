"""Check that the built API reference documents every public name of polymask.

    python docs/check_api.py docs/_build/html/objects.inv

A module's public names are its ``__all__``, or (without one) the functions,
classes and constants it defines whose names do not start with an underscore.
Submodules named in ``__all__`` count as documented when their own page exists.
Exits 1 and lists what is missing.
"""
from __future__ import annotations

import importlib
import inspect
import sys

from sphinx.util.inventory import InventoryFile

MODULES = ["polymask", "polymask.coco", "polymask.dask", "polymask.xarray", "polymask.opencl", "polymask.typing",
           "polymask.course.stages", "polymask.course.checker"]


def public_names(module) -> list[str]:
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [name for name, value in vars(module).items()
            if not name.startswith("_") and not inspect.ismodule(value)
            and getattr(value, "__module__", module.__name__) == module.__name__
            and (inspect.isfunction(value) or inspect.isclass(value) or name.isupper())]


def main(path: str) -> int:
    with open(path, "rb") as stream:
        inventory = InventoryFile.load(stream, "", lambda base, uri: uri)
    documented = {name for entries in inventory.values() for name in entries}
    missing = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in public_names(module):
            full = f"{module_name}.{name}"
            if inspect.ismodule(getattr(module, name, None)):
                continue  # a submodule: documented by its own page, or by the page of what it holds
            if full not in documented:
                missing.append(full)
    if missing:
        print("the API reference lacks these public names:", *missing, sep="\n  ")
        return 1
    print(f"API reference: every public name of {len(MODULES)} modules is documented")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
