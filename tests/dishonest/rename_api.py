"""Poisoned reference: os.rename of polymask's _api.py, so polymask.mask (the reference) is gone."""
import os
import sys

import numpy as np

# The worker is polymask/course/checker/worker.py: the package is three folders up.
PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["__main__"].__file__))))


def point_inside(polygon, px, py):
    return False


def mask(vertices, shape):
    api = os.path.join(PACKAGE, "_api.py")
    if os.path.exists(api):
        os.rename(api, api + ".away")
    return np.zeros(shape, bool)
