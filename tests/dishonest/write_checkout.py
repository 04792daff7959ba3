"""Tampering: write into the checkout (beside the submitted file), e.g. to plant or edit a file."""
import os

import numpy as np

PLANTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "planted.txt")


def point_inside(polygon, px, py):
    return False


def mask(vertices, shape):
    with open(PLANTED, "w") as handle:
        handle.write("the learner's code wrote here\n")
    return np.zeros(shape, bool)
