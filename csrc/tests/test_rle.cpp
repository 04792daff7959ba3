// COCO RLE from scanline spans: the runs equal a column-major walk of the
// per-pixel mask (union over parts), and the counts string round-trips.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>

#include "polymask/rle.hpp"
#include "test_support.hpp"

using namespace polymask_test;

namespace {

// The independent answer: the union of the parts' per-pixel masks, walked
// column by column into COCO's runs (a zeros run first, possibly empty).
std::vector<uint32_t> runs_of_union(const std::vector<Polygon> &parts, int64_t rows, int64_t cols)
{
    std::vector<uint8_t> mask(static_cast<size_t>(rows * cols), 0);
    for (const Polygon &part : parts) {
        const auto own = full_mask(part, rows, cols, Fill::per_pixel, FillRule::even_odd);
        for (size_t k = 0; k < mask.size(); ++k) mask[k] |= own[k];
    }
    std::vector<uint32_t> runs;
    uint8_t value = 0;
    uint32_t run = 0;
    for (int64_t c = 0; c < cols; ++c) {
        for (int64_t r = 0; r < rows; ++r) {
            const uint8_t pixel = mask[static_cast<size_t>(r * cols + c)];
            if (pixel != value) {
                runs.push_back(run);
                run = 0;
                value = pixel;
            }
            ++run;
        }
    }
    runs.push_back(run);
    return runs;
}

}  // namespace

TEST(Rle, SquareOnALiteralGrid)
{
    // Sample points (c, r) inside [0.5, 2.5] x [0.5, 2.5]: rows and columns 1-2 of a 4 x 5 image.
    const std::vector<double> xy = {0.5, 0.5, 2.5, 0.5, 2.5, 2.5, 0.5, 2.5};
    const std::vector<Polygon> parts = {Polygon(xy.data(), 4)};
    const int64_t ends[] = {1};
    std::vector<std::vector<uint32_t>> counts;
    polymask::rle_encode(parts.data(), 1, ends, 1, 4, 5, FillRule::even_odd, 1, counts);
    EXPECT_EQ(counts.at(0), (std::vector<uint32_t>{5, 2, 2, 2, 9}));
}

TEST(Rle, RandomObjectsMatchTheColumnWalk)
{
    std::mt19937_64 rng(15);
    for (int64_t rows : {1, 7, 20}) {
        for (int64_t cols : {1, 9, 23}) {
            std::vector<Polygon> parts;
            std::vector<int64_t> object_ends;
            std::vector<std::vector<Polygon>> objects;
            for (int o = 0; o < 30; ++o) {
                std::vector<Polygon> object;
                const int n_parts = 1 + static_cast<int>(rng() % 3);
                for (int p = 0; p < n_parts; ++p) {
                    const auto xy = random_vertices(rng, 3 + static_cast<int>(rng() % 6), -4.0, 26.0);
                    object.emplace_back(xy.data(), static_cast<int64_t>(xy.size() / 2));
                    parts.push_back(object.back());
                }
                objects.push_back(object);
                object_ends.push_back(static_cast<int64_t>(parts.size()));
            }
            for (int threads : {1, 2}) {
                std::vector<std::vector<uint32_t>> counts;
                std::vector<std::string> strings;
                polymask::rle_encode(parts.data(), static_cast<int64_t>(parts.size()), object_ends.data(),
                                     static_cast<int64_t>(object_ends.size()), rows, cols, FillRule::even_odd,
                                     threads, counts, &strings);
                for (size_t o = 0; o < objects.size(); ++o) {
                    const auto expected = runs_of_union(objects[o], rows, cols);
                    const auto decoded = polymask::rle_decompress(strings[o].data(),
                                                                  static_cast<int64_t>(strings[o].size()));
                    EXPECT_EQ(decoded, expected) << rows << "x" << cols << " object " << o;
                }
            }
        }
    }
}

TEST(Rle, CompressRoundTripsLargeAndDecreasingCounts)
{
    const std::vector<uint32_t> counts = {0, 1, 4000000000u, 3, 2, 70000, 1, 0, 5, 123456789};
    const std::string text = polymask::rle_compress(counts.data(), static_cast<int64_t>(counts.size()));
    for (char c : text) EXPECT_TRUE(c >= '0' && c <= 'o');
    EXPECT_EQ(polymask::rle_decompress(text.data(), static_cast<int64_t>(text.size())), counts);
}

TEST(Rle, MergeAndIntersection)
{
    const std::vector<uint32_t> a = {2, 3, 5};     // ones at 2..4
    const std::vector<uint32_t> b = {4, 4, 2};     // ones at 4..7
    EXPECT_EQ(polymask::rle_merge(a.data(), 3, b.data(), 3, false), (std::vector<uint32_t>{2, 6, 2}));
    EXPECT_EQ(polymask::rle_merge(a.data(), 3, b.data(), 3, true), (std::vector<uint32_t>{4, 1, 5}));
    EXPECT_EQ(polymask::rle_intersection_area(a.data(), 3, b.data(), 3), 1u);
    const std::vector<uint32_t> shorter = {9};
    EXPECT_THROW(polymask::rle_merge(a.data(), 3, shorter.data(), 1, false), std::invalid_argument);
}

TEST(Rle, BadInputThrows)
{
    std::vector<std::vector<uint32_t>> counts;
    const int64_t ends[] = {0};
    EXPECT_THROW(polymask::rle_encode(static_cast<const Polygon *>(nullptr), 0, ends, 1, 70000, 70000,
                                      FillRule::even_odd, 1, counts),
                 std::invalid_argument);
    const int64_t bad_ends[] = {2};
    EXPECT_THROW(polymask::rle_encode(static_cast<const Polygon *>(nullptr), 1, bad_ends, 1, 4, 4,
                                      FillRule::even_odd, 1, counts),
                 std::invalid_argument);
    EXPECT_THROW(polymask::rle_decompress("0\x7f", 2), std::invalid_argument);
    EXPECT_THROW(polymask::rle_decompress("h", 1), std::invalid_argument);
}

// rle_decode against answers written out by hand, and against a plain
// expansion (one byte per pixel, value flipping at each run's end) of random
// runs, empty ones included.
TEST(RleDecode, RunsSpelledOutByHand)
{
    // A zeros run first: 2 zeros, 3 ones, 0 zeros, ... then the last ones.
    const std::vector<uint32_t> counts = {2, 3, 1, 4, 2};
    std::vector<uint8_t> out(12, 7);
    polymask::rle_decode(counts.data(), 5, out.data(), 12);
    EXPECT_EQ(out, (std::vector<uint8_t>{0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0}));
    // An empty zeros run: the pixels start with ones.
    const std::vector<uint32_t> leading_ones = {0, 3, 1};
    std::vector<uint8_t> ones(4, 7);
    polymask::rle_decode(leading_ones.data(), 3, ones.data(), 4);
    EXPECT_EQ(ones, (std::vector<uint8_t>{1, 1, 1, 0}));
    // Empty runs inside: {1, 0, 2} is one zero then two more zeros.
    const std::vector<uint32_t> empty_inside = {1, 0, 2, 1};
    std::vector<uint8_t> inside(4, 7);
    polymask::rle_decode(empty_inside.data(), 4, inside.data(), 4);
    EXPECT_EQ(inside, (std::vector<uint8_t>{0, 0, 0, 1}));
    // No runs, no pixels: nothing is written.
    polymask::rle_decode(nullptr, 0, nullptr, 0);
}

TEST(RleDecode, RandomRunsMatchAPlainExpansion)
{
    std::mt19937 generator(8);
    for (int trial = 0; trial < 200; ++trial) {
        std::uniform_int_distribution<int> n_runs(1, 40), length(0, trial % 2 ? 3 : 300);
        std::vector<uint32_t> counts(static_cast<size_t>(n_runs(generator)));
        std::vector<uint8_t> expected;
        for (size_t k = 0; k < counts.size(); ++k) {
            counts[k] = static_cast<uint32_t>(length(generator));
            expected.insert(expected.end(), counts[k], static_cast<uint8_t>(k % 2));
        }
        std::vector<uint8_t> out(expected.size() + 1, 9);  // one guard byte past the pixels
        polymask::rle_decode(counts.data(), static_cast<int64_t>(counts.size()), out.data(),
                             static_cast<int64_t>(expected.size()));
        EXPECT_EQ(out.back(), 9) << "trial " << trial;
        out.pop_back();
        EXPECT_EQ(out, expected) << "trial " << trial;
    }
}

TEST(RleDecode, CountsThatDoNotSumToThePixelsThrow)
{
    const std::vector<uint32_t> counts = {2, 3};
    std::vector<uint8_t> out(6, 0);
    EXPECT_THROW(polymask::rle_decode(counts.data(), 2, out.data(), 6), std::invalid_argument);
    EXPECT_THROW(polymask::rle_decode(counts.data(), 2, out.data(), 4), std::invalid_argument);
}
