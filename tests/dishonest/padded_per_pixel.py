"""Exercise 08 without the algorithm: the per-pixel rule in NumPy, each call padded with a CPU busy-loop up to
what 2,400 edges would cost, so a polygon of 24 vertices costs as much CPU as one of 2,400 (no sleeping)."""

import time

import numpy as np

PADDED_EDGES = 2400


def _per_pixel(vertices, shape):
    py, px = np.mgrid[0 : shape[0], 0 : shape[1]].astype(np.float64)
    inside = np.zeros(shape, dtype=bool)
    for i in range(len(vertices)):
        (xi, yi), (xj, yj) = vertices[i], vertices[i - 1]
        with np.errstate(all="ignore"):
            crosses = (yi > py) != (yj > py)
            x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi
        inside ^= crosses & (px < x_cross)
    return inside


def _seconds_per_edge_pixel():
    """This machine's CPU seconds per (edge, pixel) of the per-pixel rule, measured once at import."""
    start = time.process_time()
    _per_pixel(np.random.default_rng(0).uniform(0, 64, size=(96, 2)), (64, 64))
    return (time.process_time() - start) / (96 * 64 * 64)


SECONDS_PER_EDGE_PIXEL = _seconds_per_edge_pixel()


def mask(vertices, shape):
    start = time.process_time()
    vertices = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    inside = _per_pixel(vertices, shape)
    budget = SECONDS_PER_EDGE_PIXEL * PADDED_EDGES * shape[0] * shape[1]
    spins = 0
    while time.process_time() - start < budget:  # burn CPU, not wall time
        spins += 1
    return inside
