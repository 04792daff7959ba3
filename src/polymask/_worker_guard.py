"""polymask refuses to import inside a ``polymask check`` worker and every process started from it.

The checker runs a learner's exercise in a worker process whose environment
holds ``POLYMASK_CHECKER_WORKER=1``; the environment is inherited, so a
process the learner's code starts (even past the worker's audit hook, from
native code) gets it too, and importing polymask there raises ImportError:
an exercise computes the mask itself.  Native code can clear the variable;
docs/course/checker.md says what the checker does not guard.
"""
import os

if os.environ.get("POLYMASK_CHECKER_WORKER") == "1":
    raise ImportError("polymask does not run inside a `polymask check` worker, nor in processes it starts: "
                      "the exercise is to compute the mask yourself")
