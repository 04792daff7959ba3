"""Draw docs/guide/coverage.png: a polygon's mask, all_touched mask and coverage fractions.

    .venv/bin/python docs/guide/coverage_picture.py
"""
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import polymask  # noqa: E402

SHAPE = (12, 16)
# A concave polygon with a hole, in the sample frame (pixel centres at integers).
OUTER = np.array([(0.7, 1.2), (13.6, 0.4), (14.8, 10.3), (8.2, 6.1), (2.1, 10.9)])
HOLE = np.array([(4.0, 3.0), (6.3, 3.4), (5.1, 5.6)])


def main():
    rings = [OUTER, HOLE]
    panels = [
        ("mask (centre rule)", polymask.mask(rings, SHAPE).astype(float)),
        ("mask(all_touched=True)", polymask.mask(rings, SHAPE, all_touched=True).astype(float)),
        ("coverage (exact fractions)", polymask.coverage(rings, SHAPE)),
    ]
    figure, axes = plt.subplots(1, 3, figsize=(13, 3.6), constrained_layout=True)
    for axis, (title, values) in zip(axes, panels):
        image = axis.imshow(values, cmap="viridis", vmin=0, vmax=1, extent=(-0.5, SHAPE[1] - 0.5, SHAPE[0] - 0.5, -0.5))
        for ring in rings:
            closed = np.vstack([ring, ring[:1]])
            axis.plot(closed[:, 0], closed[:, 1], color="white", linewidth=1.5)
        axis.set_title(title)
        axis.set_xticks(range(0, SHAPE[1], 2))
        axis.set_yticks(range(0, SHAPE[0], 2))
    figure.colorbar(image, ax=axes, shrink=0.8, label="share of the cell inside")
    output = Path(__file__).with_name("coverage.png")
    figure.savefig(output, dpi=110)
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
