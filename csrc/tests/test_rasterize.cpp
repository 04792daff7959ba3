// Label images: rasterize burns each polygon's exact mask, later over earlier.
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

// ---- all_touched (rasterize_touched, csrc/src/touched.cpp) --------------------

namespace {

// The independent answer: each polygon's own all_touched mask (fill_touched,
// tested against coverage > 0 and an exact rational reference elsewhere),
// applied in order over a background.
template <class Label>
std::vector<Label> touched_masks_in_order(const std::vector<Polygon> &polygons, const std::vector<Label> &values,
                                          const Window &window, Label background, FillRule rule)
{
    const size_t n = static_cast<size_t>(window.height * window.width);
    std::vector<Label> labels(n, background);
    std::vector<uint8_t> mask(n);
    for (size_t p = 0; p < polygons.size(); ++p) {
        polymask::fill_touched(polygons[p], window, mask.data(), window.width, rule, 1);
        for (size_t k = 0; k < n; ++k) {
            if (mask[k]) labels[k] = values[p];
        }
    }
    return labels;
}

template <class Label>
std::vector<Label> burned_touched(const std::vector<Polygon> &polygons, const std::vector<Label> &values,
                                  const Window &window, Label background, FillRule rule, int threads)
{
    std::vector<Label> labels(static_cast<size_t>(window.height * window.width), background);
    polymask::rasterize_touched(polygons.data(), static_cast<int64_t>(polygons.size()), values.data(), window,
                                labels.data(), window.width, rule, threads);
    return labels;
}

}  // namespace

// Random small polygons, some with a spike traced back over itself (edges
// overlapping along a stretch: the area sweep decides them), some on a
// half-integer grid (edges through cell corners and along cell sides), some
// moved past 2^16 (Extended abscissae), over and past several windows, at
// 1 to 3 threads and both rules.
TEST(RasterizeTouched, EqualsTheTouchedMasksInOrder)
{
    std::mt19937_64 rng(17);
    for (int trial = 0; trial < 12; ++trial) {
        std::vector<Polygon> polygons;
        for (int p = 0; p < 30; ++p) {
            auto xy = random_vertices(rng, 3 + (p + trial) % 8, -6.0, 40.0);
            if (p % 7 == 3) {  // a spike traced back: overlapping edges
                const std::vector<double> back{xy[2], xy[3], xy[0], xy[1]};
                xy.insert(xy.begin() + 4, back.begin(), back.end());
            }
            if (p % 5 == 4) {
                for (double &v : xy) v = std::round(v * 2.0) / 2.0;
            }
            polygons.emplace_back(xy.data(), static_cast<int64_t>(xy.size() / 2));
        }
        std::vector<int32_t> values(polygons.size());
        for (size_t p = 0; p < values.size(); ++p) values[p] = static_cast<int32_t>(p) + 1;
        for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
            for (const Window window : {Window{0, 0, 36, 36}, Window{5, -3, 21, 17}, Window{30, 30, 9, 12}}) {
                const auto expected = touched_masks_in_order<int32_t>(polygons, values, window, -1, rule);
                for (int threads : {1, 2, 3}) {
                    ASSERT_EQ(burned_touched<int32_t>(polygons, values, window, -1, rule, threads), expected)
                        << "trial " << trial << " threads " << threads << " rule " << static_cast<int>(rule);
                }
            }
        }
    }
}

TEST(RasterizeTouched, FarCoordinatesAndEveryLabelType)
{
    // The same triangles near the origin and moved by 2^17 (and the window
    // with them): Extended abscissae, the same cells.
    std::mt19937_64 rng(19);
    std::vector<Polygon> near, far;
    const double shift = 131072.0;
    for (int p = 0; p < 12; ++p) {
        auto xy = random_vertices(rng, 3 + p % 4, -3.0, 25.0);
        near.emplace_back(xy.data(), static_cast<int64_t>(xy.size() / 2));
        for (double &v : xy) v += shift;
        far.emplace_back(xy.data(), static_cast<int64_t>(xy.size() / 2));
    }
    std::vector<uint8_t> small(near.size());
    for (size_t p = 0; p < small.size(); ++p) small[p] = static_cast<uint8_t>(p + 1);
    const Window window{0, 0, 24, 24}, far_window{131072, 131072, 24, 24};
    const auto expected = touched_masks_in_order<uint8_t>(near, small, window, 0, FillRule::even_odd);
    EXPECT_EQ(burned_touched<uint8_t>(far, small, far_window, 0, FillRule::even_odd, 2), expected);
    auto same_cells = [&](auto label_zero) {
        using Label = decltype(label_zero);
        std::vector<Label> values(small.begin(), small.end());
        const auto labels = burned_touched<Label>(near, values, window, Label(0), FillRule::even_odd, 2);
        return std::vector<uint8_t>(labels.begin(), labels.end()) == expected;
    };
    EXPECT_TRUE(same_cells(uint16_t{}));
    EXPECT_TRUE(same_cells(int32_t{}));
    EXPECT_TRUE(same_cells(uint32_t{}));
    EXPECT_TRUE(same_cells(int64_t{}));
    EXPECT_TRUE(same_cells(float{}));
    EXPECT_TRUE(same_cells(double{}));
}

// With a vertex beyond 2^40 the area sweep's abscissae err by whole pixels
// and fill_touched marks cells right of the polygon's extent; the burn must
// mark the same ones (csrc/fuzz found the burn clipping them to the extent).
TEST(RasterizeTouched, FarVerticesBurnWhatFillTouchedMarks)
{
    const std::vector<double> xy = {1.0920505701506045e-05, 1.0920505701506045e-05, -4.4100546644716544e+28,
                                    9.2233720368547758e+18, 4, 5, -1, -1};
    const std::vector<Polygon> polygons = {Polygon(xy.data(), 4)};
    const std::vector<uint8_t> values = {1};
    for (const Window window : {Window{-1, -1, 9, 9}, Window{-1, 6, 9, 9}, Window{-1, 40, 9, 9}}) {
        const auto expected = touched_masks_in_order<uint8_t>(polygons, values, window, 0, FillRule::even_odd);
        EXPECT_EQ(burned_touched<uint8_t>(polygons, values, window, 0, FillRule::even_odd, 1), expected);
    }
}

TEST(RasterizeTouched, RefusesBadInput)
{
    const std::vector<double> bad = {0, 0, std::nan(""), 1, 1, 1};
    const std::vector<Polygon> polygons = {Polygon(bad.data(), 3)};
    std::vector<uint8_t> out(16);
    const uint8_t value = 1;
    EXPECT_THROW(polymask::rasterize_touched(polygons.data(), 1, &value, Window{0, 0, 4, 4}, out.data(), 4),
                 std::invalid_argument);
    EXPECT_THROW(polymask::rasterize_touched(polygons.data(), -1, &value, Window{0, 0, 4, 4}, out.data(), 4),
                 std::invalid_argument);
    EXPECT_THROW(polymask::rasterize_touched<uint8_t>(nullptr, 1, &value, Window{0, 0, 4, 4}, out.data(), 4),
                 std::invalid_argument);
    EXPECT_THROW(polymask::rasterize_touched(polygons.data(), 1, &value, Window{0, 0, 4, 4}, out.data(), 2),
                 std::invalid_argument);
}

// fill_labels (mask_writers.hpp) writes a run with two or four overlapping
// stores where it is short: every length and offset, for every label type,
// must set exactly the run, with nothing written on either side.
TEST(LabelWriters, FillLabelsWritesTheRunAndNothingElse)
{
    auto check = [](auto label_zero) {
        using Label = decltype(label_zero);
        const Label sentinel = static_cast<Label>(77), value = static_cast<Label>(201);
        int wrong = 0;
        for (int64_t begin = 0; begin < 9; ++begin) {
            for (int64_t length = 0; length <= 80; ++length) {
                std::vector<Label> line(static_cast<size_t>(begin + length + 9), sentinel);
                polymask::detail::fill_labels(line.data(), begin, begin + length, value);
                for (int64_t k = 0; k < static_cast<int64_t>(line.size()); ++k) {
                    const bool inside = k >= begin && k < begin + length;
                    wrong += line[static_cast<size_t>(k)] != (inside ? value : sentinel);
                }
            }
        }
        return wrong;
    };
    EXPECT_EQ(check(uint8_t{}), 0);
    EXPECT_EQ(check(uint16_t{}), 0);
    EXPECT_EQ(check(int32_t{}), 0);
    EXPECT_EQ(check(uint32_t{}), 0);
    EXPECT_EQ(check(int64_t{}), 0);
    EXPECT_EQ(check(float{}), 0);
    EXPECT_EQ(check(double{}), 0);
}

// Bands visit only the polygons listed in the 64-row blocks they reach
// (PolygonsByRows, row_bands.hpp): polygons short and tall, crossing block
// boundaries, in a window that starts off a block boundary, under any
// banding and thread count, still burn as their masks in order.
TEST(RasterizeBlocks, PolygonsAcrossRowBlocksBurnInOrderUnderAnyBanding)
{
    std::mt19937_64 rng(29);
    std::uniform_real_distribution<double> centre(-20.0, 260.0), unit(0.0, 1.0);
    std::vector<Polygon> polygons;
    for (int p = 0; p < 400; ++p) {
        // Mostly small; every tenth spans up to 200 rows (several blocks).
        const double radius = p % 10 == 0 ? 100.0 * unit(rng) : 2.0 + 12.0 * unit(rng);
        const double cx = 0.4 * centre(rng), cy = centre(rng);
        std::vector<double> xy;
        const int n = 3 + p % 7;
        for (int k = 0; k < n; ++k) {
            xy.push_back(cx + radius * (2.0 * unit(rng) - 1.0));
            xy.push_back(cy + radius * (2.0 * unit(rng) - 1.0));
        }
        polygons.emplace_back(xy.data(), n);
    }
    std::vector<int32_t> values(polygons.size());
    for (size_t p = 0; p < values.size(); ++p) values[p] = static_cast<int32_t>(p) + 1;
    const Window window{7, -3, 230, 90};
    std::vector<int32_t> centre_expected(static_cast<size_t>(window.height * window.width), -1);
    for (size_t p = 0; p < polygons.size(); ++p) {
        std::vector<uint8_t> mask(centre_expected.size());
        polymask::fill_scanline(polygons[p], window, mask.data(), window.width, FillRule::even_odd, 1);
        for (size_t k = 0; k < mask.size(); ++k) {
            if (mask[k]) centre_expected[k] = values[p];
        }
    }
    const auto touched_expected = touched_masks_in_order<int32_t>(polygons, values, window, -1, FillRule::even_odd);
    for (int64_t rows : {0, 1, 5, 63, 64, 65, 100}) {
        polymask::testing::set_chunk_rows_for_testing(rows);
        for (int threads : {1, 2, 3}) {
            std::vector<int32_t> labels(centre_expected.size(), -1);
            polymask::rasterize(polygons.data(), static_cast<int64_t>(polygons.size()), values.data(), window,
                                labels.data(), window.width, FillRule::even_odd, threads);
            EXPECT_EQ(labels, centre_expected) << "rows per band " << rows << ", threads " << threads;
            EXPECT_EQ(burned_touched<int32_t>(polygons, values, window, -1, FillRule::even_odd, threads),
                      touched_expected)
                << "rows per band " << rows << ", threads " << threads;
        }
    }
    polymask::testing::set_chunk_rows_for_testing(0);
}
