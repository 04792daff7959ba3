"""Write the published speed-up table into README.md and docs/performance.md, from one JSON file.

    bash scripts/bench.sh --json docs/bench-standard.json --csv docs/bench-standard.csv --plot docs/speedups.png
    python -m benchmarks.publish            # rewrite both pages' tables from docs/bench-standard.json
    python -m benchmarks.publish --check    # exit 1 if a page differs from what it would write

Both pages show the table ``polymask bench --from-json docs/bench-standard.json``
prints (README: its header and stage rows; docs/performance.md: all of it)
and the same sentence of figures derived from it, between the markers
``<!-- bench-standard: begin -->`` and ``<!-- bench-standard: end -->``,
so the two can never disagree with each other or with the data.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from polymask.bench.from_json import bench_report, read_document
from polymask.bench.records import Report
from polymask.bench.report import markdown

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "bench-standard.json"
PAGES = {"readme": ROOT / "README.md", "performance": ROOT / "docs" / "performance.md"}
BEGIN, END = "<!-- bench-standard: begin -->", "<!-- bench-standard: end -->"
#: Rows that test each pixel on its own (the scanline fill and the library's OpenCL call do not).
NOT_PER_PIXEL = ("scanline", "opencl_mask")


def figures(report: Report) -> str:
    """The sentence of figures the pages quote, derived from `report`."""
    rows = {row["id"]: row for row in report["rows"] if row["seconds"] is not None}
    scanline = rows["scanline"]["seconds"]
    per_pixel = min((row for row in rows.values() if row["kind"] in ("stage", "side") and row["id"] not in
                     NOT_PER_PIXEL), key=lambda row: row["seconds"])
    lead = per_pixel["seconds"] / scanline
    floor = scanline / rows["floor"]["seconds"]
    sentence = (f"In this run the scanline core is {lead:,.0f}x faster than the best per-pixel stage "
                f"(`{per_pixel['id']}`) and takes {floor:.1f}x the memory floor's time")
    if "opencv" in rows:
        sentence += f" and {scanline / rows['opencv']['seconds']:.2f}x OpenCV's `fillPoly` time"
    return sentence + "."


def block(report: Report, page: str) -> str:
    """What goes between the markers of `page` ("readme" or "performance")."""
    lines = markdown(report).rstrip("\n").splitlines()[2:]  # below the title: the page has its own heading
    if page == "readme":
        keep = [line for line in lines if line.startswith(("- measured", "- **The machine", "- CPU"))]
        first = next(index for index, line in enumerate(lines) if line.startswith("| stage |"))
        table = lines[first:lines.index("", first)]  # the stage table runs to the first blank line
        lines = [*keep, "", *table]
    return "\n".join([BEGIN, *lines, "", figures(report), END])


def rewrite(text: str, new_block: str, path: Path) -> str:
    """`text` with its marked block replaced by `new_block`; ValueError when the markers are missing."""
    begin, end = text.find(BEGIN), text.find(END)
    if begin < 0 or end < begin:
        raise ValueError(f"{path} has no {BEGIN} ... {END} block")
    return text[:begin] + new_block + text[end + len(END):]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the pages agree with the data")
    parser.add_argument("--data", type=Path, default=DATA, help="the --json file (default docs/bench-standard.json)")
    args = parser.parse_args(argv)
    report = bench_report(read_document(args.data), args.data)
    stale = []
    for page, path in PAGES.items():
        text = path.read_text(encoding="utf-8")
        updated = rewrite(text, block(report, page), path)
        if updated != text:
            stale.append(str(path.relative_to(ROOT)))
            if not args.check:
                path.write_text(updated, encoding="utf-8")
    if args.check and stale:
        print(f"out of date with {args.data.name}: {', '.join(stale)}; run python -m benchmarks.publish",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
