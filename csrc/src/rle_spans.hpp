// rle_spans.hpp -- the first half of the COCO encoder (rle.cpp): one part's
// row spans.  Owns the edge table of a part given as flat vertices
// (PartEdges), the sweep of a part into spans, and their union over the
// parts of an object.  rle.cpp turns the united spans into run lengths.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "polymask/core.hpp"
#include "edges.hpp"
#include "row_bands.hpp"
#include "scanline.hpp"

namespace polymask::detail {

struct RowSpan {
    int64_t row;
    int64_t begin;
    int64_t end;
};

// The scan_rows sink: appends every span of every row it is shown.
struct SpanCollector {
    std::vector<RowSpan> &spans;
    int64_t row = 0;

    void begin_row(int64_t r) { row = r; }
    void span(int64_t begin, int64_t end) { spans.push_back({row, begin, end}); }
    void end_row() {}
};

// Spans of one part inside the height x width image, appended to `spans`.
inline void collect_part_spans(ConstSpan<Edge> edges, const Window &image, FillRule rule,
                        std::vector<detail::EdgeRows> &edge_rows, std::vector<RowSpan> &spans)
{
    if (edges.empty()) return;
    // Edges are sorted by y_low: the first starts the part's rows, the
    // largest y_high ends them (rows [ceil(y_low), ceil(y_high))).
    double y_high = edges.front().y_high;
    for (const Edge &e : edges) y_high = std::max(y_high, e.y_high);
    const int64_t row_first = detail::ceil_clamped(edges.front().y_low, 0, image.height);
    const int64_t row_end = detail::ceil_clamped(y_high, 0, image.height);
    if (row_first >= row_end) return;
    detail::edge_rows_in_window(edges, image, edge_rows);
    SpanCollector sink{spans};
    detail::sweep_in_bands(edges, edge_rows, image, rule, row_first, row_end, sink);
}

// The edge table of one part, as Polygon builds it (polygon.cpp): each
// ring's edges from vertex j = i - 1 to vertex i, horizontal ones dropped,
// stably sorted by y_low.  Rebuilt in place for part after part, in buffers
// that only grow and are written through pointers (push_back's checks, and
// an Edge built on the stack then copied, cost a tenth of the encoder).
struct PartEdges {
    std::vector<Edge> edges;
    std::vector<Edge> unsorted;
    std::vector<std::pair<double, int32_t>> order;  // (y_low, index): a stable sort

    void build(const double *xy, const int64_t *ring_ends, int64_t ring_begin, int64_t ring_end)
    {
        const int64_t first = ring_begin > 0 ? ring_ends[ring_begin - 1] : 0;
        const size_t most = static_cast<size_t>(ring_end > ring_begin ? ring_ends[ring_end - 1] - first : 0);
        if (unsorted.size() < most) {
            unsorted.resize(most);
            order.resize(most);
        }
        Edge *out = unsorted.data();
        auto *key = order.data();
        int64_t start = first;
        for (int64_t k = ring_begin; k < ring_end; start = ring_ends[k++]) {
            const int64_t end = ring_ends[k];
            for (int64_t i = start, j = end - 1; i < end; j = i++) {
                const double xi = xy[2 * i], yi = xy[2 * i + 1];
                const double xj = xy[2 * j], yj = xy[2 * j + 1];
                if (!(yi < yj) && !(yi > yj)) continue;
                out->xi = xi;
                out->yi = yi;
                out->xj = xj;
                out->yj = yj;
                out->y_low = yi < yj ? yi : yj;
                out->y_high = yi < yj ? yj : yi;
                out->winding = (yi > yj) ? 1 : -1;
                *key++ = {out->y_low, static_cast<int32_t>(out - unsorted.data())};
                ++out;
            }
        }
        const size_t count = static_cast<size_t>(out - unsorted.data());
        std::sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count));
        edges.resize(count);
        for (size_t k = 0; k < count; ++k) edges[k] = unsorted[static_cast<size_t>(order[k].second)];
    }
};

// Sort spans by (row, begin) and merge the ones that overlap or touch, so
// each row holds disjoint, non-adjacent spans in increasing order.
inline void unite_spans(std::vector<RowSpan> &spans)
{
    std::sort(spans.begin(), spans.end(), [](const RowSpan &a, const RowSpan &b) {
        return a.row != b.row ? a.row < b.row : a.begin < b.begin;
    });
    size_t kept = 0;
    for (size_t k = 0; k < spans.size(); ++k) {
        if (kept > 0 && spans[kept - 1].row == spans[k].row && spans[k].begin <= spans[kept - 1].end) {
            spans[kept - 1].end = std::max(spans[kept - 1].end, spans[k].end);
        } else {
            spans[kept++] = spans[k];
        }
    }
    spans.resize(kept);
}

}  // namespace polymask::detail
