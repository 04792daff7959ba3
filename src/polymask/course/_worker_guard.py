"""The course refuses to import inside a ``polymask check`` worker and every process started from it.

The checker runs a learner's exercise in a worker process whose environment
holds ``POLYMASK_CHECKER_WORKER=1``; the environment is inherited, so a
process the learner's code starts gets it too, and importing the course's
stages there raises ImportError: an exercise computes the mask itself.
The worker's own guard (polymask/course/checker/worker.py) refuses
polymask's files, the library's included; this is the second line for
processes past it.  Native code can clear the variable;
docs/course/checker.md says what the checker does not guard.
"""
import os

if os.environ.get("POLYMASK_CHECKER_WORKER") == "1":
    raise ImportError("polymask's course does not run inside a `polymask check` worker, nor in processes it "
                      "starts: the exercise is to compute the mask yourself")
