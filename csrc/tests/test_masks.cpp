// test_masks.cpp -- the vectorized crossing pass, the spans-only fill and
// the many-instance fills agree with the contract's scalar formula and
// with fill_scanline, bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "polymask/masks.hpp"
#include "edges.hpp"
#include "scanline.hpp"
#include "test_support.hpp"

namespace {

using polymask::FillRule;
using polymask::MaskBox;
using polymask::Polygon;
using polymask::Window;

// Every clone of crossing_columns must give ceil_clamped(pm_x_cross(...))
// exactly, including NaN, infinities, huge and tiny operands, lengths that
// are not a multiple of any vector width.
TEST(CrossingColumns, EqualTheScalarFormula)
{
    std::mt19937_64 rng(11);
    const double specials[] = {0.0, -0.0, 1e-310, -1e-300, 0.5, 3.0, 1e15, -1e300, 1e308,
                               std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity(),
                               std::numeric_limits<double>::quiet_NaN()};
    std::uniform_real_distribution<double> uniform(-200.0, 200.0);
    std::uniform_int_distribution<int> pick(0, 15);
    for (int trial = 0; trial < 2000; ++trial) {
        const int64_t n = 1 + trial % 19;
        std::vector<double> xi(n), yi(n), xj(n), yj(n), dx(n), dy(n), column(n);
        auto value = [&]() {
            const int k = pick(rng);
            if (k < 12 && trial % 3 == 0) return specials[k];
            return k % 4 == 0 ? std::round(uniform(rng)) : uniform(rng);
        };
        for (int64_t k = 0; k < n; ++k) {
            xi[k] = value(), yi[k] = value(), xj[k] = value(), yj[k] = value();
            dx[k] = xj[k] - xi[k], dy[k] = yj[k] - yi[k];
        }
        if (trial % 5 == 0) std::sort(xi.begin(), xi.end());  // some rows in order, to test the order flag
        for (int64_t k = 0; k < n; ++k) dx[k] = xj[k] - xi[k];
        const double py = std::round(uniform(rng));
        const int64_t lo = -50 + trial % 7, hi = lo + 120;
        for (bool portable : {false, true}) {
            const auto pass = portable ? polymask::detail::crossing_columns_portable
                                       : polymask::detail::crossing_columns;
            const bool in_order = pass(xi.data(), yi.data(), dx.data(), dy.data(), column.data(), n, py,
                                       static_cast<double>(lo), static_cast<double>(hi));
            bool expected_order = true;
            for (int64_t k = 0; k < n; ++k) {
                const double x = polymask::pm_x_cross(xi[k], yi[k], xj[k], yj[k], py);
                const int64_t expected = polymask::detail::ceil_clamped(x, lo, hi);
                ASSERT_EQ(static_cast<int64_t>(column[k]), expected)
                    << "edge (" << xi[k] << ", " << yi[k] << ") -> (" << xj[k] << ", " << yj[k] << ") at row "
                    << py << (portable ? " (portable)" : " (SIMD)");
                if (k > 0 && column[k - 1] > column[k]) expected_order = false;
            }
            ASSERT_EQ(in_order, expected_order) << "trial " << trial;
        }
    }
}

std::vector<double> random_ring(std::mt19937_64 &rng, int n, double low, double high)
{
    std::uniform_real_distribution<double> uniform(low, high);
    std::vector<double> xy(2 * static_cast<size_t>(n));
    for (double &v : xy) v = uniform(rng);
    return xy;
}

TEST(SpansOnly, EqualsTheFullWriteOnRandomPolygonsAndWindows)
{
    std::mt19937_64 rng(5);
    for (int trial = 0; trial < 300; ++trial) {
        const std::vector<double> xy = random_ring(rng, 3 + trial % 30, -20.0, 90.0);
        const Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2));
        const Window window{trial % 13, trial % 7, 40 + trial % 31, 35 + trial % 17};
        const FillRule rule = trial % 2 ? FillRule::nonzero : FillRule::even_odd;
        std::vector<uint8_t> full(static_cast<size_t>(window.height * window.width), 0xAA);
        std::vector<uint8_t> spans(full.size(), 0);
        polymask::fill_scanline(polygon, window, full.data(), window.width, rule, 1);
        polymask::fill_scanline_spans(polygon, window, spans.data(), window.width, rule, 1 + trial % 3);
        ASSERT_EQ(spans, full) << "trial " << trial;
    }
}

// A window filled into a wider buffer (row_stride > width): every byte of
// the window written, rows no edge crosses included, and not one byte of the
// padding between rows.  Polygons over few rows clear most rows in blocks.
TEST(FullWrite, StridedRowsAreWrittenAndPaddingIsNot)
{
    std::mt19937_64 rng(8);
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<double> xy = random_ring(rng, 3 + trial % 9, -5.0, 60.0);
        if (trial % 3 == 0) {  // squash into a few rows
            for (size_t k = 1; k < xy.size(); k += 2) xy[k] = 20.0 + xy[k] / 12.0;
        }
        const Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2));
        const Window window{trial % 11, trial % 5, 30 + trial % 23, 25 + trial % 19};
        const int64_t stride = window.width + 1 + trial % 9;
        std::vector<uint8_t> dense(static_cast<size_t>(window.height * window.width), 0);
        polymask::fill_scanline_spans(polygon, window, dense.data(), window.width, FillRule::even_odd, 1);
        std::vector<uint8_t> strided(static_cast<size_t>(window.height * stride), 0xAA);
        polymask::fill_scanline(polygon, window, strided.data(), stride, FillRule::even_odd, 1 + trial % 3);
        for (int64_t r = 0; r < window.height; ++r) {
            for (int64_t c = 0; c < stride; ++c) {
                const uint8_t got = strided[static_cast<size_t>(r * stride + c)];
                const uint8_t expected = c < window.width ? dense[static_cast<size_t>(r * window.width + c)] : 0xAA;
                ASSERT_EQ(got, expected) << "trial " << trial << " at " << r << ", " << c;
            }
        }
    }
}

// crossed_rows is the count of rows holding a span: every row outside
// [first, first + count) of the spans-only fill stays zero, and the
// first and last of those rows are crossed by some edge.
TEST(CrossedRows, BoundsTheRowsThatHoldSpans)
{
    std::mt19937_64 rng(6);
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<double> xy = random_ring(rng, 3 + trial % 20, -20.0, 90.0);
        if (trial % 5 == 0) {
            for (double &v : xy) v = std::round(v);
        }
        const Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2));
        const Window window{trial % 13, trial % 7, 40 + trial % 31, 35 + trial % 17};
        const int64_t count = polymask::crossed_rows(polygon, window);
        ASSERT_GE(count, 0);
        ASSERT_LE(count, window.height);
        // The crossed rows by brute force: rows r of the window with
        // y_low <= r < y_high for some edge.
        int64_t first = -1, last = -1;
        for (int64_t r = window.row0; r < window.row0 + window.height; ++r) {
            for (const polymask::Edge &edge : edges_by_y(polygon)) {
                if (edge.y_low <= static_cast<double>(r) && static_cast<double>(r) < edge.y_high) {
                    if (first < 0) first = r;
                    last = r;
                    break;
                }
            }
        }
        ASSERT_EQ(count, first < 0 ? 0 : last - first + 1) << "trial " << trial;
    }
    const double outside[] = {0.0, 0.0, 5.0, 0.0, 0.0, 5.0};  // rows 0..4, window below them
    EXPECT_EQ(polymask::crossed_rows(Polygon(outside, 3), Window{10, 0, 8, 8}), 0);
    EXPECT_EQ(polymask::crossed_rows(Polygon(outside, 3), Window{0, 0, 8, 8}), 5);
}

TEST(Masks, StackEqualsOneFillPerPolygonAndCropsAreTightSlices)
{
    std::mt19937_64 rng(9);
    std::vector<Polygon> polygons;
    for (int p = 0; p < 40; ++p) {
        std::vector<double> xy = random_ring(rng, 3 + p % 12, -10.0, 20.0);
        const double shift = 3.0 * p - 20.0;
        for (size_t k = 0; k < xy.size(); k += 2) xy[k] += shift;
        polygons.emplace_back(xy.data(), static_cast<int64_t>(xy.size() / 2));
    }
    const int64_t n = static_cast<int64_t>(polygons.size()), rows = 25, cols = 70;
    const Window window{0, 0, rows, cols};
    for (int threads : {1, 2, 3}) {
        for (bool zeroed : {true, false}) {
            std::vector<uint8_t> stack(static_cast<size_t>(n * rows * cols), zeroed ? 0 : 0xAA);
            polymask::fill_masks(polygons.data(), n, window, stack.data(), cols, rows * cols, FillRule::even_odd,
                                 threads, zeroed);
            for (int64_t p = 0; p < n; ++p) {
                std::vector<uint8_t> one(static_cast<size_t>(rows * cols), 0xAA);
                polymask::fill_scanline(polygons[p], window, one.data(), cols, FillRule::even_odd, 1);
                ASSERT_EQ(0, std::memcmp(one.data(), stack.data() + p * rows * cols, one.size()))
                    << "polygon " << p << " threads " << threads << " zeroed " << zeroed;
            }
        }
    }
    std::vector<MaskBox> boxes(static_cast<size_t>(n));
    polymask::mask_boxes(polygons.data(), n, window, boxes.data(), FillRule::even_odd, 2);
    std::vector<int64_t> offsets(static_cast<size_t>(n));
    int64_t total = 0;
    for (int64_t p = 0; p < n; ++p) offsets[p] = total, total += boxes[p].height * boxes[p].width;
    std::vector<uint8_t> crops(static_cast<size_t>(total) + 1, 0);
    polymask::fill_mask_crops(polygons.data(), n, boxes.data(), crops.data(), offsets.data(), FillRule::even_odd, 2);
    for (int64_t p = 0; p < n; ++p) {
        std::vector<uint8_t> one(static_cast<size_t>(rows * cols), 0);
        polymask::fill_scanline(polygons[p], window, one.data(), cols, FillRule::even_odd, 1);
        const MaskBox &box = boxes[p];
        int64_t inside = 0, in_box = 0;
        for (int64_t r = 0; r < rows; ++r) {
            for (int64_t c = 0; c < cols; ++c) {
                inside += one[r * cols + c];
                const bool within = r >= box.row0 && r < box.row0 + box.height && c >= box.col0 &&
                                    c < box.col0 + box.width;
                if (!within) continue;
                in_box += one[r * cols + c];
                ASSERT_EQ(one[r * cols + c], crops[offsets[p] + (r - box.row0) * box.width + (c - box.col0)]);
            }
        }
        ASSERT_EQ(inside, in_box) << "polygon " << p << ": a pixel lies outside its box";
        if (inside == 0) {
            ASSERT_EQ(box.height * box.width, 0);
        }
    }
}

}  // namespace
