"""scripts/lint.py: what counts toward a module's size cap."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("lint", ROOT / "scripts" / "lint.py")
lint = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lint)

SOURCE = '''"""Module.

More.
"""
# a comment
class A:
    """One.
    Two."""
    x = 1
def f():
    """F.

    Parameters
    ----------
    """
    return """not a docstring
"""
'''


def test_docstrings_do_not_count_and_code_and_comments_do(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    total = SOURCE.count("\n")
    assert lint.counted_lines(path) == total - 4 - 2 - 5
    cython = tmp_path / "m.pyx"
    cython.write_text(SOURCE)
    assert lint.counted_lines(cython) == total  # not Python: every line counts


def test_every_capped_module_is_within_its_cap():
    assert lint.over_cap() == []
