"""Draw docs/guide/conventions.png: one triangle under polymask's two pixel conventions.

    .venv/bin/python docs/guide/conventions_picture.py

Left, the default: pixel (r, c) is the sample point (x=c, y=r).  Right, with
``transform=`` (here the identity, COCO's grid): pixel (r, c) is the cell
[c, c+1] x [r, r+1], tested at its centre.  Filled markers and cells are the
pixels ``polymask.mask`` returns as inside.
"""
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import polymask  # noqa: E402

SHAPE = (6, 7)
TRIANGLE = np.array([(0.6, 0.4), (6.2, 1.5), (2.5, 5.6)])
IDENTITY = (1, 0, 0, 0, 1, 0)


def _outline(axis):
    closed = np.vstack([TRIANGLE, TRIANGLE[:1]])
    axis.plot(closed[:, 0], closed[:, 1], color="tab:red", linewidth=2)


def main():
    figure, (points, cells) = plt.subplots(1, 2, figsize=(11, 5.2), constrained_layout=True)
    rows, cols = np.indices(SHAPE)

    inside = polymask.mask(TRIANGLE, SHAPE)
    points.scatter(cols[~inside], rows[~inside], s=60, facecolors="white", edgecolors="grey")
    points.scatter(cols[inside], rows[inside], s=60, color="tab:blue")
    points.set_title("sample points (default): pixel (r, c) is the point (x=c, y=r)")
    points.set_xlim(-0.6, SHAPE[1] - 0.4)
    points.set_ylim(SHAPE[0] - 0.4, -0.6)

    inside = polymask.mask(TRIANGLE, SHAPE, transform=IDENTITY)
    cells.imshow(inside, cmap="Blues", vmin=0, vmax=1.6, extent=(0, SHAPE[1], SHAPE[0], 0))
    cells.scatter(cols + 0.5, rows + 0.5, s=12, color="grey")
    cells.set_xticks(range(SHAPE[1] + 1))
    cells.set_yticks(range(SHAPE[0] + 1))
    cells.grid(color="grey", linewidth=0.5)
    cells.set_title("cells (transform=): pixel (r, c) is [c, c+1] x [r, r+1], tested at its centre")

    for axis in (points, cells):
        _outline(axis)
        axis.set_aspect("equal")
        axis.set_xlabel("x (column)")
        axis.set_ylabel("y (row)")
        axis.title.set_fontsize(9)
    output = Path(__file__).with_name("conventions.png")
    figure.savefig(output, dpi=100)
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
