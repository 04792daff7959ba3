"""Execute every lesson notebook into a folder and print each page's computed verdicts.

    python notebooks/run_all.py OUTDIR              # all nine lessons, at the course's size
    python notebooks/run_all.py OUTDIR 01 06        # only lessons 1 and 6
    POLYMASK_NOTEBOOK_SIZE=256 python notebooks/run_all.py OUTDIR   # a smaller image

The notebooks run on a kernel of this interpreter, in a copy of notebooks/ and
exercises/ under OUTDIR/work, so the checkout is left as it was. OUTDIR gets the
executed notebooks (NN_name.ipynb), their pictures (pictures/) and verdicts.txt:
every line a page printed that opens with "on this run:" or "too busy to judge
on this run:", under its lesson, with the load average before and after it ran.
Read each page's prose against those lines. Exit status 1 if a notebook failed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

from lesson import TOO_BUSY, VERDICT

NOTEBOOKS_DIR = Path(__file__).resolve().parent
ROOT = NOTEBOOKS_DIR.parent
KERNEL_NAME = "polymask-lessons"


def install_kernel_spec(folder: Path) -> None:
    """A Jupyter kernel spec for THIS interpreter under `folder`, put first on JUPYTER_PATH,
    so the notebooks test the polymask installed here, not whatever "python3" Jupyter finds."""
    spec_dir = folder / "kernels" / KERNEL_NAME
    spec_dir.mkdir(parents=True, exist_ok=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "polymask lessons",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(folder), os.environ.get("JUPYTER_PATH")]))


def copy_checkout(work: Path) -> Path:
    """notebooks/ and exercises/ copied under `work` (lessons point at ../exercises); the notebooks' copy."""
    for folder in ("notebooks", "exercises"):
        shutil.rmtree(work / folder, ignore_errors=True)
        shutil.copytree(ROOT / folder, work / folder, ignore=shutil.ignore_patterns("__pycache__", "*.png"))
    return work / "notebooks"


def execute(notebook, run_dir: Path, pictures_dir: Path, timeout: int = 1200) -> None:
    """Run `notebook` top to bottom, in place, in `run_dir`, its pictures going to `pictures_dir`.

    Raises nbclient's CellExecutionError naming the cell that failed (the notebook keeps
    the outputs up to it)."""
    import nbclient

    os.environ["MPLBACKEND"] = "Agg"
    os.environ["POLYMASK_PICTURES_DIR"] = str(pictures_dir)
    try:
        nbclient.NotebookClient(
            notebook, timeout=timeout, kernel_name=KERNEL_NAME, resources={"metadata": {"path": str(run_dir)}}
        ).execute()
    finally:
        os.environ.pop("POLYMASK_PICTURES_DIR", None)


def printed_text(notebook) -> str:
    """Everything the notebook's code cells printed (streams and plain-text results)."""
    parts = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        for output in cell.outputs:
            parts.append(output.get("text", "") or output.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


def verdict_lines(text: str) -> list[str]:
    """The computed verdicts in a page's printed text."""
    return [line for line in text.splitlines() if line.startswith((VERDICT, TOO_BUSY))]


def load_now() -> str:
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except (AttributeError, OSError):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path, help="folder for the executed notebooks, pictures and verdicts.txt")
    parser.add_argument("lessons", nargs="*", help="lesson numbers to run (01 ... 09); all without any")
    parser.add_argument("--timeout", type=int, default=1200, help="seconds one cell may run (default 1200)")
    args = parser.parse_args(argv)
    import nbclient
    import nbformat

    outdir = args.outdir.resolve()
    outdir.mkdir(parents=True, exist_ok=True)
    install_kernel_spec(outdir / "jupyter")
    run_dir = copy_checkout(outdir / "work")
    wanted = {number.zfill(2) for number in args.lessons}
    paths = [path for path in sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb")) if not wanted or path.name[:2] in wanted]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    size = os.environ.get("POLYMASK_NOTEBOOK_SIZE", "1024")
    report = [f"{size}x{size} images, {cores} usable cores, started {time.strftime('%Y-%m-%d %H:%M:%S %Z')}"]
    print(report[0], flush=True)
    failed = []
    for path in paths:
        before, start = load_now(), time.perf_counter()
        notebook = nbformat.read(path, as_version=4)
        try:
            execute(notebook, run_dir, outdir / "pictures", args.timeout)
            status = "ran"
        except nbclient.exceptions.CellExecutionError as error:
            status = f"FAILED: {str(error)[-400:]}"
            failed.append(path.name)
        nbformat.write(notebook, outdir / path.name)
        lines = [
            f"\n## {path.stem}: {status} in {time.perf_counter() - start:.0f} s, "
            f"load average {before} before, {load_now()} after"
        ]
        lines += [f"  {line}" for line in verdict_lines(printed_text(notebook))]
        print("\n".join(lines), flush=True)
        report += lines
    (outdir / "verdicts.txt").write_text("\n".join(report) + "\n", encoding="utf-8")
    print(f"\nexecuted notebooks, pictures and verdicts.txt in {outdir}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
