// Windows that tile the image reproduce the full mask exactly.
#include <gtest/gtest.h>

#include "test_support.hpp"

using namespace polymask_test;

namespace {

// Fill the image tile by tile, each tile into its place in a full-size
// buffer (row_stride = cols), with the given fill.
std::vector<uint8_t> tiled_mask(const Polygon &polygon, int64_t rows, int64_t cols, int64_t tile_rows,
                                int64_t tile_cols, Fill fill)
{
    std::vector<uint8_t> mask(static_cast<size_t>(rows * cols), 0xAA);
    for (int64_t r0 = 0; r0 < rows; r0 += tile_rows) {
        for (int64_t c0 = 0; c0 < cols; c0 += tile_cols) {
            const Window window{r0, c0, std::min(tile_rows, rows - r0), std::min(tile_cols, cols - c0)};
            uint8_t *corner = mask.data() + r0 * cols + c0;
            if (fill == Fill::scanline) {
                polymask::fill_scanline(polygon, window, corner, cols);
            } else {
                polymask::fill_per_pixel(polygon, window, corner, cols);
            }
        }
    }
    return mask;
}

}  // namespace

TEST(Windows, TilesReproduceTheFullMask)
{
    std::mt19937_64 rng(42);
    for (int trial = 0; trial < 40; ++trial) {
        const auto xy = random_vertices(rng, 3 + trial, -5.0, 70.0);
        const Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2));
        const auto full = full_mask(polygon, 67, 65, Fill::per_pixel);
        for (auto [tile_rows, tile_cols] : {std::pair<int64_t, int64_t>{16, 16}, {7, 13}, {1, 65}, {67, 1}, {50, 50}}) {
            ASSERT_EQ(tiled_mask(polygon, 67, 65, tile_rows, tile_cols, Fill::scanline), full)
                << "scanline trial " << trial << " tile " << tile_rows << "x" << tile_cols;
            ASSERT_EQ(tiled_mask(polygon, 67, 65, tile_rows, tile_cols, Fill::per_pixel), full)
                << "per-pixel trial " << trial << " tile " << tile_rows << "x" << tile_cols;
        }
    }
}

TEST(Windows, WindowOutsideTheImageUsesAbsoluteCoordinates)
{
    // A window at negative and far positive offsets is the same polygon,
    // just a different part of the plane.
    const std::vector<double> xy = {-10, -10, 10, -10, 10, 10, -10, 10};
    const Polygon polygon(xy.data(), 4);
    std::vector<uint8_t> out(4 * 4, 0xAA);
    polymask::fill_scanline(polygon, Window{-12, -12, 4, 4}, out.data(), 4);
    EXPECT_EQ(picture(out, 4, 4), (std::vector<std::string>{"....", "....", "..##", "..##"}));
    polymask::fill_scanline(polygon, Window{1000, 1000, 4, 4}, out.data(), 4);
    EXPECT_EQ(picture(out, 4, 4), (std::vector<std::string>{"....", "....", "....", "...."}));
}
