// masks.cpp -- N instance masks in one call (see polymask/masks.hpp).
//
// Threads go across instances: instances are grouped into chunks handed to
// detail::parallel_for, and each instance is swept start to end by the
// thread that claimed it, so a thousand 40-pixel objects cost a thousand
// small sweeps and no thread start-up per object.  As many threads start as
// the instances' summed work is worth (detail::plan_items): a batch of a
// few small masks runs on the calling thread.  Fewer instances than threads
// (one big object) fall back to threads within each instance.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "polymask/masks.hpp"
#include "edges.hpp"
#include "scanline.hpp"
#include "mask_writers.hpp"
#include "parallel.hpp"
#include "row_bands.hpp"

namespace polymask {

namespace {

void check_polygons(const Polygon *polygons, int64_t n_polygons, const char *who)
{
    if (n_polygons < 0) throw std::invalid_argument(std::string(who) + ": negative polygon count");
    if (n_polygons > 0 && polygons == nullptr) throw std::invalid_argument(std::string(who) + ": null polygons");
}

// An instance's work in parallel.hpp's pixel units, as a scanline row's
// (row_bands.hpp): 8 per (edge, row) crossing, plus 1 per pixel written.
// The pixels written are the whole window for a dense fill (pixels = -1),
// or, for span writers, estimated by the edges' bounding box in the window.
double instance_work(const Polygon &polygon, const Window &window, double pixels)
{
    const ConstSpan<Edge> edges = edges_by_y(polygon);
    const double row0 = static_cast<double>(window.row0), row_end = row0 + static_cast<double>(window.height);
    const double col0 = static_cast<double>(window.col0), col_end = col0 + static_cast<double>(window.width);
    double crossings = 0;
    double x_low = col_end, x_high = col0, y_low = row_end, y_high = row0;
    for (const Edge &e : edges) {
        const double low = std::max(e.y_low, row0), high = std::min(e.y_high, row_end);
        if (high <= low) continue;
        crossings += high - low;
        y_low = std::min(y_low, low);
        y_high = std::max(y_high, high);
        x_low = std::min(x_low, std::min(e.xi, e.xj));
        x_high = std::max(x_high, std::max(e.xi, e.xj));
    }
    if (pixels < 0) {
        const double columns = std::min(x_high, col_end) - std::max(x_low, col0);
        pixels = columns > 0 && y_high > y_low ? columns * (y_high - y_low) : 0.0;
    }
    return 8.0 * crossings + pixels + 64.0;  // 64: an instance's own bookkeeping
}

// Records the box of the spans it is given.
struct BoxSink {
    int64_t row_first = 0, row_last = -1, col_first = 0, col_end = 0;
    int64_t row = 0;
    bool any = false;

    void begin_row(int64_t r) { row = r; }
    void span(int64_t begin, int64_t end)
    {
        if (!any) {
            row_first = row;
            col_first = begin;
            col_end = end;
            any = true;
        } else {
            col_first = std::min(col_first, begin);
            col_end = std::max(col_end, end);
        }
        row_last = row;
    }
    void end_row() {}
};

}  // namespace

void fill_masks(const Polygon *polygons, int64_t n_polygons, const Window &window, uint8_t *out,
                int64_t row_stride, int64_t mask_stride, FillRule rule, int threads, bool zeroed)
{
    check_polygons(polygons, n_polygons, "polymask::fill_masks");
    if (window.height < 0 || window.width < 0) {
        throw std::invalid_argument("polymask::fill_masks: window height and width must be >= 0");
    }
    if (n_polygons == 0 || window.height == 0 || window.width == 0) return;
    if (out == nullptr) throw std::invalid_argument("polymask::fill_masks: null output pointer");
    if (row_stride < window.width || mask_stride < row_stride * (window.height - 1) + window.width) {
        throw std::invalid_argument("polymask::fill_masks: row_stride or mask_stride too small for the window");
    }
    if (n_polygons < resolve_threads(threads)) {  // few big instances: threads within each
        for (int64_t p = 0; p < n_polygons; ++p) {
            uint8_t *mask = out + p * mask_stride;
            if (zeroed) {
                fill_scanline_spans(polygons[p], window, mask, row_stride, rule, threads);
            } else {
                fill_scanline(polygons[p], window, mask, row_stride, rule, threads);
            }
        }
        return;
    }
    const double dense = zeroed ? -1.0 : static_cast<double>(window.height) * static_cast<double>(window.width);
    const auto work_of = [&](int64_t p) { return instance_work(polygons[p], window, dense); };
    detail::for_items(n_polygons, threads, work_of, [&](int64_t p) {
        const ConstSpan<Edge> edges = edges_by_y(polygons[p]);
        const std::vector<detail::EdgeRows> rows = detail::edge_rows_in_window(edges, window);
        uint8_t *mask = out + p * mask_stride;
        if (zeroed) {
            const detail::EdgeRows extent = detail::rows_with_crossings(rows);
            detail::MaskSpanWriter writer{mask, row_stride, window};
            detail::sweep_in_bands(edges, rows, window, rule, extent.first, extent.end, writer);
        } else {
            detail::MaskRowWriter writer{mask, row_stride, window};
            detail::sweep_in_bands(edges, rows, window, rule, window.row0, window.row0 + window.height, writer);
        }
    });
}

void mask_boxes(const Polygon *polygons, int64_t n_polygons, const Window &window, MaskBox *boxes,
                FillRule rule, int threads)
{
    check_polygons(polygons, n_polygons, "polymask::mask_boxes");
    if (n_polygons == 0) return;
    if (boxes == nullptr) throw std::invalid_argument("polymask::mask_boxes: null boxes");
    if (window.height < 0 || window.width < 0) {
        throw std::invalid_argument("polymask::mask_boxes: window height and width must be >= 0");
    }
    const auto work_of = [&](int64_t p) { return instance_work(polygons[p], window, 0.0); };  // writes no pixels
    detail::for_items(n_polygons, threads, work_of, [&](int64_t p) {
        const ConstSpan<Edge> edges = edges_by_y(polygons[p]);
        const std::vector<detail::EdgeRows> rows = detail::edge_rows_in_window(edges, window);
        const detail::EdgeRows extent = detail::rows_with_crossings(rows);
        BoxSink sink;
        if (window.width > 0) detail::sweep_in_bands(edges, rows, window, rule, extent.first, extent.end, sink);
        boxes[p] = sink.any ? MaskBox{sink.row_first, sink.col_first, sink.row_last + 1 - sink.row_first,
                                      sink.col_end - sink.col_first}
                            : MaskBox{0, 0, 0, 0};
    });
}

void fill_mask_crops(const Polygon *polygons, int64_t n_polygons, const MaskBox *boxes, uint8_t *out,
                     const int64_t *offsets, FillRule rule, int threads)
{
    check_polygons(polygons, n_polygons, "polymask::fill_mask_crops");
    if (n_polygons == 0) return;
    if (boxes == nullptr || offsets == nullptr) throw std::invalid_argument("polymask::fill_mask_crops: null pointer");
    const auto work_of = [&](int64_t p) {
        const MaskBox &box = boxes[p];
        if (box.height <= 0 || box.width <= 0) return 64.0;
        const double area = static_cast<double>(box.height) * static_cast<double>(box.width);
        return instance_work(polygons[p], Window{box.row0, box.col0, box.height, box.width}, area);
    };
    detail::for_items(n_polygons, threads, work_of, [&](int64_t p) {
        const MaskBox &box = boxes[p];
        if (box.height <= 0 || box.width <= 0) return;
        if (out == nullptr) throw std::invalid_argument("polymask::fill_mask_crops: null output pointer");
        const Window window{box.row0, box.col0, box.height, box.width};
        const ConstSpan<Edge> edges = edges_by_y(polygons[p]);
        const std::vector<detail::EdgeRows> rows = detail::edge_rows_in_window(edges, window);
        detail::MaskSpanWriter writer{out + offsets[p], box.width, window};
        detail::sweep_in_bands(edges, rows, window, rule, window.row0, window.row0 + window.height, writer);
    });
}

}  // namespace polymask
