// fuzz_checks.hpp -- what fuzz_core.cpp checks of one fuzz case: canvases
// with canary bytes after each row, masks that hold only 0 and 1, coverage
// that agrees with the fills, points that agree with the mask, and RLE
// strings that round-trip; fail() reports the case and aborts.  Included by
// fuzz_core.cpp alone, so its helpers stay in an unnamed namespace.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "polymask/core.hpp"
#include "polymask/coverage.hpp"
#include "polymask/points.hpp"
#include "polymask/rasterize.hpp"
#include "polymask/rle.hpp"

#include "fuzz_input.hpp"

namespace {

[[noreturn]] void fail(const char *what, const Window &w, FillRule rule, int threads)
{
    std::fprintf(stderr, "fuzz_core: %s (window row0=%lld col0=%lld %lldx%lld, rule=%d, threads=%d)\n", what,
                 static_cast<long long>(w.row0), static_cast<long long>(w.col0),
                 static_cast<long long>(w.height), static_cast<long long>(w.width), static_cast<int>(rule),
                 threads);
    std::abort();
}

// A window-sized buffer with `padding` canary bytes after each row but the
// last, allocated to the exact byte so ASan sees any write past the window.
struct Canvas {
    static constexpr uint8_t kUnwritten = 0xCD;
    static constexpr uint8_t kCanary = 0xAB;

    Canvas(const Window &w, int64_t padding, uint8_t initial = kUnwritten) : stride(w.width + padding)
    {
        const int64_t bytes = w.height > 0 && w.width > 0 ? (w.height - 1) * stride + w.width : 0;
        pixels.assign(static_cast<size_t>(bytes), kCanary);
        for (int64_t r = 0; r < w.height && w.width > 0; ++r) {
            std::memset(pixels.data() + r * stride, initial, static_cast<size_t>(w.width));
        }
    }
    uint8_t *data() { return pixels.empty() ? nullptr : pixels.data(); }

    int64_t stride;
    std::vector<uint8_t> pixels;
};

// Every window byte is 0 or 1 and every padding byte still holds the canary.
void check_canvas(const Canvas &canvas, const Window &w, FillRule rule, int threads)
{
    for (size_t k = 0; k < canvas.pixels.size(); ++k) {
        const int64_t col = static_cast<int64_t>(k) % canvas.stride;
        const uint8_t value = canvas.pixels[k];
        if (col < w.width) {
            if (value > 1) fail("a window byte was not written with 0 or 1", w, rule, threads);
        } else if (value != Canvas::kCanary) {
            fail("a padding byte between rows was overwritten", w, rule, threads);
        }
    }
}

// Coverage of `w` into a row-padded buffer; padding holds -1 (a canary no fraction takes).
std::vector<double> coverage_canvas(const Polygon &polygon, const Window &w, int64_t stride, FillRule rule,
                                    int threads)
{
    std::vector<double> out(static_cast<size_t>(w.height * stride), -1.0);
    polymask::coverage<double>(polygon, w, out.data(), stride, rule, threads);
    return out;
}

void check_coverage(const Polygon &polygon, const Window &window, FillRule rule, int threads, int64_t padding,
                    bool all_finite)
{
    if (window.height == 0 || window.width == 0) return;
    const int64_t stride = window.width + padding;
    if (!all_finite) {
        std::vector<double> out(static_cast<size_t>(window.height * stride), -1.0);
        bool refused = false;
        try {
            polymask::coverage<double>(polygon, window, out.data(), stride, rule, threads);
        } catch (const std::invalid_argument &) {
            refused = true;
        }
        if (!refused) fail("coverage accepted non-finite vertices", window, rule, threads);
        for (double v : out) {
            if (v != -1.0) fail("a refused coverage wrote to the output", window, rule, threads);
        }
        return;
    }
    const auto full = coverage_canvas(polygon, window, stride, rule, threads);
    for (size_t k = 0; k < full.size(); ++k) {
        const int64_t col = static_cast<int64_t>(k) % stride;
        const double v = full[k];
        if (col < window.width) {
            if (!(v >= 0.0 && v <= 1.0)) fail("a coverage value is outside [0, 1] or NaN", window, rule, threads);
        } else if (v != -1.0) {
            fail("coverage overwrote the padding between rows", window, rule, threads);
        }
    }
    if (coverage_canvas(polygon, window, stride, rule, 1) != full) {
        fail("thread count changed the coverage", window, rule, threads);
    }
    // Halves of the window (rows, then columns) equal the same slices.
    for (int axis = 0; axis < 2; ++axis) {
        const int64_t extent = axis == 0 ? window.height : window.width;
        if (extent < 2) continue;
        Window first = window, second = window;
        if (axis == 0) {
            first.height = extent / 2;
            second.row0 += first.height;
            second.height -= first.height;
        } else {
            first.width = extent / 2;
            second.col0 += first.width;
            second.width -= first.width;
        }
        for (const Window &part : {first, second}) {
            const auto values = coverage_canvas(polygon, part, part.width, rule, threads);
            for (int64_t r = 0; r < part.height; ++r) {
                for (int64_t c = 0; c < part.width; ++c) {
                    const double whole = full[(r + part.row0 - window.row0) * stride + (c + part.col0 - window.col0)];
                    if (values[r * part.width + c] != whole) fail("a coverage window differs from its slice", window, rule, threads);
                }
            }
        }
    }
    // all_touched is coverage > 0, element for element.
    Canvas touched(window, padding);
    polymask::fill_touched(polygon, window, touched.data(), touched.stride, rule, threads);
    check_canvas(touched, window, rule, threads);
    for (int64_t r = 0; r < window.height; ++r) {
        for (int64_t c = 0; c < window.width; ++c) {
            if (touched.pixels[r * touched.stride + c] != (full[r * stride + c] > 0.0 ? 1 : 0)) {
                fail("fill_touched differs from coverage > 0", window, rule, threads);
            }
        }
    }
    // The label image's all_touched burn (value 7 over a background of 3)
    // claims exactly those cells, and coverage_crops with the window as the
    // one box gives the same fractions (into a buffer of exactly its size).
    std::vector<uint16_t> labels(static_cast<size_t>(window.height * stride), 3);
    const uint16_t seven = 7;
    polymask::rasterize_touched(&polygon, 1, &seven, window, labels.data(), stride, rule, threads);
    std::vector<double> crop(static_cast<size_t>(window.height * window.width), 0.0);
    const polymask::MaskBox box{window.row0, window.col0, window.height, window.width};
    const int64_t offset = 0;
    polymask::coverage_crops(&polygon, 1, &box, crop.data(), &offset, rule, threads);
    for (int64_t r = 0; r < window.height; ++r) {
        for (int64_t c = 0; c < stride; ++c) {
            const uint16_t label = labels[static_cast<size_t>(r * stride + c)];
            if (c >= window.width) {
                if (label != 3) fail("rasterize_touched overwrote the padding between rows", window, rule, threads);
                continue;
            }
            if (label != (touched.pixels[r * touched.stride + c] ? 7 : 3)) {
                fail("rasterize_touched differs from fill_touched", window, rule, threads);
            }
            if (crop[static_cast<size_t>(r * window.width + c)] != full[r * stride + c]) {
                fail("coverage_crops differs from coverage", window, rule, threads);
            }
        }
    }
    // A side tolerance only leaves cells out, the same ones for the mask and
    // the label image.  A quarter pixel moves most coordinates, so the moved
    // polygon's path runs on nearly every input.
    const double quarter = 0.25;
    Canvas loose(window, padding);
    polymask::fill_touched(polygon, window, loose.data(), loose.stride, rule, threads, false, quarter);
    check_canvas(loose, window, rule, threads);
    std::vector<uint16_t> loose_labels(static_cast<size_t>(window.height * stride), 3);
    polymask::rasterize_touched(&polygon, 1, &seven, window, loose_labels.data(), stride, rule, threads, quarter);
    for (int64_t r = 0; r < window.height; ++r) {
        for (int64_t c = 0; c < window.width; ++c) {
            const uint8_t kept = loose.pixels[r * loose.stride + c];
            if (kept && !touched.pixels[r * touched.stride + c]) {
                fail("fill_touched with a side tolerance took a cell the exact rule leaves out", window, rule,
                     threads);
            }
            if (loose_labels[static_cast<size_t>(r * stride + c)] != (kept ? 7 : 3)) {
                fail("rasterize_touched with a side tolerance differs from fill_touched", window, rule, threads);
            }
        }
    }
}

// The polygon (rings, vertices as exact hexadecimal doubles) and the point
// where a check failed, so the failure can be replayed outside the fuzzer.
void dump_polygon(const Polygon &polygon, double px, double py)
{
    std::fprintf(stderr, "fuzz_core: at the point (%a, %a) of the polygon with ring ends", px, py);
    for (int64_t end : polygon.ring_ends()) std::fprintf(stderr, " %lld", static_cast<long long>(end));
    std::fprintf(stderr, " and vertices\n");
    const auto xy = polygon.xy();
    for (size_t k = 0; k + 1 < xy.size(); k += 2) std::fprintf(stderr, "  (%a, %a)\n", xy[k], xy[k + 1]);
}

// contains_points and contains_grid at the window's pixel centres are the
// scanline mask; at probes around the vertices and on the edges,
// contains_points is Polygon::contains.  Finite input only.
void check_points(const Polygon &polygon, const Window &window, const Canvas &scanline, FillRule rule, int threads)
{
    if (window.height > 0 && window.width > 0) {
        const int64_t n = window.height * window.width;
        std::vector<double> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
        std::vector<double> columns(static_cast<size_t>(window.width)), rows(static_cast<size_t>(window.height));
        for (int64_t c = 0; c < window.width; ++c) columns[c] = static_cast<double>(window.col0 + c);
        for (int64_t r = 0; r < window.height; ++r) {
            rows[r] = static_cast<double>(window.row0 + r);
            for (int64_t c = 0; c < window.width; ++c) {
                x[r * window.width + c] = columns[c];
                y[r * window.width + c] = rows[r];
            }
        }
        std::vector<uint8_t> points(static_cast<size_t>(n), Canvas::kUnwritten);
        std::vector<uint8_t> grid(static_cast<size_t>(n), Canvas::kUnwritten);
        polymask::contains_points(polygon, x.data(), y.data(), n, points.data(), rule, threads);
        polymask::contains_grid(polygon, columns.data(), window.width, rows.data(), window.height, grid.data(), rule,
                                threads);
        for (int64_t r = 0; r < window.height; ++r) {
            for (int64_t c = 0; c < window.width; ++c) {
                const uint8_t expected = scanline.pixels[r * scanline.stride + c];
                if (points[r * window.width + c] != expected) {
                    dump_polygon(polygon, columns[c], rows[r]);
                    fail("contains_points differs from the mask", window, rule, threads);
                }
                if (grid[r * window.width + c] != expected) fail("contains_grid differs from the mask", window, rule, threads);
            }
        }
    }
    const auto xy = polygon.xy();
    const int64_t n_vertices = polygon.vertex_count();
    std::vector<double> px, py;
    const double inf = std::numeric_limits<double>::infinity();
    for (int64_t v = 0; v < n_vertices; ++v) {
        const double x0 = xy[2 * v], y0 = xy[2 * v + 1];
        const int64_t w = (v + 1) % n_vertices;
        const double x1 = xy[2 * w], y1 = xy[2 * w + 1];
        const double probe_x[] = {x0, std::nextafter(x0, -inf), std::nextafter(x0, inf), x0, x0, x0 * 0.5 + x1 * 0.5};
        const double probe_y[] = {y0, y0, y0, std::nextafter(y0, -inf), std::nextafter(y0, inf), y0 * 0.5 + y1 * 0.5};
        for (int k = 0; k < 6; ++k) {
            px.push_back(probe_x[k]);
            py.push_back(probe_y[k]);
        }
        const double row = std::round(y0 * 0.5 + y1 * 0.5);  // the edge's crossing of an integer row, if any
        if (polymask::pm_edge_crosses_row(y0, y1, row)) {
            px.push_back(polymask::pm_x_cross(x0, y0, x1, y1, row));
            py.push_back(row);
        }
    }
    for (size_t k = 0; k < px.size(); ++k) {
        if (!std::isfinite(px[k]) || !std::isfinite(py[k])) {
            px.erase(px.begin() + static_cast<std::ptrdiff_t>(k));
            py.erase(py.begin() + static_cast<std::ptrdiff_t>(k));
            --k;
        }
    }
    if (px.empty()) return;
    std::vector<uint8_t> inside(px.size(), Canvas::kUnwritten);
    polymask::contains_points(polygon, px.data(), py.data(), static_cast<int64_t>(px.size()), inside.data(), rule,
                              threads);
    for (size_t k = 0; k < px.size(); ++k) {
        if (inside[k] != (polygon.contains(px[k], py[k], rule) ? 1 : 0)) {
            dump_polygon(polygon, px[k], py[k]);
            fail("contains_points differs from Polygon::contains at a probe point", window, rule, threads);
        }
    }
}

uint64_t rle_area(const std::vector<uint32_t> &counts)
{
    uint64_t area = 0;
    for (size_t k = 1; k < counts.size(); k += 2) area += counts[k];
    return area;
}

// The rest of the input as a COCO counts string.
void check_rle(const std::string &text)
{
    const Window none{};
    std::vector<uint32_t> counts;
    try {
        counts = polymask::rle_decompress(text.data(), static_cast<int64_t>(text.size()));
    } catch (const std::invalid_argument &) {
        return;  // refused: the documented outcome for a corrupt string
    }
    const std::string again = polymask::rle_compress(counts.data(), static_cast<int64_t>(counts.size()));
    if (polymask::rle_decompress(again.data(), static_cast<int64_t>(again.size())) != counts) {
        fail("rle_compress(rle_decompress(text)) does not read back", none, FillRule::even_odd, 1);
    }
    uint64_t total = 0;
    for (uint32_t run : counts) total += run;
    // The complement: the same runs behind one more (or one fewer) empty run of zeros.
    std::vector<uint32_t> complement;
    if (!counts.empty() && counts.front() == 0) {
        complement.assign(counts.begin() + 1, counts.end());
    } else {
        complement.push_back(0);
        complement.insert(complement.end(), counts.begin(), counts.end());
    }
    const int64_t n = static_cast<int64_t>(counts.size()), m = static_cast<int64_t>(complement.size());
    const uint64_t area = rle_area(counts);
    if (rle_area(polymask::rle_merge(counts.data(), n, counts.data(), n, false)) != area ||
        rle_area(polymask::rle_merge(counts.data(), n, counts.data(), n, true)) != area ||
        polymask::rle_intersection_area(counts.data(), n, counts.data(), n) != area) {
        fail("an RLE merged with itself changed its area", none, FillRule::even_odd, 1);
    }
    if (polymask::rle_intersection_area(counts.data(), n, complement.data(), m) != 0 ||
        rle_area(polymask::rle_merge(counts.data(), n, complement.data(), m, true)) != 0 ||
        rle_area(polymask::rle_merge(counts.data(), n, complement.data(), m, false)) != total) {
        fail("an RLE and its complement overlap or leave pixels out", none, FillRule::even_odd, 1);
    }
}

}  // namespace
