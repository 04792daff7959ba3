"""Write every exercise's stub from its solution: one source, so they never drift.

A solution (exercises/solutions/NN_topic/FILE) marks what the learner must
write between two comment lines, optionally followed by what the stub gets
instead (commented out, so the solution still runs)::

        # BEGIN SOLUTION
        x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi
        # ELSE STUB
        # pass
        # END SOLUTION

The stub (exercises/NN_topic/FILE) keeps everything outside the markers,
drops the solution lines, and un-comments the ELSE STUB lines.  In .cl
files the markers are // comments.  Run it after editing a solution:

    python exercises/make_stubs.py          # rewrite the stubs
    python exercises/make_stubs.py --check  # exit 1 if a stub is out of date (the tests do this)
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

EXERCISES_DIR = Path(__file__).resolve().parent
SOLUTIONS_DIR = EXERCISES_DIR / "solutions"
MARKER = re.compile(r"^(?P<indent>\s*)(?P<comment>#|//) (?P<word>BEGIN SOLUTION|ELSE STUB|END SOLUTION)\s*$")


def stub_text(solution: str, name: str = "<solution>") -> str:
    """The stub of a marked-up solution; ValueError naming the line if the markers are unbalanced."""
    output: list[str] = []
    state = "outside"  # outside -> solution -> (stub) -> outside
    for number, line in enumerate(solution.splitlines(keepends=True), start=1):
        match = MARKER.match(line)
        word = match.group("word") if match else None
        expected = {"outside": "BEGIN SOLUTION", "solution": "ELSE STUB or END SOLUTION",
                    "stub": "END SOLUTION"}[state]
        if word == "BEGIN SOLUTION" and state == "outside":
            state = "solution"
        elif word == "ELSE STUB" and state == "solution":
            state = "stub"
        elif word == "END SOLUTION" and state in ("solution", "stub"):
            state = "outside"
        elif word:
            raise ValueError(f"{name}:{number}: found '{word}' where {expected} was expected")
        elif state == "outside":
            output.append(line)
        elif state == "stub":
            # Un-comment: "    # pass" -> "    pass" (the comment mark sits at the code's indent).
            output.append(re.sub(r"^(\s*)(#|//) ?", r"\1", line, count=1))
    if state != "outside":
        raise ValueError(f"{name}: the file ends inside a solution block (missing END SOLUTION)")
    return "".join(output)


def pairs() -> list[tuple[Path, Path]]:
    """(solution, stub) for every file under exercises/solutions/."""
    found = []
    for solution in sorted(SOLUTIONS_DIR.glob("*/*")):
        if solution.is_file() and solution.suffix in (".py", ".pyx", ".cl"):
            found.append((solution, EXERCISES_DIR / solution.parent.name / solution.name))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stubs that are out of date")
    args = parser.parse_args(argv)
    stale = []
    for solution, stub in pairs():
        text = stub_text(solution.read_text(encoding="utf-8"), str(solution))
        if stub.is_file() and stub.read_text(encoding="utf-8") == text:
            continue
        stale.append(stub)
        if not args.check:
            stub.parent.mkdir(parents=True, exist_ok=True)
            stub.write_text(text, encoding="utf-8")
            print(f"wrote {stub.relative_to(EXERCISES_DIR.parent)}")
    if args.check and stale:
        print("out of date (run python exercises/make_stubs.py): "
              + ", ".join(str(path.relative_to(EXERCISES_DIR.parent)) for path in stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
