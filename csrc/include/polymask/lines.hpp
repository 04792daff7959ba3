// lines.hpp -- the cells GDAL's line rasterizer burns for each line.
//
// A line has no area, so no fill rule says which cells it claims; polymask
// follows GDAL's line rasterizer (what rasterio.features.rasterize burns).
// Coordinates are in GDAL's pixel frame, where cell (row, col) is the square
// [col, col+1) x [row, row+1) of a height x width image:
//
// * all_touched false: each segment is Bresenham's line between the cells
//   holding its ends, walked from its second end to its first; the first
//   end's cell is burned on a line's first segment only.
// * all_touched true: each segment burns the cells it passes through, walked
//   left to right after GDAL's clip to the image.  A segment within 0.01
//   pixel of vertical (horizontal), or whose ends share a column (row), is
//   one column (row) of cells, its far end's cell left out when that end
//   lies less than 1e-4 pixel past a cell side.  The sloped walk steps from
//   cell side to cell side in binary64, so its cells depend on each rounding:
//   the same operations in the same order as polymask/_touched.py.
//
// The walks stop once past the image, which burns the same cells as walking
// on.  Coordinates must be finite and below 2^30 pixels in magnitude, so the
// Bresenham error term fits int64 (polymask/_lines.py walks farther lines
// in Python's integers).
#pragma once

#include <cstdint>
#include <vector>

#include "polymask/export.hpp"

namespace polymask {

// The cells inside the image that each line burns, once per line: line k is
// vertices [line_ends[k-1], line_ends[k]) of xy ((x, y) pairs; line_ends[-1]
// taken as 0).  Writes line k's cells as flat indices row * width + col,
// ascending, into pixels[cell_ends[k-1], cell_ends[k]).  Polls the interrupt
// check between segments (Interrupted).  Throws std::invalid_argument for bad
// ends, a non-finite coordinate or one of 2^30 or more.
POLYMASK_API void line_cells(const double *xy, int64_t n_vertices, const int64_t *line_ends, int64_t n_lines,
                             int64_t height, int64_t width, bool all_touched, std::vector<int64_t> &cell_ends,
                             std::vector<int64_t> &pixels);

}  // namespace polymask
