"""``polymask annotate STAGE``: Cython's annotated HTML for a Cython stage.

The course reads ``cython -a`` output to see where a .pyx still talks to
the Python C API: each line is shaded yellow by how much Python it calls,
and clicking a line shows the C++ Cython wrote for it.  The stages'
.pyx and .pxd sources are installed inside the package, so this works on
any installed polymask; it needs Cython at run time, nothing else (no
compiler: Cython only translates, it does not build).
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from polymask.course import stages

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # the polymask package: Stage.source is relative to it


def cython_stage_ids() -> list[str]:
    """The stages whose source is a .pyx, in ladder order."""
    return [stage.id for stage in stages.STAGES if stage.source.endswith(".pyx")]


def annotate(stage_id: str, output_dir: str | Path = ".") -> Path:
    """Write ``<module>.html``, Cython's annotation of the stage's .pyx, into `output_dir`.

    Returns the path of the HTML file.  Raises ValueError for a stage that
    is unknown or not a Cython stage or an `output_dir` that cannot be a
    folder (an existing file), and RuntimeError when Cython is not
    installed or fails on the source.
    """
    stage = stages.get(stage_id)  # ValueError listing the choices if unknown
    choices = ", ".join(cython_stage_ids())
    if not stage.source.endswith(".pyx"):
        raise ValueError(f"stage {stage.id!r} is not a Cython stage (its source is {stage.source}); "
                         f"choose one of: {choices}")
    source = PACKAGE_DIR / stage.source
    if not source.is_file():
        raise RuntimeError(f"the source of stage {stage.id!r} is not installed: expected {source}")
    try:
        import Cython  # noqa: F401  (only to fail early with a clear message)
    except ImportError:
        raise RuntimeError("polymask annotate needs Cython, which is not installed here; "
                           "install it with: pip install cython") from None

    target_dir = Path(output_dir)
    # Checked before Cython runs: an existing file (or a file on the way) cannot become the folder.
    blocking = next((folder for folder in (target_dir, *target_dir.parents)
                     if folder.exists() and not folder.is_dir()), None)
    if blocking is not None:
        raise ValueError(f"the output folder {str(target_dir)!r} cannot be created: {str(blocking)!r} "
                         "is a file, not a directory; pass -o a folder")
    try:
        target_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ValueError(f"the output folder {str(target_dir)!r} cannot be created: {error}") from None
    with tempfile.TemporaryDirectory(prefix="polymask-annotate-") as scratch:
        # Cython writes the .html beside the generated C++; only the .html is kept.
        generated = Path(scratch) / f"{source.stem}.cpp"
        # Run from the installed source so Cython finds polymask/core.pxd
        # through the package's __init__.py files, as the build did.
        completed = subprocess.run(
            [sys.executable, "-m", "cython", "--annotate", "--cplus", str(source),
             "--output-file", str(generated)],
            capture_output=True, text=True)
        html = generated.with_suffix(".html")
        if completed.returncode != 0 or not html.is_file():
            raise RuntimeError(f"cython failed on {source} (exit status {completed.returncode}):\n"
                               f"{completed.stderr or completed.stdout}")
        target = target_dir / html.name
        shutil.copyfile(html, target)
    return target


def main(stage_id: str, output_dir: str | Path = ".") -> int:
    """CLI entry: annotate one stage and print where the HTML went."""
    try:
        target = annotate(stage_id, output_dir)
    except (ValueError, RuntimeError, OSError) as error:  # OSError: the HTML could not be written
        print(f"polymask annotate: {error}", file=sys.stderr)
        return 2
    print(target)
    return 0


def add_arguments(parser) -> None:
    """The `polymask annotate` subcommand's arguments (see polymask/cli.py)."""
    parser.add_argument("stage", help=f"a Cython stage: {', '.join(cython_stage_ids())}")
    parser.add_argument("-o", "--output-dir", default=".",
                        help="folder to write <stage>.html into (default: the current folder)")
    parser.set_defaults(run=lambda args: main(args.stage, args.output_dir))
