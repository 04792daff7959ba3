// Coverage of many polygons in one call, each over its own box
// (coverage_crops): every crop equals coverage() with its box as the window.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "polymask/coverage.hpp"
#include "test_support.hpp"

using namespace polymask_test;

// coverage_crops: many polygons, each over its own box, in one call; every
// crop equals coverage() with its box as the window, at any thread count
// and for each value type, and boxes without cells are left alone.
TEST(Coverage, CropsEqualEachPolygonsWindow)
{
    std::mt19937_64 rng(41);
    std::vector<Polygon> polygons;
    std::vector<polymask::MaskBox> boxes;
    std::vector<int64_t> offsets;
    int64_t total = 0;
    for (int p = 0; p < 50; ++p) {
        const auto xy = random_vertices(rng, 3 + p % 9, -4.0, 30.0);
        polygons.emplace_back(xy.data(), static_cast<int64_t>(xy.size() / 2));
        const int64_t row0 = p % 5, col0 = p % 3, height = (p % 11 == 0) ? 0 : 20 + p % 7, width = 18 + p % 5;
        boxes.push_back({row0, col0, height, width});
        offsets.push_back(total);
        total += height * width;
    }
    for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
        for (int threads : {1, 2, 3}) {
            std::vector<double> crops(static_cast<size_t>(total), 0.0);
            std::vector<uint8_t> bytes(static_cast<size_t>(total), 0);
            polymask::coverage_crops(polygons.data(), 50, boxes.data(), crops.data(), offsets.data(), rule, threads);
            polymask::coverage_crops(polygons.data(), 50, boxes.data(), bytes.data(), offsets.data(), rule, threads);
            for (size_t p = 0; p < polygons.size(); ++p) {
                const auto &box = boxes[p];
                if (box.height == 0) continue;
                const Window window{box.row0, box.col0, box.height, box.width};
                // NaN, not 0: every element must be written.
                std::vector<double> expected(static_cast<size_t>(box.height * box.width),
                                             std::numeric_limits<double>::quiet_NaN());
                polymask::coverage<double>(polygons[p], window, expected.data(), box.width, rule, 1);
                std::vector<uint8_t> expected_bytes(expected.size(), 0xAA);
                polymask::coverage<uint8_t>(polygons[p], window, expected_bytes.data(), box.width, rule, 1);
                for (int64_t k = 0; k < box.height * box.width; ++k) {
                    ASSERT_EQ(crops[static_cast<size_t>(offsets[p] + k)], expected[static_cast<size_t>(k)])
                        << "polygon " << p << " cell " << k << " threads " << threads;
                    ASSERT_EQ(bytes[static_cast<size_t>(offsets[p] + k)], expected_bytes[static_cast<size_t>(k)]);
                }
            }
        }
    }
}

TEST(Coverage, CropsRefuseBadInput)
{
    const std::vector<double> bad = {0, 0, std::nan(""), 1, 1, 1};
    const std::vector<Polygon> polygons = {Polygon(bad.data(), 3)};
    const polymask::MaskBox box{0, 0, 2, 2}, no_cells{0, 0, 0, 2};
    const int64_t offset = 0;
    std::vector<double> out(4, 0.0);
    EXPECT_THROW(polymask::coverage_crops(polygons.data(), 1, &box, out.data(), &offset), std::invalid_argument);
    EXPECT_NO_THROW(polymask::coverage_crops(polygons.data(), 1, &no_cells, out.data(), &offset));  // nothing to do
    EXPECT_THROW(polymask::coverage_crops(polygons.data(), -1, &box, out.data(), &offset), std::invalid_argument);
    EXPECT_THROW(polymask::coverage_crops<double>(polygons.data(), 1, nullptr, out.data(), &offset),
                 std::invalid_argument);
    EXPECT_THROW(polymask::coverage_crops<double>(polygons.data(), 1, &box, nullptr, &offset), std::invalid_argument);
}
