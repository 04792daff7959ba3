"""scripts/lint.py: what counts toward a module's size cap."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("lint", ROOT / "scripts" / "lint.py")
lint = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lint)


def test_docstrings_do_not_count_and_code_and_comments_do(tmp_path):
    source = ('"""Module.\n\nMore.\n"""\n'
              "# a comment\n"
              "class A:\n    '''One.\n    Two.'''\n    x = 1\n"
              "def f():\n    \"\"\"F.\n\n    Parameters\n    ----------\n    \"\"\"\n    return '''not a docstring\n'''\n")
    path = tmp_path / "m.py"
    path.write_text(source)
    total = source.count("\n")
    assert lint.counted_lines(path) == total - 4 - 2 - 5
    cython = tmp_path / "m.pyx"
    cython.write_text(source)
    assert lint.counted_lines(cython) == total  # not Python: every line counts


def test_every_capped_module_is_within_its_cap():
    assert lint.over_cap() == []
