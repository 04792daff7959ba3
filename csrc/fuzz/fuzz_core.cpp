// fuzz_core.cpp -- libFuzzer target for the C++ core (polygon + both fills).
//
// Built by scripts/fuzz.sh with clang++ -fsanitize=fuzzer,address,undefined.
// It drives Polygon, fill_per_pixel, fill_scanline and the label burn
// rasterize<uint8_t> (one polygon, value 1).  Each input is decoded into a polygon (vertices mixing small grid values with
// raw bit patterns: NaN, infinities, subnormals, huge values), optional ring
// splits, a small window anywhere in a +-2^31 plane, a fill rule and a thread
// count.  Then both fills run on it, and this target checks:
//
//   * nothing crashes and no sanitizer fires (the sanitizers do that part);
//   * only the documented exceptions come out, and only for the documented
//     reasons: std::invalid_argument for inconsistent ring ends or a negative
//     window, never for well-formed input;
//   * every byte of the window is written with 0 or 1, and the padding
//     between rows (row_stride > width) is never touched;
//   * when every coordinate is finite, the scanline fill equals the
//     per-pixel fill byte for byte, with one or two threads, and filling the
//     window in two halves equals filling it at once, and burning the
//     polygon into a cleared label image claims exactly the mask's pixels
//     (for non-finite input the burn is only checked for memory safety);
//   * with the even-odd rule, the scanline mask does not depend on the
//     thread count or on how the window is split, even for non-finite input.
//
// Non-finite input is outside the contract (polymask.mask rejects it), and
// the core promises only memory safety for it: a NaN vertex opens its ring,
// so a row's windings no longer sum to zero and the scanline's prefix count
// stops matching the per-pixel rule.  Under the nonzero rule the sweep then
// even depends on the order of tied crossings at +-inf, which differs from
// one band of rows to the next, so those checks are limited to finite input.
//
// The coverage sweep (coverage.hpp) is driven on the same input: it must
// refuse non-finite vertices and negative windows with invalid_argument and,
// for finite input, write every element of the window with a value in
// [0, 1] (never NaN) and no padding, give the same values with one or two
// threads and for the window cut in halves (rows and columns), and
// all_touched (fill_touched) must be exactly coverage > 0; so must the
// label burn of all_touched (rasterize_touched), and coverage_crops must
// equal coverage over the same window.
//
// The point predicate (points.hpp) is driven on the same finite input:
// contains_points at the window's pixel centres and contains_grid over the
// window's rows and columns must both be the scanline mask, and at probe
// points around every vertex (the vertex, the next double either way in x
// and in y), on every edge (its midpoint, and where it crosses the nearest
// integer row) contains_points must equal Polygon::contains, the per-pixel
// rule.
//
// The bytes left after the polygon are a COCO counts string
// (rle_decompress): it must be refused with invalid_argument or read, and
// what is read must survive rle_compress unchanged; merged with itself it
// covers the same pixels, and with its complement (the runs shifted by one)
// it intersects nowhere and unites into every pixel.
//
// Any failed check calls abort(), which libFuzzer reports as a crash and
// saves the input.  Windows are at most 40x40 and polygons at most 64
// vertices, so every input runs in well under a millisecond.
//
// Input layout (missing bytes read as 0, so every byte string is valid):
//   byte 0      flags: bit 0 rule (nonzero), bit 1 two threads,
//               bits 2-3 ring mode (0 one ring, 1 valid splits, 2 raw ring
//               ends that may be inconsistent, 3 no rings at all),
//               bit 4 window origin scaled by 2^16, bit 5 negative height,
//               bits 6-7 row padding (row_stride - width)
//   bytes 1-4   row0, col0 as little-endian int16
//   bytes 5-6   height, width (each mod 41)
//   byte 7      vertex count (mod 65)
//   byte 8      ring count (mod 5), then one byte per ring
//   then        one coordinate at a time (x then y for each vertex): a tag
//               byte picks the encoding, see read_coordinate().
//
// How the bytes are read is fuzz_input.hpp; the checks are fuzz_checks.hpp.
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

#include "fuzz_checks.hpp"
#include "fuzz_input.hpp"

namespace {

using polymask::FillRule;
using polymask::Polygon;
using polymask::Window;

void check_polygon_input(Reader &in);

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Reader in(data, size);
    check_polygon_input(in);
    check_rle(in.rest());
    return 0;
}

namespace {

void check_polygon_input(Reader &in)
{
    const uint8_t flags = in.byte();
    const FillRule rule = (flags & 1) ? FillRule::nonzero : FillRule::even_odd;
    const int threads = (flags & 2) ? 2 : 1;
    const int ring_mode = (flags >> 2) & 3;
    const int64_t origin_scale = (flags & 16) ? 65536 : 1;
    const bool negative_height = (flags & 32) != 0;
    const int64_t padding = (flags >> 6) & 3;

    Window window;
    window.row0 = static_cast<int64_t>(in.raw<int16_t>()) * origin_scale;
    window.col0 = static_cast<int64_t>(in.raw<int16_t>()) * origin_scale;
    window.height = in.byte() % 41;
    window.width = in.byte() % 41;
    if (negative_height) window.height = -window.height - 1;

    const int64_t n_vertices = in.byte() % 65;
    const int ring_count_byte = in.byte() % 5;
    std::vector<int64_t> ring_ends;
    bool rings_valid = true;
    if (ring_mode == 0) {
        ring_ends.push_back(n_vertices);
    } else if (ring_mode == 1) {
        // Sorted cut points in [0, n], the last at n: always valid, rings of
        // any size including empty ones and 1- or 2-vertex ones.
        int64_t end = 0;
        for (int k = 0; k < ring_count_byte; ++k) {
            end = std::min<int64_t>(n_vertices, end + in.byte() % 17);
            ring_ends.push_back(end);
        }
        ring_ends.push_back(n_vertices);
    } else if (ring_mode == 2) {
        // Raw ring ends: may decrease, overshoot or stop short of n.
        for (int k = 0; k < ring_count_byte + 1; ++k) ring_ends.push_back(static_cast<int8_t>(in.byte()));
        int64_t previous = 0;
        for (int64_t end : ring_ends) {
            if (end < previous || end > n_vertices) rings_valid = false;
            previous = end;
        }
        if (previous != n_vertices) rings_valid = false;
    } else {
        // No rings: valid only without vertices.
        rings_valid = n_vertices == 0;
    }

    std::vector<double> xy(static_cast<size_t>(2 * n_vertices));
    bool all_finite = true;
    for (int64_t v = 0; v < n_vertices; ++v) {
        xy[2 * v] = read_coordinate(in, static_cast<double>(window.col0));
        xy[2 * v + 1] = read_coordinate(in, static_cast<double>(window.row0));
        all_finite = all_finite && std::isfinite(xy[2 * v]) && std::isfinite(xy[2 * v + 1]);
    }

    // The polygon: it must throw invalid_argument exactly when the rings are
    // inconsistent, and accept everything else, non-finite values included.
    Polygon polygon;
    try {
        polygon = Polygon(xy.empty() ? nullptr : xy.data(), n_vertices,
                          ring_ends.empty() ? nullptr : ring_ends.data(),
                          static_cast<int64_t>(ring_ends.size()));
    } catch (const std::invalid_argument &) {
        if (rings_valid) fail("Polygon rejected valid ring ends", window, rule, threads);
        return;
    }
    if (!rings_valid) fail("Polygon accepted inconsistent ring ends", window, rule, threads);

    // A negative window must be refused by both fills, before any write.
    if (window.height < 0) {
        uint8_t sentinel = Canvas::kCanary;
        const uint8_t label = 1;
        for (int which = 0; which < 3; ++which) {
            bool refused = false;
            try {
                if (which == 0) polymask::fill_per_pixel(polygon, window, &sentinel, 1, rule, threads);
                else if (which == 1) polymask::fill_scanline(polygon, window, &sentinel, 1, rule, threads);
                else polymask::rasterize<uint8_t>(&polygon, 1, &label, window, &sentinel, 1, rule, threads);
            } catch (const std::invalid_argument &) {
                refused = true;
            }
            if (!refused) fail("a fill accepted a negative window height", window, rule, threads);
        }
        if (sentinel != Canvas::kCanary) fail("a refused fill wrote to the output", window, rule, threads);
        double fraction = -1.0;
        bool refused = false;
        try {
            polymask::coverage<double>(polygon, window, &fraction, 1, rule, threads);
        } catch (const std::invalid_argument &) {
            refused = true;
        }
        if (!refused || fraction != -1.0) fail("coverage accepted a negative window height", window, rule, threads);
        return;
    }

    // Both fills, over the exact-size canvas.  Non-finite input only has to
    // stay memory-safe and well-formed; finite input must agree bit for bit.
    Canvas per_pixel(window, padding), scanline(window, padding), scanline_1(window, padding);
    polymask::fill_per_pixel(polygon, window, per_pixel.data(), per_pixel.stride, rule, 1);
    polymask::fill_scanline(polygon, window, scanline.data(), scanline.stride, rule, threads);
    polymask::fill_scanline(polygon, window, scanline_1.data(), scanline_1.stride, rule, 1);
    check_canvas(per_pixel, window, rule, 1);
    check_canvas(scanline, window, rule, threads);
    check_canvas(scanline_1, window, rule, 1);
    const bool deterministic = all_finite || rule == FillRule::even_odd;  // see the top of this file
    if (deterministic && scanline.pixels != scanline_1.pixels) {
        fail("thread count changed the scanline mask", window, rule, threads);
    }

    // The window split into a top and a bottom half, filled separately into
    // the same buffer, is the same as one fill.
    if (deterministic && window.height >= 2 && window.width > 0) {
        Canvas halves(window, padding);
        Window top = window, bottom = window;
        top.height = window.height / 2;
        bottom.row0 = window.row0 + top.height;
        bottom.height = window.height - top.height;
        polymask::fill_scanline(polygon, top, halves.data(), halves.stride, rule, threads);
        polymask::fill_scanline(polygon, bottom, halves.data() + top.height * halves.stride, halves.stride, rule,
                                threads);
        if (halves.pixels != scanline.pixels) fail("a window filled in two halves differs", window, rule, threads);
    }

    // Burned into a cleared label image with value 1, the polygon claims
    // exactly its mask's pixels (rasterize shares the sweep, not the sink).
    // Finite input only: with a NaN the row's crossings can be odd, and the
    // two sinks may then close the last span differently (both are safe).
    if (all_finite) {
        Canvas burned(window, padding, 0);
        const uint8_t label = 1;
        polymask::rasterize<uint8_t>(&polygon, 1, &label, window, burned.data(), burned.stride, rule, threads);
        check_canvas(burned, window, rule, threads);
        if (burned.pixels != scanline.pixels) fail("rasterize differs from the scanline mask", window, rule, threads);
    }

    if (all_finite && per_pixel.pixels != scanline.pixels) {
        fail("scanline differs from per-pixel on finite input", window, rule, threads);
    }

    check_coverage(polygon, window, rule, threads, padding, all_finite);
    if (all_finite) check_points(polygon, window, scanline, rule, threads);
}

}  // namespace
