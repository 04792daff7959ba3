// Label images with all_touched: rasterize_touched (csrc/src/touched.cpp)
// burns each polygon's all_touched mask, later over earlier, under any
// window, thread count and banding; and the label writers it uses.
#include <gtest/gtest.h>

#include <stdexcept>

#include "polymask/coverage.hpp"
#include "polymask/rasterize.hpp"
#include "mask_writers.hpp"
#include "test_support.hpp"
#include "testing.hpp"

using namespace polymask_test;

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
