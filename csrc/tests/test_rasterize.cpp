// Label images: rasterize burns each polygon's exact mask, later over earlier.
// The all_touched burn (rasterize_touched) is test_rasterize_touched.cpp.
#include <gtest/gtest.h>

#include <stdexcept>

#include "polymask/coverage.hpp"
#include "polymask/rasterize.hpp"
#include "mask_writers.hpp"
#include "test_support.hpp"
#include "testing.hpp"

using namespace polymask_test;

namespace {

// The independent answer: each polygon's own scanline mask (tested against
// the per-pixel rule elsewhere), applied in order over a background.
template <class Label>
std::vector<Label> masks_in_order(const std::vector<Polygon> &polygons, const std::vector<Label> &values,
                                  int64_t rows, int64_t cols, Label background, FillRule rule)
{
    std::vector<Label> labels(static_cast<size_t>(rows * cols), background);
    for (size_t p = 0; p < polygons.size(); ++p) {
        const auto mask = full_mask(polygons[p], rows, cols, Fill::per_pixel, rule);
        for (size_t k = 0; k < mask.size(); ++k) {
            if (mask[k]) labels[k] = values[p];
        }
    }
    return labels;
}

template <class Label>
std::vector<Label> burned(const std::vector<Polygon> &polygons, const std::vector<Label> &values,
                          int64_t rows, int64_t cols, Label background, FillRule rule, int threads)
{
    std::vector<Label> labels(static_cast<size_t>(rows * cols), background);
    polymask::rasterize(polygons.data(), static_cast<int64_t>(polygons.size()), values.data(),
                        Window{0, 0, rows, cols}, labels.data(), cols, rule, threads);
    return labels;
}

// Small overlapping polygons scattered over (and past) a rows x cols image.
std::vector<Polygon> random_polygons(std::mt19937_64 &rng, int count, int64_t rows, int64_t cols)
{
    std::uniform_real_distribution<double> centre_x(-5.0, cols + 5.0), centre_y(-5.0, rows + 5.0);
    std::uniform_real_distribution<double> offset(-9.0, 9.0);
    std::uniform_int_distribution<int> n_vertices(3, 9);
    std::vector<Polygon> polygons;
    for (int p = 0; p < count; ++p) {
        const double cx = centre_x(rng), cy = centre_y(rng);
        std::vector<double> xy(2 * static_cast<size_t>(n_vertices(rng)));
        for (size_t k = 0; k < xy.size(); k += 2) {
            xy[k] = cx + offset(rng);
            xy[k + 1] = cy + offset(rng);
        }
        polygons.emplace_back(xy.data(), static_cast<int64_t>(xy.size() / 2));
    }
    return polygons;
}

}  // namespace

TEST(Rasterize, LaterPolygonsLandOverEarlierOnesAtAnyThreadCount)
{
    std::mt19937_64 rng(7);
    const int64_t rows = 61, cols = 53;
    for (int trial = 0; trial < 10; ++trial) {
        const auto polygons = random_polygons(rng, 40, rows, cols);
        std::vector<int32_t> values(polygons.size());
        for (size_t p = 0; p < values.size(); ++p) values[p] = static_cast<int32_t>(p) + 1;
        for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
            const auto expected = masks_in_order<int32_t>(polygons, values, rows, cols, 0, rule);
            for (int threads : {1, 2, 3}) {
                ASSERT_EQ(burned<int32_t>(polygons, values, rows, cols, 0, rule, threads), expected)
                    << "trial " << trial << " threads " << threads << " rule " << static_cast<int>(rule);
            }
        }
    }
}

TEST(Rasterize, EveryLabelTypeBurnsTheSamePixels)
{
    std::mt19937_64 rng(11);
    const auto polygons = random_polygons(rng, 25, 40, 40);
    std::vector<uint8_t> small(polygons.size());
    for (size_t p = 0; p < small.size(); ++p) small[p] = static_cast<uint8_t>(p + 1);
    const auto expected = masks_in_order<uint8_t>(polygons, small, 40, 40, 0, FillRule::even_odd);
    auto same_pixels = [&](auto label_zero) {
        using Label = decltype(label_zero);
        std::vector<Label> values(small.begin(), small.end());
        const auto labels = burned<Label>(polygons, values, 40, 40, Label(0), FillRule::even_odd, 2);
        return std::vector<uint8_t>(labels.begin(), labels.end()) == expected;
    };
    EXPECT_TRUE(same_pixels(uint16_t{}));
    EXPECT_TRUE(same_pixels(int32_t{}));
    EXPECT_TRUE(same_pixels(uint32_t{}));
    EXPECT_TRUE(same_pixels(int64_t{}));
    EXPECT_TRUE(same_pixels(float{}));
    EXPECT_TRUE(same_pixels(double{}));
}

TEST(Rasterize, PixelsOutsideEveryPolygonKeepTheirValue)
{
    const std::vector<double> square = {1, 1, 3, 1, 3, 3, 1, 3};
    const std::vector<Polygon> polygons = {Polygon(square.data(), 4)};
    const std::vector<uint16_t> values = {5};
    const auto labels = burned<uint16_t>(polygons, values, 4, 4, 9, FillRule::even_odd, 1);
    EXPECT_EQ(labels, (std::vector<uint16_t>{9, 9, 9, 9,
                                             9, 5, 5, 9,
                                             9, 5, 5, 9,
                                             9, 9, 9, 9}));
}

TEST(Rasterize, TrianglesSharingADiagonalCoverTheSquareOnce)
{
    // Two halves of a 7x7 square, split along a slanted edge: each pixel of
    // the square is burned by exactly one of them.
    const std::vector<double> lower = {0, 0, 7, 0, 0, 7}, upper = {7, 0, 7, 7, 0, 7};
    const std::vector<Polygon> polygons = {Polygon(lower.data(), 3), Polygon(upper.data(), 3)};
    const auto first = burned<int32_t>(polygons, {1, 2}, 8, 8, 0, FillRule::even_odd, 1);
    const auto mask_lower = full_mask(polygons[0], 8, 8, Fill::per_pixel);
    const auto mask_upper = full_mask(polygons[1], 8, 8, Fill::per_pixel);
    for (int64_t r = 0; r < 8; ++r) {
        for (int64_t c = 0; c < 8; ++c) {
            const size_t k = static_cast<size_t>(r * 8 + c);
            const int claims = mask_lower[k] + mask_upper[k];
            EXPECT_EQ(claims, (r < 7 && c < 7) ? 1 : 0) << "pixel " << r << ", " << c;
            EXPECT_EQ(first[k], mask_lower[k] ? 1 : (mask_upper[k] ? 2 : 0)) << "pixel " << r << ", " << c;
        }
    }
}

// Whether a pixel of the window is inside two polygons, from each polygon's own per-pixel mask.
bool two_on_a_pixel(const std::vector<Polygon> &polygons, int64_t rows, int64_t cols, const Window &window)
{
    std::vector<int> claims(static_cast<size_t>(rows * cols), 0);
    for (const Polygon &polygon : polygons) {
        const auto mask = full_mask(polygon, rows, cols, Fill::per_pixel);
        for (size_t k = 0; k < mask.size(); ++k) claims[k] += mask[k];
    }
    for (int64_t r = window.row0; r < window.row0 + window.height; ++r) {
        for (int64_t c = window.col0; c < window.col0 + window.width; ++c) {
            if (claims[static_cast<size_t>(r * cols + c)] > 1) return true;
        }
    }
    return false;
}

TEST(Rasterize, TheOverlapFlagSaysWhetherTwoPolygonsHoldAPixel)
{
    std::mt19937_64 rng(55);
    const int64_t rows = 70, cols = 150;  // columns past 64 and 128: spans across words of the band's bits
    int found[2] = {0, 0};
    for (int trial = 0; trial < 40; ++trial) {
        // Blobs that may overlap, or a row of slanted quads that share their sides (or reach a pixel into the next).
        std::vector<Polygon> polygons;
        if (trial % 2 == 0) {
            polygons = random_polygons(rng, 4 + trial % 13, rows, cols);
        } else {
            const double width = trial % 4 == 3 ? 26.0 : 25.0;
            for (int k = 0; k < 6; ++k) {
                const double x = 25.0 * k - 3.0 + trial % 3;
                const std::vector<double> quad = {x, -2, x + width, -2, x + width + 6, 72, x + 6, 72};
                polygons.emplace_back(quad.data(), 4);
            }
        }
        const std::vector<int32_t> values(polygons.size(), 7);
        for (const Window window : {Window{0, 0, rows, cols}, Window{5, 60, 40, 80}, Window{69, 149, 1, 1}}) {
            const bool expected = two_on_a_pixel(polygons, rows, cols, window);
            for (int threads : {1, 4}) {
                std::vector<int32_t> labels(static_cast<size_t>(window.height * window.width), 0);
                bool overlap = !expected;
                polymask::rasterize(polygons.data(), static_cast<int64_t>(polygons.size()), values.data(), window,
                                    labels.data(), window.width, FillRule::even_odd, threads, false, &overlap);
                EXPECT_EQ(overlap, expected) << "trial " << trial << ", window at " << window.row0 << ", "
                                             << window.col0 << ", " << threads << " threads";
            }
            ++found[expected];
        }
    }
    EXPECT_GT(found[0], 10);
    EXPECT_GT(found[1], 10);
}

TEST(Rasterize, TiledWindowsEqualTheFullImage)
{
    std::mt19937_64 rng(3);
    const int64_t rows = 70, cols = 45;
    const auto polygons = random_polygons(rng, 60, rows, cols);
    std::vector<int64_t> values(polygons.size());
    for (size_t p = 0; p < values.size(); ++p) values[p] = static_cast<int64_t>(p) * 1000 - 7;
    const auto full = burned<int64_t>(polygons, values, rows, cols, -1, FillRule::even_odd, 1);
    for (auto [tile_rows, tile_cols] : {std::pair<int64_t, int64_t>{16, 16}, {7, 13}, {1, 45}, {70, 1}}) {
        std::vector<int64_t> tiled(full.size(), -1);
        for (int64_t r0 = 0; r0 < rows; r0 += tile_rows) {
            for (int64_t c0 = 0; c0 < cols; c0 += tile_cols) {
                const Window window{r0, c0, std::min(tile_rows, rows - r0), std::min(tile_cols, cols - c0)};
                polymask::rasterize(polygons.data(), static_cast<int64_t>(polygons.size()), values.data(), window,
                                    tiled.data() + r0 * cols + c0, cols, FillRule::even_odd, 2);
            }
        }
        ASSERT_EQ(tiled, full) << "tile " << tile_rows << "x" << tile_cols;
    }
}

TEST(Rasterize, PolygonsFromRingsSplitsTheFlatList)
{
    // Polygon 0: a square with a square hole (two rings).  Polygon 1: a
    // triangle.  Polygon 2: no rings at all (burns nothing).
    const std::vector<double> xy = {0, 0, 6, 0, 6, 6, 0, 6,   // outer ring
                                    2, 2, 4, 2, 4, 4, 2, 4,   // hole
                                    7, 0, 9, 0, 7, 2};        // triangle
    const std::vector<int64_t> ring_ends = {4, 8, 11};
    const std::vector<int64_t> polygon_ends = {2, 3, 3};
    std::vector<Polygon> polygons;
    polymask::polygons_from_rings(xy.data(), 11, ring_ends.data(), 3, polygon_ends.data(), 3, polygons);
    ASSERT_EQ(polygons.size(), 3u);
    EXPECT_EQ(polygons[0].ring_count(), 2);
    EXPECT_EQ(polygons[0].vertex_count(), 8);
    EXPECT_EQ(polygons[1].vertex_count(), 3);
    EXPECT_EQ(polygons[2].vertex_count(), 0);
    const auto labels = burned<uint8_t>(polygons, {1, 2, 3}, 7, 10, 0, FillRule::even_odd, 1);
    std::vector<std::string> lines;
    for (int64_t r = 0; r < 7; ++r) {
        std::string line;
        for (int64_t c = 0; c < 10; ++c) line += static_cast<char>('0' + labels[r * 10 + c]);
        lines.push_back(line);
    }
    EXPECT_EQ(lines, (std::vector<std::string>{"1111110220",
                                               "1111110200",
                                               "1100110000",
                                               "1100110000",
                                               "1111110000",
                                               "1111110000",
                                               "0000000000"}));
}

// polygons_from_rings builds its polygons in chunks on the threads their
// vertices are worth: 20,000 polygons of one to three rings (and some of
// none) on two threads are the polygons one thread builds.
TEST(Rasterize, PolygonsFromRingsOnTwoThreadsBuildTheSamePolygons)
{
    std::mt19937_64 rng(31);
    std::uniform_real_distribution<double> coordinate(0.0, 100.0);
    std::vector<double> xy;
    std::vector<int64_t> ring_ends, polygon_ends;
    for (int p = 0; p < 20000; ++p) {
        for (int ring = 0; ring < p % 4; ++ring) {
            for (int k = 0; k < 3 + (p + ring) % 5; ++k) xy.push_back(coordinate(rng)), xy.push_back(coordinate(rng));
            ring_ends.push_back(static_cast<int64_t>(xy.size() / 2));
        }
        polygon_ends.push_back(static_cast<int64_t>(ring_ends.size()));
    }
    const int64_t n_vertices = static_cast<int64_t>(xy.size() / 2);
    std::vector<Polygon> one, two;
    polymask::polygons_from_rings(xy.data(), n_vertices, ring_ends.data(), static_cast<int64_t>(ring_ends.size()),
                                  polygon_ends.data(), 20000, one, 1);
    polymask::polygons_from_rings(xy.data(), n_vertices, ring_ends.data(), static_cast<int64_t>(ring_ends.size()),
                                  polygon_ends.data(), 20000, two, 2);
    ASSERT_EQ(one.size(), 20000u);
    ASSERT_EQ(two.size(), 20000u);
    for (size_t p = 0; p < one.size(); ++p) {
        ASSERT_EQ(values_of(one[p].xy()), values_of(two[p].xy())) << "polygon " << p;
        ASSERT_EQ(values_of(one[p].ring_ends()), values_of(two[p].ring_ends())) << "polygon " << p;
        ASSERT_EQ(one[p].ring_count(), static_cast<int64_t>(p % 4)) << "polygon " << p;
    }
}

TEST(Rasterize, PolygonsFromRingsRejectsInconsistentEnds)
{
    const std::vector<double> xy(2 * 6, 0.0);
    std::vector<Polygon> polygons;
    const std::vector<int64_t> rings_decreasing = {4, 3, 6}, rings_short = {3, 5}, rings_ok = {3, 6};
    const std::vector<int64_t> polygons_ok = {2}, polygons_short = {1}, polygons_over = {3};
    EXPECT_THROW(polymask::polygons_from_rings(xy.data(), 6, rings_decreasing.data(), 3, polygons_ok.data(), 1,
                                               polygons),
                 std::invalid_argument);
    EXPECT_THROW(polymask::polygons_from_rings(xy.data(), 6, rings_short.data(), 2, polygons_ok.data(), 1,
                                               polygons),
                 std::invalid_argument);
    EXPECT_THROW(polymask::polygons_from_rings(xy.data(), 6, rings_ok.data(), 2, polygons_short.data(), 1,
                                               polygons),
                 std::invalid_argument);
    EXPECT_THROW(polymask::polygons_from_rings(xy.data(), 6, rings_ok.data(), 2, polygons_over.data(), 1,
                                               polygons),
                 std::invalid_argument);
    EXPECT_NO_THROW(polymask::polygons_from_rings(xy.data(), 6, rings_ok.data(), 2, polygons_ok.data(), 1,
                                                  polygons));
}

TEST(Rasterize, RejectsABadWindowAndStride)
{
    const std::vector<double> square = {1, 1, 3, 1, 3, 3, 1, 3};
    const std::vector<Polygon> polygons = {Polygon(square.data(), 4)};
    const std::vector<int32_t> values = {1};
    std::vector<int32_t> out(16);
    EXPECT_THROW(polymask::rasterize(polygons.data(), 1, values.data(), Window{0, 0, -1, 4}, out.data(), 4),
                 std::invalid_argument);
    EXPECT_THROW(polymask::rasterize(polygons.data(), 1, values.data(), Window{0, 0, 4, 4}, out.data(), 3),
                 std::invalid_argument);
}
