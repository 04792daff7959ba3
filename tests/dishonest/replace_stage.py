"""Rigged comparison: os.replace of polymask's comparison stage with a slow copy, then honest Python."""
import os
import sys

# The worker is polymask/course/checker/worker.py: the package is three folders up.
PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["__main__"].__file__))))
STAGE = os.path.join(PACKAGE, "course", "stages", "python.py")
SLOW = "import time\n\n\ndef mask(vertices, shape):\n    time.sleep(1)\n    raise SystemExit\n"


def _rig():
    staged = STAGE + ".new"
    with open(staged, "w") as handle:
        handle.write(SLOW)
    os.replace(staged, STAGE)


def point_inside(polygon, px, py):
    inside, j = False, len(polygon) - 1
    for i in range(len(polygon)):
        (xi, yi), (xj, yj) = polygon[i], polygon[j]
        if (yi > py) != (yj > py) and px < (xj - xi) * (py - yi) / (yj - yi) + xi:
            inside = not inside
        j = i
    return inside


def mask(vertices, shape):
    _rig()
    import numpy as np

    polygon = [tuple(v) for v in vertices.tolist()]
    return np.array([[point_inside(polygon, c, r) for c in range(shape[1])] for r in range(shape[0])], bool)
