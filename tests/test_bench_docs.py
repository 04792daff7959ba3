"""The published speed-up table: README and docs/performance.md agree with each other and with the data."""
import json
import re
import time
from pathlib import Path

from benchmarks import publish
from polymask.bench import parse_args, run_table

ROOT = Path(__file__).resolve().parents[1]
PAGES = (ROOT / "README.md", ROOT / "docs" / "performance.md")


def published_block(path):
    text = path.read_text(encoding="utf-8")
    return text[text.index(publish.BEGIN):text.index(publish.END)]


def stage_rows(block):
    return {re.search(r"\(`(\w+)`\)", line).group(1): line for line in block.splitlines()
            if line.startswith("| ") and "(`" in line and "| stage |" not in line}


def test_both_pages_show_the_published_data():
    assert publish.main(["--check"]) == 0, "run: python -m benchmarks.publish"


def test_the_pages_agree_row_for_row_and_on_the_machine():
    readme, performance = (published_block(path) for path in PAGES)
    data = json.loads(publish.DATA.read_text(encoding="utf-8"))
    assert stage_rows(readme) == {key: line for key, line in stage_rows(performance).items()
                                  if key in stage_rows(readme)}
    assert set(stage_rows(readme)) == {row["id"] for row in data["rows"] if row["kind"] in ("stage", "side", "library")}
    for block in (readme, performance):
        assert f"CPU: {data['machine']['cpu']} " in block
        assert ("- measured " in block) == ("state" in data)


def test_the_quoted_figures_are_the_datas():
    # Recomputed here from the raw rows: the scanline's lead over the fastest
    # stage that tests every pixel, and its time over the floor's and OpenCV's.
    data = json.loads(publish.DATA.read_text(encoding="utf-8"))
    seconds = {row["id"]: row["seconds"] for row in data["rows"] if row["seconds"]}
    per_pixel = [row["seconds"] for row in data["rows"] if row["seconds"] and row["kind"] in ("stage", "side")
                 and row["id"] != "scanline"]
    lead = f"{min(per_pixel) / seconds['scanline']:,.0f}x faster than the best per-pixel stage"
    opencv = f"{seconds['scanline'] / seconds['opencv']:.2f}x OpenCV's `fillPoly` time"
    for path in PAGES:
        block = published_block(path)
        assert lead in block and opencv in block, path


def test_a_fresh_report_publishes_its_date_commit_and_load():
    # The writer the published data is regenerated with: today's format has
    # the state, and the pages' blocks carry it.
    report = run_table(parse_args(["--size", "48", "--vertices", "7", "--stages", "python,numpy,scanline",
                                   "--no-peers", "--no-progress", "--repeats", "3", "--quick"]),
                       getloadavg=lambda: (0.2, 0.3, 0.3), cpu_clock=time.perf_counter)
    for page in ("readme", "performance"):
        block = publish.block(report, page)
        assert f"- measured {report['state']['date']} (UTC)" in block and "load average 0.20 → 0.20" in block
        assert "(`scanline`)" in block and "faster than the best per-pixel stage (`numpy`)" in block
