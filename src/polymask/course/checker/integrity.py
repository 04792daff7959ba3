"""Is polymask installed as it was installed?  The checker judges with nothing else.

A learner's code that once ran outside a sandbox (or any hand) could have
replaced a stage, the public ``mask`` the references come from, or the
checker itself; every later check on that machine would then judge
against the changed files.  pip records every file it installs, with its
sha256, in the wheel's ``RECORD`` (PEP 376/627); the checker hashes the
package's files against it before each check and refuses to judge when
one differs, is missing, or the record itself is gone.
"""
from __future__ import annotations

import base64
import csv
import hashlib
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[2]


def _record(package_dir: Path) -> Path | None:
    """The RECORD of the distribution that installed `package_dir` (beside it, in site-packages)."""
    found = sorted(package_dir.parent.glob(f"{package_dir.name}-*.dist-info/RECORD"))
    return found[-1] if found else None


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return "sha256=" + base64.urlsafe_b64encode(sha.digest()).rstrip(b"=").decode()


def modified_files(package_dir: Path | None = None) -> list[str]:
    """What differs from the install record ([] when nothing does); a one-item list naming a lost record."""
    package_dir = Path(package_dir or PACKAGE_DIR)
    record = _record(package_dir)
    if record is None:
        return [f"no install record (RECORD) beside {package_dir}: polymask was not installed by pip, or its "
                "record was removed"]
    prefix = package_dir.name + "/"
    changed, recorded = [], set()
    with open(record, newline="", encoding="utf-8") as handle:
        for row in csv.reader(handle):
            if len(row) < 2 or not row[0].startswith(prefix) or not row[1]:
                continue  # another folder's file, or one pip records without a hash (byte code)
            recorded.add(row[0])
            path = package_dir.parent / row[0]
            try:
                if _digest(path) != row[1]:
                    changed.append(f"{row[0]} (changed)")
            except OSError:
                changed.append(f"{row[0]} (missing)")
    checker = package_dir / "course" / "checker"
    for path in sorted(checker.glob("*.py")):  # a file added beside the checker is a change too
        name = path.relative_to(package_dir.parent).as_posix()
        if name not in recorded:
            changed.append(f"{name} (added)")
    return changed


def refusal(package_dir: Path | None = None) -> str | None:
    """The reason the checker will not judge here, or None when the installation is intact."""
    changed = modified_files(package_dir)
    if not changed:
        return None
    shown = "; ".join(changed[:5]) + (f"; and {len(changed) - 5} more" if len(changed) > 5 else "")
    return (f"polymask's installation differs from what pip installed ({shown}), so the checker cannot trust "
            "its own references or stages and does not judge. Reinstall polymask (pip install --force-reinstall "
            "--no-deps polymask, or from the checkout: pip install --no-deps .) and check again.")
