"""Random valid geometries for the georeferenced tests: star-shaped rings, rings
mapped from pixel space to world coordinates, and random polygons and
multipolygons on the SHAPE grid whatever the transform.
"""
from __future__ import annotations

import numpy as np
from shapely.geometry import MultiPolygon, Polygon

SHAPE = (47, 53)


def star(rng, centre, radius, n):
    """A star-shaped (hence simple) ring around `centre`, radii in [radius/2, radius].

    Angles are jittered around even steps, so with n >= 6 the ring holds
    the disc of radius 0.35 * radius around its centre (room for a hole).
    """
    angles = (np.arange(n) + rng.uniform(-0.25, 0.25, n)) * (2 * np.pi / n)
    radii = rng.uniform(0.5, 1.0, n) * radius
    return np.c_[centre[0] + radii * np.cos(angles), centre[1] + radii * np.sin(angles)]


def to_world(transform, pixels):
    a, b, c, d, e, f = tuple(transform)[:6]
    return np.c_[a * pixels[:, 0] + b * pixels[:, 1] + c, d * pixels[:, 0] + e * pixels[:, 1] + f]


def random_geometries(rng, transform, count=6):
    """Valid random polygons (some with a hole) and multipolygons (disjoint parts), in world coordinates.

    Built in pixel space (columns, rows) so they land on the grid whatever
    the transform, then mapped through it.  Some reach past the image.
    """
    geometries = []
    for k in range(count):
        centre = rng.uniform([-5, -5], [SHAPE[1] + 5, SHAPE[0] + 5])
        radius = rng.uniform(2, 25)
        outer = star(rng, centre, radius, int(rng.integers(6, 25)))
        holes = [star(rng, centre, radius * 0.3, 7)] if k % 2 else []
        polygon = Polygon(to_world(transform, outer), [to_world(transform, h) for h in holes])
        if k % 3 == 2:  # a second part far enough away to be disjoint
            other = star(rng, centre + [2.5 * radius, 0], radius * 0.9, 9)
            polygon = MultiPolygon([polygon, Polygon(to_world(transform, other))])
        assert polygon.is_valid, polygon
        geometries.append(polygon)
    return geometries
