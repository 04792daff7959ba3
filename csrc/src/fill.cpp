// fill.cpp -- the two fills of a window, threaded over bands of rows.
//
// fill_per_pixel applies the contract's rule to every pixel: the reference
// that the teaching stages reproduce.  fill_scanline gets the same answer
// from one x_cross per (edge, row); see scanline.hpp for why it is exact.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "polymask/core.hpp"
#include "edges.hpp"
#include "scanline.hpp"
#include "checks.hpp"
#include "mask_writers.hpp"
#include "row_bands.hpp"

namespace polymask {

void fill_per_pixel(const Polygon &polygon, const Window &window, uint8_t *out,
                    int64_t row_stride, FillRule rule, int threads)
{
    detail::check_window("polymask::fill", window, out, row_stride);
    if (window.height == 0 || window.width == 0) return;
    // Each pixel tests every edge: a row costs about width x edges.
    const double work_per_row = static_cast<double>(window.width) *
                                static_cast<double>(edges_by_y(polygon).size() + 1);
    detail::for_row_bands(window, threads, [&](int64_t row_begin, int64_t row_end) {
        for (int64_t r = row_begin; r < row_end; ++r) {
            uint8_t *row = out + (r - window.row0) * row_stride;
            const double py = static_cast<double>(r);
            for (int64_t c = 0; c < window.width; ++c) {
                row[c] = polygon.contains(static_cast<double>(window.col0 + c), py, rule) ? 1 : 0;
            }
        }
    }, work_per_row);
}

void fill_scanline(const Polygon &polygon, const Window &window, uint8_t *out,
                   int64_t row_stride, FillRule rule, int threads)
{
    detail::check_window("polymask::fill", window, out, row_stride);
    if (window.height == 0 || window.width == 0) return;
    const ConstSpan<Edge> edges = edges_by_y(polygon);
    const std::vector<detail::EdgeRows> rows = detail::edge_rows_in_window(edges, window);
    const detail::EdgeRows extent = detail::rows_with_crossings(rows);
    // Rows no edge crosses are all zero: cleared in blocks, not swept and
    // cleared row by row (a large memset writes lines without reading them
    // first; standard problem: see csrc/bench/STEPS.md).
    const auto clear_rows = [&](int64_t begin, int64_t end) {
        if (begin >= end) return;
        uint8_t *first = out + (begin - window.row0) * row_stride;
        if (row_stride == window.width) {
            std::memset(first, 0, static_cast<size_t>((end - begin) * window.width));
        } else {
            for (int64_t r = begin; r < end; ++r, first += row_stride) {
                std::memset(first, 0, static_cast<size_t>(window.width));
            }
        }
    };
    detail::for_row_bands(window, threads, [&](int64_t row_begin, int64_t row_end) {
        const int64_t swept_begin = std::clamp(extent.first, row_begin, row_end);
        const int64_t swept_end = std::clamp(extent.end, swept_begin, row_end);
        clear_rows(row_begin, swept_begin);
        clear_rows(swept_end, row_end);
        if (swept_begin < swept_end) {
            detail::MaskRowWriter writer{out, row_stride, window};
            detail::scan_rows(edges, rows, window, rule, swept_begin, swept_end, writer);
        }
    }, detail::scanline_work_per_row(rows, window));
}

int64_t crossed_rows(const Polygon &polygon, const Window &window)
{
    const detail::EdgeRows extent =
        detail::rows_with_crossings(detail::edge_rows_in_window(edges_by_y(polygon), window));
    return extent.end - extent.first;
}

void fill_scanline_spans(const Polygon &polygon, const Window &window, uint8_t *out,
                         int64_t row_stride, FillRule rule, int threads)
{
    detail::check_window("polymask::fill", window, out, row_stride);
    if (window.height == 0 || window.width == 0) return;
    const ConstSpan<Edge> edges = edges_by_y(polygon);
    const std::vector<detail::EdgeRows> rows = detail::edge_rows_in_window(edges, window);
    // Rows no edge crosses hold no span: not even visited.
    const detail::EdgeRows extent = detail::rows_with_crossings(rows);
    if (extent.end <= extent.first) return;
    // Only those rows, in bands through the shared threading layer, each
    // row worth the columns its spans can reach: a small polygon in a huge
    // mask is too little work to wake a helper.
    Window crossed = window;
    crossed.row0 = extent.first;
    crossed.height = extent.end - extent.first;
    detail::for_row_bands(crossed, threads, [&](int64_t row_begin, int64_t row_end) {
        detail::MaskSpanWriter writer{out, row_stride, window};
        detail::scan_rows(edges, rows, window, rule, row_begin, row_end, writer);
    }, detail::scanline_work_per_row(rows, crossed, detail::span_columns(edges, rows, window)));
}

}  // namespace polymask
