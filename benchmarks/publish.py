"""Write every published performance figure into README.md and docs/performance.md, from recorded JSON files.

    bash scripts/bench.sh --json docs/bench-standard.json --csv docs/bench-standard.csv
    python -m benchmarks.publish            # rewrite every marked block (and redraw the charts) from the data
    python -m benchmarks.publish --check    # exit 1 if a page differs from what it would write

Each block sits between ``<!-- bench-NAME: begin -->`` and ``<!-- bench-NAME:
end -->`` and is written from one file in docs/ (``BLOCKS`` names the file,
the pages and the command that records it), so a page can never disagree
with its data, and every figure carries the date, commit, machine, load and
command of the run that made it.  The speed-up table is what ``polymask
bench --from-json docs/bench-standard.json`` prints (README: its header and
stage rows; docs/performance.md: all of it, with the chart and its caption);
the other blocks are ``benchmarks.published_figures``'.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from benchmarks import published_figures
from polymask.bench.from_json import bench_report, read_document
from polymask.bench.records import Report
from polymask.bench.report import markdown, plot_speedups, plot_sweep, provenance

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
DATA = DOCS / "bench-standard.json"
PAGES = {"readme": ROOT / "README.md", "performance": DOCS / "performance.md"}


def markers(name: str) -> tuple[str, str]:
    """The begin and end markers of the block `name`."""
    return f"<!-- bench-{name}: begin -->", f"<!-- bench-{name}: end -->"


BEGIN, END = markers("standard")
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


def chart_caption(report: Report) -> str:
    """The speed-up chart and its caption: what it shows and where it was measured."""
    return ("![speed-ups over pure Python, 2014 beside this machine](speedups.png)\n\n"
            f"*The chart above: speed-ups over pure Python from `{DATA.name}`, measured on "
            f"{provenance(report['machine'], report.get('state'))}; its title says the same.*")


def block(report: Report, page: str) -> str:
    """What goes between the standard table's markers of `page` ("readme" or "performance")."""
    lines = markdown(report).rstrip("\n").splitlines()[2:]  # below the title: the page has its own heading
    tail = ["", figures(report)]
    if page == "readme":
        keep = [line for line in lines if line.startswith(("- measured", "- **The machine", "- CPU"))]
        first = next(index for index, line in enumerate(lines) if line.startswith("| stage |"))
        table = lines[first:lines.index("", first)]  # the stage table runs to the first blank line
        lines = [*keep, "", *table]
    else:
        tail += ["", chart_caption(report)]
    return "\n".join([BEGIN, *lines, *tail, END])


@dataclass(frozen=True)
class Figure:
    """A block of docs/performance.md written from one recorded file."""

    #: The file in docs/ it is written from, and the command that records that file.
    data: str
    record: str
    render: Callable[[dict], str]
    #: The chart drawn from the same file, if any.
    chart: tuple[str, Callable[[dict, Path], None]] | None = None


SWEEP_COMMAND = "polymask bench --sweep vertices --repeats 3 --json docs/bench-sweep-vertices.json"
#: Per group prefix, the row each group's ratios divide by: the peer, or for coverage the plain mask.
REFERENCES = {"coco-1000": "loop of np.zeros + cv2.fillPoly", "coco-encode-": "pycocotools-frPyObjects-parts",
              "geo-label-image-": "rasterio", "geo-dask-mask-": "rasterio windowed (1 thread)",
              "geo-regions-": "regionmask", "coverage-": "mask", "exactextract-": "exactextract",
              "zonal-mean-": "exactextract"}


def suite(name: str, record: str) -> Figure:
    """A block written from the pytest-benchmark file docs/bench-NAME.json, which `record` writes."""
    return Figure(f"bench-{name}.json", record,
                  lambda document: published_figures.suite_block(document, REFERENCES))


FIGURES = {
    "sweep-vertices": Figure(
        "bench-sweep-vertices.json", SWEEP_COMMAND,
        lambda sweep: published_figures.sweep_block(sweep, SWEEP_COMMAND),
        ("sweep-vertices.png", plot_sweep)),
    "prange-busy": Figure(
        "bench-prange-busy.json", "python -m benchmarks.prange_busy --json docs/bench-prange-busy.json",
        lambda run: published_figures.prange_block(run, run["command"])),
    "coverage-floor": Figure(
        "bench-coverage-floor.json", "python -m benchmarks.test_coverage_floor --json docs/bench-coverage-floor.json",
        published_figures.coverage_floor_block),
    "batches": suite("batches", "pytest benchmarks/test_speed_targets.py -k coco --benchmark-only "
                                "--benchmark-min-rounds=7 --benchmark-json=docs/bench-batches.json"),
    "coco": suite("coco", "pytest benchmarks/test_coco.py --benchmark-only --benchmark-json=docs/bench-coco.json"),
    "geo": suite("geo", "pytest benchmarks/test_geo.py --benchmark-only --benchmark-json=docs/bench-geo.json"),
    "coverage": suite("coverage", "pytest benchmarks/test_coverage.py --benchmark-only "
                                  "--benchmark-json=docs/bench-coverage.json"),
}


def figure_block(name: str, figure: Figure) -> str:
    """The marked block of `figure`, from its data file (OSError / ValueError when it cannot be read)."""
    document = read_document(DOCS / figure.data)
    if not isinstance(document, dict):
        raise ValueError(f"docs/{figure.data} is not a JSON object; rerun: {figure.record}")
    begin, end = markers(name)
    return "\n".join([begin, figure.render(document), end])


def rewrite(text: str, new_block: str, path: Path) -> str:
    """`text` with the marked block of `new_block`'s name replaced by it; ValueError when the markers are missing."""
    begin_marker = new_block.splitlines()[0]
    end_marker = begin_marker.replace(": begin -->", ": end -->")
    begin, end = text.find(begin_marker), text.find(end_marker)
    if begin < 0 or end < begin:
        raise ValueError(f"{path} has no {begin_marker} ... {end_marker} block")
    return text[:begin] + new_block + text[end + len(end_marker):]


def page_blocks(report: Report) -> dict[str, list[str]]:
    """Every block each page shows, written from the data."""
    blocks = {page: [block(report, page)] for page in PAGES}
    blocks["performance"] += [figure_block(name, figure) for name, figure in FIGURES.items()]
    return blocks


def draw_charts(report: Report) -> None:
    """Redraw every published chart from its data file, its title naming machine, date, commit and load."""
    plot_speedups(report, DOCS / "speedups.png")
    for figure in FIGURES.values():
        if figure.chart is not None:
            name, draw = figure.chart
            draw(read_document(DOCS / figure.data), DOCS / name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the pages agree with the data")
    parser.add_argument("--data", type=Path, default=DATA, help="the --json file (default docs/bench-standard.json)")
    args = parser.parse_args(argv)
    report = bench_report(read_document(args.data), args.data)
    stale = []
    for page, blocks in page_blocks(report).items():
        path = PAGES[page]
        text = updated = path.read_text(encoding="utf-8")
        for new_block in blocks:
            updated = rewrite(updated, new_block, path)
        if updated != text:
            stale.append(str(path.relative_to(ROOT)))
            if not args.check:
                path.write_text(updated, encoding="utf-8")
    if args.check and stale:
        print(f"out of date with the data in docs/: {', '.join(stale)}; run python -m benchmarks.publish",
              file=sys.stderr)
        return 1
    if not args.check:
        draw_charts(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
