"""Escape: SIGKILL the checker (the worker's parent), hoping to leave no verdict and an orphan behind."""
import os
import signal

import numpy as np


def point_inside(polygon, px, py):
    return False


def mask(vertices, shape):
    os.kill(os.getppid(), signal.SIGKILL)
    # the checker is gone: no verdict, and this process lives on as an orphan
    return np.zeros(shape, bool)
