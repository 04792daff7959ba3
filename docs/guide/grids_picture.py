"""Draw docs/guide/grids.png: points on a boundary under three rules, and SREX on two grids.

    .venv/bin/python docs/guide/grids_picture.py

Left: points on and around a square's boundary, as polymask.contains,
shapely.contains_xy and matplotlib's Path.contains_points decide them.
Middle and right: polymask.xarray.mask_2d of regionmask's SREX regions on a
Gaussian grid (uneven latitudes) and on a rotated-pole grid (2-D lon/lat),
each grid point drawn where it lies.
"""
from pathlib import Path as FilePath

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import regionmask  # noqa: E402
import shapely  # noqa: E402
from matplotlib.path import Path  # noqa: E402

import polymask  # noqa: E402
import polymask.xarray  # noqa: E402

SQUARE = [(0, 0), (4, 0), (4, 4), (0, 4)]


def rotated_pole(rlon, rlat, pole_lon, pole_lat):
    """2-D geographic lon/lat of a rotated-pole grid (as tests/test_xarray_grids.py builds it)."""
    rlon2, rlat2 = np.meshgrid(np.radians(rlon), np.radians(rlat))
    x, y, z = np.cos(rlat2) * np.cos(rlon2), np.cos(rlat2) * np.sin(rlon2), np.sin(rlat2)
    tilt = np.radians(90.0 - pole_lat)
    x, z = x * np.cos(tilt) - z * np.sin(tilt), x * np.sin(tilt) + z * np.cos(tilt)
    turn = np.radians(pole_lon + 180.0)
    x, y = x * np.cos(turn) - y * np.sin(turn), x * np.sin(turn) + y * np.cos(turn)
    return np.degrees(np.arctan2(y, x)), np.degrees(np.arcsin(np.clip(z, -1, 1)))


def draw_rules(axes):
    y, x = np.mgrid[-1:5.01:0.5, -1:5.01:0.5]
    x, y = x.ravel(), y.ravel()
    rules = [
        ("polymask.contains", polymask.contains(SQUARE, x, y)),
        ("shapely.contains_xy", shapely.contains_xy(shapely.Polygon(SQUARE), x, y)),
        ("Path.contains_points", Path(SQUARE).contains_points(np.column_stack([x, y]))),
    ]
    for axis, (title, inside) in zip(axes, rules):
        axis.fill(*zip(*SQUARE), color="#dde6f0")
        axis.scatter(x[~inside], y[~inside], s=14, facecolors="none", edgecolors="#888888")
        axis.scatter(x[inside], y[inside], s=14, color="#1f5fa8")
        axis.set_title(title, fontsize=9)
        axis.set_aspect("equal")
        axis.set_xticks([0, 4])
        axis.set_yticks([0, 4])


def draw_grid(axis, lon, lat, title):
    srex = regionmask.defined_regions.srex
    labels = polymask.xarray.mask_2d(srex, lon, lat).values
    lon2, lat2 = (lon, lat) if np.ndim(lon) == 2 else np.meshgrid(lon, lat)
    outside = np.isnan(labels)
    axis.scatter(lon2[outside], lat2[outside], s=1, color="#cccccc")
    axis.scatter(lon2[~outside], lat2[~outside], s=1, c=labels[~outside], cmap="tab20", vmin=1, vmax=26)
    srex.plot_regions(ax=axis, add_label=False, line_kws={"linewidth": 0.5, "color": "black"})
    axis.set_title(title, fontsize=9)


def main():
    figure = plt.figure(figsize=(13, 3.6), constrained_layout=True)
    grid = figure.add_gridspec(1, 5, width_ratios=[1, 1, 1, 2.2, 2.2])
    draw_rules([figure.add_subplot(grid[0, k]) for k in range(3)])
    gaussian = np.degrees(np.arcsin(np.polynomial.legendre.leggauss(48)[0]))
    draw_grid(figure.add_subplot(grid[0, 3]), np.arange(-180, 180, 4.0), gaussian, "SREX, Gaussian grid (48 latitudes)")
    axis = figure.add_subplot(grid[0, 4])
    lon, lat = rotated_pole(np.arange(-30, 30, 0.75), np.arange(-25, 25, 0.75), -162, 39.25)
    draw_grid(axis, lon, lat, "SREX, rotated-pole grid (2-D lon/lat)")
    axis.set_xlim(lon.min() - 5, lon.max() + 5)
    axis.set_ylim(lat.min() - 5, lat.max() + 5)
    figure.savefig(FilePath(__file__).with_suffix(".png").with_name("grids.png"), dpi=110)


if __name__ == "__main__":
    main()
