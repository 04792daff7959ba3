"""``python -m polymask``: the ``polymask`` command line (polymask/cli.py), for when the
script is not on PATH.  It sits above the library, beside the CLI it runs."""
import sys

from polymask.cli import main

if __name__ == "__main__":
    sys.exit(main())
