"""Graded hints between the goal and the answer: ``polymask check NN --hint``.

Each exercise README ends with a ``## Hints`` section of ``### Hint N``
blocks, from a nudge to nearly the code (numpy-100 keeps hints beside its
exercises the same way).  Each call prints the next hint not yet shown;
``--hint N`` shows hint N.  Which hint comes next is remembered per
checkout (keyed by the exercise folder's full path, so two clones of the
course count separately) in a small JSON file (``$POLYMASK_HINT_STATE``,
default ~/.cache/polymask/hints.json).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from polymask.course.checker.exercises import get_exercise, readme_hints

STATE_ENV = "POLYMASK_HINT_STATE"


def _state_file() -> Path:
    if os.environ.get(STATE_ENV):
        return Path(os.environ[STATE_ENV])
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(root) / "polymask" / "hints.json"


def find_readme(exercise, near: str | None = None) -> Path:
    """The exercise's README: beside the learner's file, else under ./exercises or ../exercises."""
    candidates = []
    if near:
        candidates.append(Path(near).resolve().parent / "README.md")
    for base in (Path.cwd(), Path.cwd().parent):
        candidates.append(base / "exercises" / exercise.folder / "README.md")
    for candidate in candidates:
        if candidate.is_file() and candidate.parent.name == exercise.folder:
            return candidate
    raise FileNotFoundError(f"cannot find exercises/{exercise.folder}/README.md (looked in "
                            f"{', '.join(str(c) for c in candidates)}); run from the polymask checkout")


def hint(exercise_name: str, number: int | None = None, *, near: str | None = None) -> str:
    """The text of hint `number` (default: the next one not yet shown) of an exercise."""
    exercise = get_exercise(exercise_name)
    readme = find_readme(exercise, near)
    hints = readme_hints(readme.read_text(encoding="utf-8"))
    key = str(readme.resolve().parent)  # this checkout's exercise folder
    if not hints:
        raise ValueError(f"exercise {exercise.folder} has no hints in its README")
    state_file = _state_file()
    try:
        state = json.loads(state_file.read_text())
    except (OSError, ValueError):
        state = {}
    if number is None:
        number = min(int(state.get(key, 0)) + 1, len(hints))
    if not 1 <= number <= len(hints):
        raise ValueError(f"exercise {exercise.folder} has hints 1 to {len(hints)}, not {number}")
    state[key] = number
    try:
        state_file.parent.mkdir(parents=True, exist_ok=True)
        state_file.write_text(json.dumps(state))
    except OSError:  # a read-only home: hints still print, they just do not advance
        pass
    after = ("run it again for the next one" if number < len(hints) else
             f"that was the last hint; the answer is in exercises/solutions/{exercise.folder}/")
    return f"Hint {number} of {len(hints)} for exercise {exercise.folder}:\n\n{hints[number - 1]}\n\n({after})"
