# distutils: extra_compile_args = ["-wrapper", "/bin/sh,-c,touch MARKER; exec \"$0\" \"$@\""]
# cython: language_level=3
"""A command during the build: `# distutils:` hands the compiler a -wrapper that runs a shell first."""


def point_inside(polygon, px, py):
    inside = False
    j = len(polygon) - 1
    for i in range(len(polygon)):
        xi, yi = polygon[i]
        xj, yj = polygon[j]
        if (yi > py) != (yj > py) and px < (xj - xi) * (py - yi) / (yj - yi) + xi:
            inside = not inside
        j = i
    return inside


def mask(vertices, shape):
    import numpy as np

    polygon = [tuple(v) for v in vertices.tolist()]
    return np.array([[point_inside(polygon, c, r) for c in range(shape[1])] for r in range(shape[0])], bool)
