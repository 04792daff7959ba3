"""What ``mypy --strict`` infers for a user's script calling polymask's public API.

tests/typing/user_script.py ends each ``reveal_type(...)`` line with the type
mypy must reveal there: dtype-carrying arrays, the overloads' choices (crops
or a stack, an int or an array, compressed or uncompressed RLEs).  An
annotation that regresses to ``Any`` (or widens to a union) changes a revealed
type and fails this test; so does any error mypy finds in the script.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "typing" / "user_script.py"
REVEALED = re.compile(r"^.*user_script\.py:(\d+): note: Revealed type is \"(.*)\"$")

pytest.importorskip("mypy")


def expected_types() -> dict[int, str]:
    """Line number -> the type written after ``#`` on each reveal_type line."""
    expected = {}
    for number, line in enumerate(SCRIPT.read_text().splitlines(), start=1):
        if line.lstrip().startswith("reveal_type("):
            expected[number] = line.rsplit("  # ", 1)[1]
    return expected


@pytest.fixture(scope="module")
def mypy_output(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    # Its own empty configuration and working folder: the installed polymask is
    # checked as a user's project sees it, not through this checkout's sources.
    folder = tmp_path_factory.mktemp("mypy")
    config = folder / "mypy.ini"
    config.write_text("[mypy]\n")
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--config-file", str(config),
                           "--cache-dir", str(folder / "cache"), str(SCRIPT)],
                          cwd=folder, capture_output=True, text=True, timeout=300)


def test_user_script_has_no_type_errors(mypy_output: subprocess.CompletedProcess[str]) -> None:
    errors = [line for line in mypy_output.stdout.splitlines() if ": error:" in line]
    assert mypy_output.returncode == 0 and not errors, mypy_output.stdout + mypy_output.stderr


def test_revealed_types_match(mypy_output: subprocess.CompletedProcess[str]) -> None:
    revealed = {}
    for line in mypy_output.stdout.splitlines():
        match = REVEALED.match(line)
        if match:
            revealed[int(match.group(1))] = match.group(2)
    expected = expected_types()
    assert len(expected) >= 15
    mismatches = [f"line {number}: expected {expected[number]!r}, mypy revealed {revealed.get(number)!r}"
                  for number in expected if revealed.get(number) != expected[number]]
    assert not mismatches, "\n".join(mismatches)


def test_no_revealed_type_is_any(mypy_output: subprocess.CompletedProcess[str]) -> None:
    assert '"Any"' not in mypy_output.stdout, mypy_output.stdout


def test_public_functions_report_their_public_module() -> None:
    import polymask
    import polymask.coco

    for name in ("mask", "masks", "rasterize", "coverage", "coverages", "contains", "contains_labels", "threads",
                 "Crop"):
        assert getattr(polymask, name).__module__ == "polymask", name
    for name in polymask.coco.__all__:
        assert getattr(polymask.coco, name).__module__ == "polymask.coco", name
