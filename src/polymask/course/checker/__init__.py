"""``polymask check NN FILE``: is a learner's exercise right, and was the lesson learnt?

A checker a learner can trust, in these rooms:

* ``sandbox`` and ``confine``
  -- the operating system's sandbox (Landlock, namespaces) around the
  learner's build and run; ``integrity`` -- the
  installed files checked against pip's record before judging;
* ``exercises`` -- the registry: what each exercise
  asks for (file, entry points, technique check, stage to beat), the test
  set (the contract's polygons plus the 1e300 extremes), the hints;
* ``source`` and ``tokens``
  -- what is read in the source (tokenised: no comments, strings or line
  splices): build options, borrowed answers, the kind of file, Cython's yellow
  lines; ``artifact`` -- what the built module's
  symbols and generated C++ show;
* ``worker`` -- the hostile process that runs the
  learner's code: one raw answer per request, nothing it says believed;
* ``runner`` -- driving it: requests, limits on the
  checker's clock, /proc measurements, nothing left running afterwards;
* ``judge`` and ``technique``
  -- fresh cases per run, each answer judged after it arrives, technique
  checks measured from outside (``probe``: 03's point_inside counted and
  shown a moved polygon in a second build; ``scaling``: 08's CPU time
  against per-pixel code's; ``counting``: the core's calls in 04 and 05);
* ``verdict`` and ``report`` --
  the order of the checks, and the words.

From a notebook cell::

    from polymask.course.checker import check
    check("01", "exercises/01_python/mask.py")      # shows the report; .passed is a bool

Exit codes of ``polymask check``: 0 right, 1 wrong, 2 the file could not be
built or loaded, or the command was used wrongly (checked before anything runs),
3 inconclusive (the machine was too busy to judge the technique: re-run).
``polymask check NN --hint`` prints the exercise's next hint.
"""
from __future__ import annotations

import argparse
import sys

from polymask.course.checker.exercises import EXERCISES, Exercise, get_exercise
from polymask.course.checker.hints import hint
from polymask.course.checker.report import LEGEND, CheckResult, difference_picture
from polymask.course.checker.verdict import MAX_REPEATS, MAX_SIZE, MAX_TIME_SIZE, check

__all__ = ["EXERCISES", "LEGEND", "CheckResult", "Exercise", "add_arguments", "check", "difference_picture",
           "get_exercise", "hint", "main_from_args"]


def _bounded(low: int, high: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number from {low} to {high}, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected a whole number from {low} to {high}, got {value}")
        return value
    return parse


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `polymask check` subcommand's arguments (see polymask/cli.py)."""
    parser.add_argument("exercise", help="exercise number, e.g. 01 (or its folder name, 01_python)")
    parser.add_argument("file", nargs="?", help="the file you edited, e.g. exercises/01_python/mask.py")
    parser.add_argument("--hint", nargs="?", const=0, type=_bounded(1, 9), default=None, metavar="N",
                        help="print the exercise's next hint (or hint N) instead of checking")
    parser.add_argument("--size", type=_bounded(1, MAX_SIZE), default=24, help="side of the test images (default 24)")
    parser.add_argument("--time-size", type=_bounded(1, MAX_TIME_SIZE), default=None,
                        help="side of the timing problem (default 1024; 128 for slow stages)")
    parser.add_argument("--repeats", type=_bounded(1, MAX_REPEATS), default=3,
                        help="timings per row; min, median and max are shown (default 3)")
    parser.add_argument("--no-timing", action="store_true", help="only check, do not time")
    parser.add_argument("--case-timeout", type=_seconds, default=30.0, help="seconds per test case (default 30)")
    parser.add_argument("--seed", type=_bounded(0, 2**32 - 1), default=None,
                        help="replay the random cases of an earlier run (its report prints the seed)")
    parser.add_argument("--timing-timeout", type=_seconds, default=120.0,
                        help="seconds per timing repeat (default 120)")
    parser.set_defaults(run=main_from_args)


def main_from_args(args: argparse.Namespace) -> int:
    """Run ``polymask check`` with the arguments :func:`add_arguments` parsed; return the exit status."""
    try:
        if args.hint is not None:
            print(hint(args.exercise, args.hint or None, near=args.file))
            return 0
        if not args.file:
            print("polymask check: give the file you edited, e.g. polymask check 01 exercises/01_python/mask.py "
                  "(or --hint for a hint)", file=sys.stderr)
            return 2
        outcome = check(args.exercise, args.file, size=args.size, time_size=args.time_size,
                        repeats=args.repeats, timing=not args.no_timing, case_timeout=args.case_timeout,
                        timing_timeout=args.timing_timeout, seed=args.seed)
    except (ValueError, FileNotFoundError) as error:
        print(f"polymask check: {error}", file=sys.stderr)
        return 2
    except (MemoryError, OSError) as error:  # the checker could not judge: not the same as "wrong"
        print(f"polymask check: could not finish the check ({type(error).__name__}: {error})", file=sys.stderr)
        return 2
    print(outcome)
    return outcome.exit_code
