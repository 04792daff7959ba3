"""Every public function and class of the library has a See Also section on its reference page.

The sections come from one table, docs/_ext/see_also.py (the docs build puts
each in front of its docstring's Examples); this checks the table covers the
public names, names real targets, and that a target in another library is one
the offline inventories of docs/_inventories/ hold, so the link resolves.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = ["polymask", "polymask.coco", "polymask.dask", "polymask.xarray", "polymask.opencl"]


def _table() -> dict[str, list[str]]:
    spec = importlib.util.spec_from_file_location("see_also", ROOT / "docs" / "_ext" / "see_also.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SEE_ALSO


def _inventory_names() -> set[str]:
    return {line.split()[0] for source in (ROOT / "docs" / "_inventories").glob("*.txt")
            for line in source.read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")}


@pytest.mark.parametrize("module_name", MODULES)
def test_every_public_function_and_class_has_see_also(module_name):
    module = importlib.import_module(module_name)
    public = [name for name in module.__all__ if (inspect.isroutine(getattr(module, name))
              or inspect.isclass(getattr(module, name)) and not issubclass(getattr(module, name), BaseException))]
    missing = [f"{module_name}.{name}" for name in public if f"{module_name}.{name}" not in _table()]
    assert missing == []


def test_every_see_also_target_exists_here_or_in_an_inventory():
    external = _inventory_names()
    for name, lines in _table().items():
        for line in lines:
            target, separator, description = line.partition(" : ")
            assert separator and description[:1].isupper() and description.endswith("."), (name, line)
            if target.startswith("polymask."):
                module_name, _, attribute = target.rpartition(".")
                while module_name:
                    try:
                        owner = importlib.import_module(module_name)
                        break
                    except ImportError:
                        module_name, _, outer = module_name.rpartition(".")
                        attribute = f"{outer}.{attribute}"
                for part in attribute.split("."):
                    owner = getattr(owner, part)
            else:
                assert target in external, f"{name}: {target} is in no docs/_inventories/*.txt"
