"""A reply of the right keys with values of the wrong types: the loading reply's entry points as a number."""
import os
import sys

import numpy as np

CHANNEL = int(sys.argv[1])  # the reply descriptor is in the worker's argv
os.write(CHANNEL, b'{"entry_points": 5}\n')  # arrives before the worker's own reply to loading


def point_inside(polygon, px, py):
    return False


def mask(vertices, shape):
    return np.zeros(shape, bool)
