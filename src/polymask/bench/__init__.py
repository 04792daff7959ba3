"""``polymask bench``: reproduce the 2014 speed-up table on this machine.

    polymask bench                      the table on the standard problem
    polymask bench --quick              slow stages timed on a band of rows, scaled up
    polymask bench --json r.json --csv r.csv --plot r.png
    polymask bench --sweep size --plot sweep.png
    polymask bench --from-json run.json     (a --json file, or a pytest-benchmark file)
    polymask bench --compare before.json after.json     (two --json files, or two pytest-benchmark files)

Every available stage runs on the course's problem (1024x1024, 24 random
vertices, fixed seed); the table shows this machine's median time and the
spread of its samples, CPU time beside wall time, its speed-up over pure
Python measured in the same run, and the 2014 course's time and speed-up
beside them.  Below come today's peer libraries, each with how many pixels
it disagrees with the mask contract, and the memory floor.  Every row is
timed in the same interleaved rounds, so the ratios share the machine's
conditions; the header gives the date, commit and load, and says when the
machine was too busy for the figures to be trusted.  Speed claims are
ratios taken in one run, never absolute times.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from polymask._arguments import MAX_THREADS
from polymask.bench import report as reports
from polymask.bench.output import OutputFailed, check_output_path, check_plot_format, check_stages, output, print_table
from polymask.bench.records import BenchOptions
from polymask.bench.sweep import SWEEP_VALUES, run_sweep
from polymask.bench.table import run_table
from polymask.course.problems import STANDARD_SEED, STANDARD_SIZE, STANDARD_VERTICES

__all__ = ["main", "parse_args", "run_sweep", "run_table"]


def parse_args(argv: Sequence[str] | None) -> BenchOptions:
    """The options of ``polymask bench`` from `argv` (None: sys.argv[1:]), checked (exit 2 otherwise)."""
    description = (__doc__ or "").split("\n\n")[0].replace("``", "")
    parser = argparse.ArgumentParser(prog="polymask bench", description=description,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=STANDARD_SIZE, help="image side in pixels (default 1024)")
    parser.add_argument("--vertices", type=int, default=STANDARD_VERTICES, help="polygon vertex count (default 24)")
    parser.add_argument("--seed", type=int, default=STANDARD_SEED, help="random polygon seed (default 2014)")
    parser.add_argument("--repeats", type=int, default=7, help="timings per fast row; the median is shown")
    parser.add_argument("--slow-repeats", type=int, default=MIN_SLOW_REPEATS,
                        help=f"timings per slow stage (pure Python, NumPy scalars, plain Cython); "
                             f"at least {MIN_SLOW_REPEATS}")
    parser.add_argument("--threads", type=int, default=0,
                        help="threads for threaded backends (0: the default, see polymask.threads)")
    parser.add_argument("--stages", default="all",
                        help="comma-separated stage ids to run (default all available)")
    parser.add_argument("--no-peers", action="store_true", help="skip the peer libraries")
    parser.add_argument("--quick", action="store_true",
                        help="time slow stages on a band of rows and scale up (marked extrapolated)")
    parser.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    parser.add_argument("--csv", metavar="FILE", help="also write the rows as CSV")
    parser.add_argument("--plot", metavar="FILE.png", help="also draw the speed-ups (or the sweep) as a PNG")
    parser.add_argument("--sweep", choices=sorted(SWEEP_VALUES),
                        help="time the fast backends and peers over sizes, vertex counts or threads")
    parser.add_argument("--from-json", metavar="FILE",
                        help="print the table from a --json file or a pytest-benchmark JSON file")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE.json", "AFTER.json"),
                        help="compare two --json files, or two pytest-benchmark JSON files, row by row: "
                             "ratio, verdict and what differs")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv, namespace=BenchOptions())
    _check_ranges(parser, args)
    check_stages(parser, args.stages)
    for option in ("json", "csv", "plot"):
        if getattr(args, option):
            check_output_path(parser, f"--{option}", getattr(args, option))
    if args.plot:
        check_plot_format(parser, args.plot)
    return args


#: Largest --size: the table holds several size x size masks at once (1 GiB each
#: at this side) and the per-pixel stages take time in proportion to the area.
MAX_SIZE = 2**15
#: Largest --vertices: the slowest stages are O(pixels x vertices).
MAX_VERTICES = 10**7
#: The fewest samples of a slow stage: pure Python is every speed-up's
#: denominator, and one sample cannot show its spread.
MIN_SLOW_REPEATS = 3


def _check_ranges(parser: argparse.ArgumentParser, args: BenchOptions) -> None:
    """Every number within what a run can do, checked before anything runs (exit 2 otherwise)."""
    limits: dict[str, tuple[int, int | None]] = {
        "size": (1, MAX_SIZE), "vertices": (1, MAX_VERTICES), "repeats": (1, None),
        "slow_repeats": (MIN_SLOW_REPEATS, None), "threads": (0, MAX_THREADS), "seed": (0, None)}
    for name, (low, high) in limits.items():
        value = getattr(args, name)
        option = f"--{name.replace('_', '-')}"
        if value < low:
            parser.error(f"{option} must be at least {low}, got {value}")
        if high is not None and value > high:
            parser.error(f"{option} must be at most {high:,}, got {value:,}")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return _run(args)
    except MemoryError as error:
        print(f"polymask bench: out of memory ({error or 'MemoryError'}); try a smaller --size or --vertices",
              file=sys.stderr)
        return 2
    except OutputFailed as error:
        print(f"polymask bench: {error}", file=sys.stderr)
        return 2


def _run(args: BenchOptions) -> int:
    if args.compare:
        from polymask.bench.compare import compare_files

        try:
            print_table(compare_files(*args.compare))
        except (OSError, ValueError) as error:  # a missing file, bad JSON, not bench's layout
            print(f"polymask bench: cannot compare {args.compare[0]!r} with {args.compare[1]!r}: {error}",
                  file=sys.stderr)
            return 2
        return 0
    if args.from_json:
        from polymask.bench.from_json import table_from_json

        try:
            print_table(table_from_json(args.from_json))
        except (OSError, ValueError) as error:  # a missing file, bad JSON, neither bench's nor pytest-benchmark's
            print(f"polymask bench: cannot read --from-json {args.from_json!r}: {error}", file=sys.stderr)
            return 2
        return 0
    if args.sweep:
        sweep = run_sweep(args)
        print_table(reports.sweep_markdown(sweep))
        if args.json:
            output(f"--json {args.json!r}", reports.write_json, sweep, args.json)
        if args.plot:
            output(f"--plot {args.plot!r}", reports.plot_sweep, sweep, args.plot)
        return 0
    report = run_table(args)
    print_table(reports.markdown(report))
    if args.json:
        output(f"--json {args.json!r}", reports.write_json, report, args.json)
    if args.csv:
        output(f"--csv {args.csv!r}", reports.write_csv, report, args.csv)
    if args.plot:
        output(f"--plot {args.plot!r}", reports.plot_speedups, report, args.plot)
    return 0
