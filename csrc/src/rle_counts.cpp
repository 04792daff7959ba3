// rle_counts.cpp -- what works on COCO counts once they exist: the
// compressed counts string (rle_compress, rle_decompress, byte-compatible
// with pycocotools) and the set operations on two RLEs (rle_merge,
// rle_intersection_area).  The encoder that makes counts is rle.cpp.
#include "polymask/rle.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace polymask {

std::string rle_compress(const uint32_t *counts, int64_t n_counts)
{
    // A count or difference fits 33 signed bits: at most 7 characters of 5.
    std::string text(static_cast<size_t>(n_counts) * 7, '\0');
    char *out = &text[0];
    for (int64_t k = 0; k < n_counts; ++k) {
        int64_t x = static_cast<int64_t>(counts[k]);
        // pycocotools codes the difference from k > 2 on (not k >= 2): the
        // second count is stored whole.  Same here, or strings would differ.
        if (k > 2) x -= static_cast<int64_t>(counts[k - 2]);
        bool more = true;
        while (more) {
            char c = static_cast<char>(x & 0x1f);
            x >>= 5;  // arithmetic: a negative difference keeps its sign bits
            more = (c & 0x10) ? x != -1 : x != 0;
            if (more) c |= 0x20;
            *out++ = static_cast<char>(c + 48);
        }
    }
    text.resize(static_cast<size_t>(out - text.data()));
    return text;
}

std::vector<uint32_t> rle_decompress(const char *text, int64_t n_chars)
{
    std::vector<uint32_t> counts;
    counts.reserve(static_cast<size_t>(std::max<int64_t>(n_chars, 0)));  // a count takes one character or more
    int64_t p = 0;
    while (p < n_chars) {
        uint64_t x = 0;
        int k = 0;
        bool more = true;
        while (more) {
            if (p >= n_chars) {
                throw std::invalid_argument("polymask::rle_decompress: the counts string ends inside a number");
            }
            const int c = static_cast<unsigned char>(text[p]) - 48;
            if (c < 0 || c > 63) {
                throw std::invalid_argument("polymask::rle_decompress: character " + std::to_string(p) +
                                            " is outside '0'..'o' (code " +
                                            std::to_string(static_cast<unsigned char>(text[p])) + ")");
            }
            if (k >= 12) throw std::invalid_argument("polymask::rle_decompress: a number longer than 12 characters");
            x |= static_cast<uint64_t>(c & 0x1f) << (5 * k);
            more = (c & 0x20) != 0;
            ++p;
            ++k;
            if (!more && (c & 0x10)) x |= ~uint64_t{0} << (5 * k);  // sign-extend
        }
        int64_t value = static_cast<int64_t>(x);
        if (counts.size() > 2) value += static_cast<int64_t>(counts[counts.size() - 2]);
        if (value < 0 || value > int64_t{0xffffffff}) {
            throw std::invalid_argument("polymask::rle_decompress: count " + std::to_string(counts.size()) +
                                        " is " + std::to_string(value) + ", outside [0, 2^32)");
        }
        counts.push_back(static_cast<uint32_t>(value));
    }
    return counts;
}

void rle_decode(const uint32_t *counts, int64_t n_counts, uint8_t *out, int64_t n_pixels)
{
    int64_t at = 0;
    for (int64_t k = 0; k < n_counts; ++k) {
        const int64_t run = counts[k];
        if (run > n_pixels - at) {
            throw std::invalid_argument("polymask::rle_decode: the runs cover more than " +
                                        std::to_string(n_pixels) + " pixels");
        }
        if (run > 0) std::memset(out + at, static_cast<int>(k & 1), static_cast<size_t>(run));
        at += run;
    }
    if (at != n_pixels) {
        throw std::invalid_argument("polymask::rle_decode: the runs cover " + std::to_string(at) + " of " +
                                    std::to_string(n_pixels) + " pixels");
    }
}

namespace {

// Walks the runs of one RLE: the value (0 or 1) and what is left of the run.
struct RunCursor {
    const uint32_t *counts;
    int64_t n;
    int64_t index = 0;
    uint64_t left = 0;

    RunCursor(const uint32_t *c, int64_t count) : counts(c), n(count) { skip_empty(); }
    bool done() const { return index >= n; }
    int value() const { return static_cast<int>(index & 1); }
    void skip_empty()
    {
        while (index < n && (left = counts[index]) == 0) ++index;
    }
    void advance(uint64_t step)
    {
        left -= step;
        if (left == 0) {
            ++index;
            skip_empty();
        }
    }
};

uint64_t total(const uint32_t *counts, int64_t n)
{
    uint64_t sum = 0;
    for (int64_t k = 0; k < n; ++k) sum += counts[k];
    return sum;
}

// Union or intersection of two RLEs covering the same pixels (unchecked).
template <bool intersect>
std::vector<uint32_t> merge_two(const uint32_t *a, int64_t n_a, const uint32_t *b, int64_t n_b)
{
    std::vector<uint32_t> out;
    out.reserve(static_cast<size_t>(n_a + n_b + 1));  // a boundary of the result is one of a's or b's
    RunCursor ca(a, n_a), cb(b, n_b);
    int value = 0;     // value of the run being built
    uint64_t run = 0;  // its length so far
    while (!ca.done() && !cb.done()) {
        const uint64_t step = std::min(ca.left, cb.left);
        const int merged = intersect ? (ca.value() & cb.value()) : (ca.value() | cb.value());
        if (merged != value) {
            out.push_back(static_cast<uint32_t>(run));
            value = merged;
            run = 0;
        }
        run += step;
        ca.advance(step);
        cb.advance(step);
    }
    out.push_back(static_cast<uint32_t>(run));
    return out;
}

std::vector<uint32_t> merge_two(const uint32_t *a, int64_t n_a, const uint32_t *b, int64_t n_b, bool intersect)
{
    return intersect ? merge_two<true>(a, n_a, b, n_b) : merge_two<false>(a, n_a, b, n_b);
}

// Up to this many RLEs are merged in pairs, then pairs of those, and so on:
// each run is walked once a level (log2 of the RLEs), where a chain walks
// the growing result once per RLE.
constexpr size_t kPairedRles = 16;

std::vector<uint32_t> merge_in_pairs(const std::vector<std::vector<uint32_t>> &rles, bool intersect)
{
    const auto merge = [intersect](const std::vector<uint32_t> &a, const std::vector<uint32_t> &b) {
        return merge_two(a.data(), static_cast<int64_t>(a.size()), b.data(), static_cast<int64_t>(b.size()), intersect);
    };
    if (rles.size() == 1) return rles[0];
    std::array<std::vector<uint32_t>, kPairedRles / 2> level;  // on the stack: a call of a few RLEs is short
    size_t n_level = 0;
    for (size_t k = 0; k + 1 < rles.size(); k += 2) level[n_level++] = merge(rles[k], rles[k + 1]);
    if (rles.size() % 2 == 1) level[n_level - 1] = merge(level[n_level - 1], rles.back());  // the odd one, uncopied
    while (n_level > 1) {
        size_t kept = 0;
        for (size_t k = 0; k < n_level; k += 2) {
            level[kept++] = k + 1 < n_level ? merge(level[k], level[k + 1]) : std::move(level[k]);
        }
        n_level = kept;
    }
    return std::move(level[0]);
}

}  // namespace

std::vector<uint32_t> rle_merge(const uint32_t *a, int64_t n_a, const uint32_t *b, int64_t n_b, bool intersect)
{
    const uint64_t n_pixels = total(a, n_a);
    if (total(b, n_b) != n_pixels) {
        throw std::invalid_argument("polymask::rle_merge: the two RLEs cover " + std::to_string(n_pixels) + " and " +
                                    std::to_string(total(b, n_b)) + " pixels");
    }
    return merge_two(a, n_a, b, n_b, intersect);
}

std::vector<uint32_t> rle_merge_many(const std::vector<std::vector<uint32_t>> &rles, bool intersect)
{
    if (rles.empty()) return {0};
    const uint64_t n_pixels = total(rles[0].data(), static_cast<int64_t>(rles[0].size()));
    uint64_t n_counts = 0;
    for (const std::vector<uint32_t> &rle : rles) {
        const uint64_t covered = total(rle.data(), static_cast<int64_t>(rle.size()));
        if (covered != n_pixels) {
            throw std::invalid_argument("polymask::rle_merge_many: the RLEs cover " + std::to_string(n_pixels) +
                                        " and " + std::to_string(covered) + " pixels");
        }
        n_counts += rle.size();
    }
    if (rles.size() <= kPairedRles) return merge_in_pairs(rles, intersect);
    // A depth per pixel costs 4 bytes and one step a pixel: worth it while the
    // pixels are few against the runs the pairwise chain would walk again and again
    // (the growing result once per RLE: about RLEs x counts / 2 steps).
    const uint64_t chain_steps = static_cast<uint64_t>(rles.size()) * n_counts / 2;
    const bool dense = (n_pixels <= 8 * n_counts + 4096 || n_pixels <= chain_steps / 2) && rles.size() < 0x7fffffff;
    if (!dense) {
        std::vector<uint32_t> merged = rles[0];
        for (size_t k = 1; k < rles.size(); ++k) {
            merged = rle_merge(merged.data(), static_cast<int64_t>(merged.size()), rles[k].data(),
                               static_cast<int64_t>(rles[k].size()), intersect);
        }
        return merged;
    }
    std::vector<int32_t> steps(static_cast<size_t>(n_pixels) + 1, 0);
    for (const std::vector<uint32_t> &rle : rles) {
        uint64_t at = 0;
        for (size_t k = 0; k < rle.size(); ++k) {
            if (k & 1) {  // a run of ones: one more RLE holds its pixels
                ++steps[at];
                --steps[at + rle[k]];
            }
            at += rle[k];
        }
    }
    const int32_t needed = intersect ? static_cast<int32_t>(rles.size()) : 1;
    std::vector<uint32_t> out;
    int32_t depth = 0;
    bool inside = false;
    uint64_t run_begin = 0;
    for (uint64_t p = 0; p < n_pixels; ++p) {
        depth += steps[p];
        if ((depth >= needed) != inside) {
            out.push_back(static_cast<uint32_t>(p - run_begin));
            inside = !inside;
            run_begin = p;
        }
    }
    out.push_back(static_cast<uint32_t>(n_pixels - run_begin));
    return out;
}

uint64_t rle_intersection_area(const uint32_t *a, int64_t n_a, const uint32_t *b, int64_t n_b)
{
    uint64_t area = 0;
    RunCursor ca(a, n_a), cb(b, n_b);
    while (!ca.done() && !cb.done()) {
        const uint64_t step = std::min(ca.left, cb.left);
        if (ca.value() & cb.value()) area += step;
        ca.advance(step);
        cb.advance(step);
    }
    return area;
}

}  // namespace polymask
