"""The ``polymask`` command line: one entry point, one subcommand per job.

    polymask                      the help (also ``polymask --help``); ``polymask --version``
    polymask info                 how polymask was built, which backends run here
    polymask lessons [N]          the course by number: notebook, exercise, stages
    polymask bench [options]      the speed-up table (see polymask.bench)
    polymask annotate STAGE [-o DIR]  Cython's annotated HTML (cython -a) of a Cython stage
    polymask check NN FILE        check (and time) a learner's exercise (see polymask.course.checker)

Subcommands live in their own modules and register here with a function
that adds their arguments and a function that runs them.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def _info(args: argparse.Namespace) -> int:
    import polymask

    report = {"build": polymask.build_info(),
              "backends": {stage_id: (status.available, status.reason)
                           for stage_id, status in polymask.available_backends().items()}}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    for key, value in report["build"].items():
        print(f"{key:>16}: {value}")
    print("\nbackends:")
    for stage_id, (available, reason) in report["backends"].items():
        print(f"  {stage_id:<16} {'yes' if available else 'no: ' + reason}")
    return 0


def _lessons(args: argparse.Namespace) -> int:
    from polymask.course import stages

    if args.number is None:
        print(stages.lesson_table() if args.markdown else _lesson_text(stages.LESSONS))
        return 0
    try:
        found = stages.lesson(args.number)
    except ValueError as error:
        print(f"polymask lessons: {error}", file=sys.stderr)
        return 2
    print(f"Lesson {found.number}: {found.title}")
    print(f"  notebook  {found.notebook_path}  (source notebooks/src/{found.number:02d}_{found.notebook}.py)")
    print(f"  exercise  {found.exercise_path or '-'}"
          + (f"  (polymask check {found.number:02d} ...)" if found.exercise_path else ""))
    from polymask.course.checker import EXERCISES

    for beside in EXERCISES:  # exercises beside the lesson's rung: 01b, 06b, ...
        if not beside.number.isdigit() and beside.number[:2] == f"{found.number:02d}":
            print(f"  exercise  exercises/{beside.folder}/  (polymask check {beside.number} ...)")
    for stage in found.stages:
        print(f"  stage     {stage.id}: {stage.title}  (src/polymask/{stage.source})")
    return 0


def _lesson_text(lessons: Any) -> str:
    """The lessons as a table for a terminal: aligned columns, each lesson's stages on a line below it."""
    rows = [("#", "lesson", "notebook", "exercise")]
    rows += [(str(entry.number), entry.title, entry.notebook_path, entry.exercise_path or "-") for entry in lessons]
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    lines = []
    for index, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
        if index:
            entry = lessons[index - 1]
            stage_list = ", ".join(f"{stage.id} (src/polymask/{stage.source})" for stage in entry.stages)
            # A lesson with no stage of its own (the last one) compares the others.
            lines.append(" " * (widths[0] + 2) + (f"stages: {stage_list}" if entry.stages
                                                   else "stages: none of its own; it times those above"))
    lines.append("\npolymask lessons N shows one lesson; polymask check NN FILE judges an exercise.")
    return "\n".join(lines)


def _bench(args: argparse.Namespace) -> int:
    from polymask import bench

    return bench.main(args.bench_args)


#: Each subcommand's one-line purpose: the main help lists it, and its own help opens with it.
PURPOSES = {
    "info": "Say how polymask was built and which backends run here.",
    "lessons": "List the course's lessons by number: each one's notebook, exercise and stages.",
    "bench": "Reproduce the speed-up table on this machine (polymask bench --help for its options).",
    "annotate": "Write Cython's annotated HTML (cython -a) of a Cython stage.",
    "check": "Check a learner's exercise against the contract's polygons, then time it.",
}


def build_parser() -> argparse.ArgumentParser:
    import polymask

    parser = argparse.ArgumentParser(
        prog="polymask", description="polymask: which pixels of an image lie inside a polygon. One subcommand per job.",
        epilog="Each subcommand has its own help: polymask COMMAND --help.")
    parser.add_argument("--version", action="version", version=f"polymask {polymask.__version__}",
                        help="print polymask's version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add_command(name: str, **options: Any) -> argparse.ArgumentParser:
        purpose = PURPOSES[name]
        return commands.add_parser(name, help=purpose[0].lower() + purpose[1:].rstrip("."), description=purpose,
                                   **options)

    info = add_command("info")
    info.add_argument("--json", action="store_true", help="print JSON instead of text")
    info.set_defaults(run=_info)

    lessons = add_command("lessons")
    lessons.add_argument("number", nargs="?", help="one lesson's number (1-9); all of them without it")
    lessons.add_argument("--markdown", action="store_true", help="all lessons as a Markdown table (the docs' table)")
    lessons.set_defaults(run=_lessons)

    bench = add_command("bench", add_help=False)
    bench.add_argument("bench_args", nargs=argparse.REMAINDER)
    bench.set_defaults(run=_bench)

    from polymask.course import annotate  # the subcommand's arguments live with its code

    annotate.add_arguments(add_command("annotate"))

    from polymask.course import checker

    checker.add_arguments(add_command("check"))
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["bench"]:
        # `polymask bench` owns all of its options (argparse's REMAINDER
        # cannot pass through arguments that start with "--").
        from polymask import bench

        return bench.main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        # A bare `polymask` is a request for the help, not a mistake.
        parser.print_help()
        return 0
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
