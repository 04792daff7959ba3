"""Exercise 08 without the algorithm: the per-pixel rule in NumPy, each call padded with a CPU busy-loop up to
what 240 edges would cost, so that 2,400 vertices cost only 10x what 24 do (CPU burnt, no sleeping)."""

import time

import numpy as np

PADDED_EDGES = 240
PADDED_PIXELS = 256 * 256


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
    _per_pixel(np.random.default_rng(0).uniform(0, 256, size=(24, 2)), (256, 256))
    return (time.process_time() - start) / (24 * 256 * 256)


SECONDS_PER_EDGE_PIXEL = _seconds_per_edge_pixel()


def mask(vertices, shape):
    start = time.process_time()
    vertices = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    inside = _per_pixel(vertices, shape)
    pixels = shape[0] * shape[1]
    # Padded only up to the scaling check's image size, so the full-size case stays within its time limit.
    budget = SECONDS_PER_EDGE_PIXEL * PADDED_EDGES * pixels if pixels <= PADDED_PIXELS else 0.0
    spins = 0
    while time.process_time() - start < budget:  # burn CPU, not wall time
        spins += 1
    return inside
