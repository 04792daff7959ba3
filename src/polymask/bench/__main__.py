"""python -m polymask.bench: the same as `polymask bench`."""
import sys

from polymask.bench import main

sys.exit(main())
