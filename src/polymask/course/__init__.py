"""The course: the ladder of stages, the lessons, the exercises' checker.

It stands on the library: every stage returns what ``polymask.mask``
returns, bit for bit, and the stages that call the C++ core call the very
library ``import polymask`` loads.  The library never imports this package;
``import polymask`` loads none of it.

- ``polymask.course.stages``: the stage registry (one implementation per rung
  of the 2014 ladder) and the lessons that teach them;
- ``polymask.course.checker``: ``polymask check``, which judges a learner's exercise;
- ``polymask.course.problems`` and ``polymask.course.cases``: the standard problem and
  the contract's test cases;
- ``polymask.course.peers``: the libraries the benchmarks compare against;
- ``polymask.course.build``: building a learner's .pyx against the installed core.
"""
# No stage runs where `polymask check` runs a learner's code (polymask/course/_worker_guard.py).
from polymask.course import _worker_guard  # noqa: F401
