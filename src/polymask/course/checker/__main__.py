"""``python -m polymask.course.checker NN FILE``: the same as ``polymask check NN FILE``."""
import argparse
import sys

from polymask.course.checker import add_arguments, main_from_args

parser = argparse.ArgumentParser(prog="python -m polymask.course.checker", description="check a learner's exercise")
add_arguments(parser)
sys.exit(main_from_args(parser.parse_args()))
