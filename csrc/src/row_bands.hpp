// row_bands.hpp -- cut a window's rows into chunks for parallel_for.
//
// Internal to the core's sources (fill.cpp, rasterize.cpp, touched.cpp,
// masks.cpp, rle.cpp): every threaded fill runs its body on bands of whole
// rows, so each thread writes only the rows of the band it claimed and no
// two threads ever touch the same byte.  Bands are chunks of parallel_for
// (parallel.hpp): claimed dynamically, the calling thread included, with
// interrupt checks in between; sweep_in_bands uses the same bands on one
// thread, for the interrupt checks alone.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "parallel.hpp"
#include "polymask/core.hpp"
#include "edges.hpp"
#include "scanline.hpp"

namespace polymask {
namespace detail {

// Rows per band when a test forces the chunking (0: chosen by the work).
int64_t forced_rows_per_chunk();

// A scanline row's cost: writing its width, plus a few units per crossing
// (`crossings`: (edge, row) pairs over the whole window).
// `written`: the columns a row writes (-1: the window's width).
inline double scanline_work_per_row(double crossings, const Window &window, double written = -1.0)
{
    return (written < 0 ? static_cast<double>(window.width) : written) +
           8.0 * crossings / static_cast<double>(std::max<int64_t>(1, window.height));
}

inline double scanline_work_per_row(const std::vector<EdgeRows> &rows, const Window &window, double written = -1.0)
{
    double crossings = 0;
    for (const EdgeRows &edge : rows) crossings += static_cast<double>(edge.end - edge.first);
    return scanline_work_per_row(crossings, window, written);
}

// The columns of `window` any span can reach: between the leftmost and the
// rightmost x of the edges that cross its rows (spans lie between
// crossings).  A fill that writes only spans (into a lazily zeroed mask)
// costs this much a row, not the window's width: a polygon 300 px wide in
// an 8192-px-wide mask was planned as 27x its work and woke a helper that
// only faulted pages of the same process for nothing (csrc/bench/STEPS.md).
inline double span_columns(ConstSpan<Edge> edges, const std::vector<EdgeRows> &rows, const Window &window)
{
    double left = std::numeric_limits<double>::infinity(), right = -left;
    for (size_t k = 0; k < edges.size(); ++k) {
        if (rows[k].first >= rows[k].end) continue;
        left = std::min(left, std::min(edges[k].xi, edges[k].xj));
        right = std::max(right, std::max(edges[k].xi, edges[k].xj));
    }
    if (!(left <= right)) return 0.0;
    const double col_end = static_cast<double>(window.col0 + window.width);
    left = std::clamp(left, static_cast<double>(window.col0), col_end);
    right = std::clamp(right, static_cast<double>(window.col0), col_end);
    return right - left + 1.0;
}

// Run body(row_begin, row_end) on bands of `window`'s rows, on at most
// `threads` threads (0: the default).  work_per_row is the cost of one row
// in pixel units (see parallel.hpp); negative means the window's width.
template <class Body>
void for_row_bands(const Window &window, int threads, Body body, double work_per_row = -1.0)
{
    if (window.height <= 0) return;
    if (work_per_row < 0) work_per_row = static_cast<double>(window.width);
    const double work = work_per_row * static_cast<double>(window.height);
    int team;
    int64_t bands;
    const int64_t forced = forced_rows_per_chunk();
    if (forced > 0) {  // tests: any chunking, any thread count, whatever the work
        bands = (window.height + forced - 1) / forced;
        team = static_cast<int>(std::min<int64_t>(resolve_threads(threads), bands));
    } else {
        team = threads_for_work(threads, work);
        bands = chunks_for_work(team, work, window.height);
    }
    parallel_for(bands, team, [&](int64_t band) {
        const int64_t begin = window.row0 + window.height * band / bands;
        const int64_t end = window.row0 + window.height * (band + 1) / bands;
        if (begin < end) body(begin, end);
    });
}

// A label image's polygons by block of rows: each band of a burn visits
// only the polygons whose rows reach it, still in index order within each
// row ("later over earlier").  Every band used to look at every polygon:
// with a million polygons, two threads cut 2,000 bands and spent more on
// those looks than on burning (5.9 s against 2.7 s on one thread).
class PolygonsByRows {
public:
    static constexpr int64_t kBlockRows = 64;

    // Polygon p reaches rows [row_first(p), row_end(p)) of `window`.
    template <class RowFirst, class RowEnd>
    PolygonsByRows(const Window &window, int64_t n_polygons, RowFirst row_first, RowEnd row_end)
        : row0_(window.row0), blocks_((std::max<int64_t>(window.height, 0) + kBlockRows - 1) / kBlockRows)
    {
        // A counting sort by block, polygons in index order within each.
        starts_.assign(static_cast<size_t>(blocks_ + 1), 0);
        const auto each_block = [&](int64_t p, auto &&visit) {
            const int64_t first = row_first(p), end = row_end(p);
            if (first >= end) return;
            for (int64_t b = (first - row0_) / kBlockRows; b <= (end - 1 - row0_) / kBlockRows; ++b) visit(b);
        };
        for (int64_t p = 0; p < n_polygons; ++p) each_block(p, [&](int64_t b) { ++starts_[b + 1]; });
        for (int64_t b = 0; b < blocks_; ++b) starts_[b + 1] += starts_[b];
        polygons_.resize(static_cast<size_t>(starts_[blocks_]));
        std::vector<int64_t> next(starts_.begin(), starts_.end() - 1);
        for (int64_t p = 0; p < n_polygons; ++p) each_block(p, [&](int64_t b) { polygons_[next[b]++] = p; });
    }

    // (block, polygon) pairs: what the bands look at, all together.
    int64_t visits() const { return static_cast<int64_t>(polygons_.size()); }

    // body(p) once for each polygon listed in the blocks of rows
    // [row_begin, row_end), in ascending order: the blocks' lists merged,
    // so a polygon over several blocks is swept once over the band's rows.
    // (Swept block by block instead, 200 polygons of 1,000 vertices took
    // 1.5x their time: every block restarted each polygon's sweep.)
    template <class Body>
    void for_each(int64_t row_begin, int64_t row_end, Body &&body) const
    {
        if (row_begin >= row_end) return;
        const int64_t first = (row_begin - row0_) / kBlockRows, last = (row_end - 1 - row0_) / kBlockRows;
        if (first == last) {
            for (int64_t k = starts_[first]; k < starts_[first + 1]; ++k) body(polygons_[k]);
            return;
        }
        // A min-heap of the blocks' next entries.
        struct Head {
            int64_t polygon, at, end;  // polygons_[at] == polygon; the block's list ends at `end`
        };
        std::vector<Head> heads;
        for (int64_t b = first; b <= last; ++b) {
            if (starts_[b] < starts_[b + 1]) heads.push_back({polygons_[starts_[b]], starts_[b], starts_[b + 1]});
        }
        const auto later = [](const Head &a, const Head &b) { return a.polygon > b.polygon; };
        std::make_heap(heads.begin(), heads.end(), later);
        int64_t previous = -1;
        while (!heads.empty()) {
            std::pop_heap(heads.begin(), heads.end(), later);
            Head &head = heads.back();
            if (head.polygon != previous) body(head.polygon);
            previous = head.polygon;
            if (++head.at < head.end) {
                head.polygon = polygons_[head.at];
                std::push_heap(heads.begin(), heads.end(), later);
            } else {
                heads.pop_back();
            }
        }
    }

private:
    int64_t row0_, blocks_;
    std::vector<int64_t> starts_;    // block b lists polygons_[starts_[b], starts_[b + 1])
    std::vector<int64_t> polygons_;  // indices, ascending within each block
};

// A row of a label image's burn, for for_row_bands: its pixels and its
// polygons' crossings (`crossings` over the whole window), and its share of
// the bands' looks at polygons.  Without the crossings, 20 polygons crossing
// every row 6,000 times each were planned as one band on one thread, and
// Ctrl-C waited 1.8 s for it (tests/test_interrupts.py).
inline double burn_work_per_row(double crossings, const PolygonsByRows &by_rows, const Window &window)
{
    return scanline_work_per_row(crossings, window) +
           static_cast<double>(by_rows.visits()) / static_cast<double>(std::max<int64_t>(1, window.height));
}

// One object's rows [row_begin, row_end) of `window` through `sink`, on
// this thread.  Batches (masks, COCO objects) hand whole objects to
// parallel_for's chunks, and the interrupt check runs between chunks, so
// one huge object held Ctrl-C back for as long as it took (seconds).  An
// object worth more than a lone thread's chunk of work is therefore swept
// in bands of rows with the check between them; a team of one claims its
// bands in order, so a sink that keeps state across rows (BoxSink, a span
// collector) sees them as one sweep.  Any other object is one plain sweep.
template <class Sink>
void sweep_in_bands(ConstSpan<Edge> edges, const std::vector<EdgeRows> &rows, const Window &window,
                    FillRule rule, int64_t row_begin, int64_t row_end, Sink &sink)
{
    if (row_begin >= row_end) return;
    const Window band{row_begin, window.col0, row_end - row_begin, window.width};
    const double work_per_row = scanline_work_per_row(rows, band);
    if (work_per_row * static_cast<double>(band.height) <= kWorkPerLoneChunk) {
        scan_rows(edges, rows, window, rule, row_begin, row_end, sink);
        return;
    }
    for_row_bands(band, 1, [&](int64_t begin, int64_t end) { scan_rows(edges, rows, window, rule, begin, end, sink); },
                  work_per_row);
}

}  // namespace detail
}  // namespace polymask
