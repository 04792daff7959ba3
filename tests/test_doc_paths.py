"""Every file of the checkout that the README and the docs name exists.

Pages name files for the reader to open or run (``scripts/bench.sh``,
``tests/test_coverage.py``, ``csrc/include/polymask/crossing.h``); when a
file moves, the page must move with it.  Paths under these folders are
checked; placeholders are listed with what they stand for.
"""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FOLDERS = ("src/polymask", "tests", "scripts", "benchmarks", "csrc", "kernels", "notebooks", "exercises")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./-]*\w)" % "|".join(map(re.escape, FOLDERS)))
#: Names that stand for any file of their kind, not a file.
PLACEHOLDERS = {"tests/test_x.py": "any test file, in the contributing guide's pytest command"}


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_path_a_page_names_exists(page):
    named = set(PATH.findall(page.read_text(encoding="utf-8")))
    missing = sorted(path for path in named - PLACEHOLDERS.keys() if not (ROOT / path).exists())
    assert not missing, f"{page.relative_to(ROOT)} names files that do not exist: {missing}"


def test_the_placeholders_are_still_used():
    text = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
    assert all(name in text for name in PLACEHOLDERS), "drop a placeholder no page uses"


def test_the_contributing_map_names_every_test_file():
    # The map from behaviour to test file (docs/contributing.md) must place every
    # file of tests/: a new file is added to its row, by name or by a glob.
    page = (ROOT / "docs" / "contributing.md").read_text(encoding="utf-8")
    rows = [line for line in page.splitlines() if line.startswith("| ") and "`test_" in line]
    patterns = [name for row in rows for name in re.findall(r"`(test_[\w*]+\.py)`", row)]
    unplaced = sorted(path.name for path in (ROOT / "tests").glob("test_*.py")
                      if not any(Path(path.name).match(pattern) for pattern in patterns))
    assert not unplaced, f"docs/contributing.md's test map does not place {unplaced}"
