// rle.cpp -- the COCO encoder: run lengths from scanline spans.
//
// See rle.hpp for the format; steps 1 and 2 live in rle_spans.hpp, the
// counts string and merges of finished RLEs in rle_counts.cpp.  Per object:
//   1. sweep each part's rows (scan_rows) and collect its spans;
//   2. with several parts, sort the spans by (row, column) and merge the
//      overlapping or touching ones: the union, row by row;
//   3. walk the rows: the columns where row r and row r - 1 differ are the
//      symmetric difference of their spans, i.e. between the 0th and 1st,
//      2nd and 3rd... of their merged, sorted boundaries: a few bands of
//      columns per row.  Each column c in a band gives a toggle at
//      column-major position c * height + r;
//   4. counting-sort the toggles by column (rows arrive in order already),
//      and turn positions into run lengths.
// A column that ends inside (toggle at row == height) and the next one
// that starts inside (toggle at row 0) give the same position; they cancel,
// since the run simply continues over the column break.
#include "polymask/rle.hpp"
#include "edges.hpp"

#include <algorithm>
#include <limits>
#include <utility>
#include <stdexcept>
#include <string>

#include "checks.hpp"
#include "parallel.hpp"
#include "row_bands.hpp"
#include "rle_spans.hpp"
#include "scanline.hpp"

namespace polymask {

namespace {

using detail::collect_part_spans;
using detail::PartEdges;
using detail::RowSpan;
using detail::unite_spans;

// A stretch of columns [begin, end) whose pixels on `row` differ from the
// pixels above them: each column in it starts or ends a column-major run.
struct ToggleBand {
    int64_t row;
    int64_t begin;
    int64_t end;
};

// Reusable buffers of one thread: kept across objects and calls, so the
// encoder allocates almost nothing per object.
struct EncodeScratch {
    PartEdges part;  // the edge table of the part being swept (flat-vertex input)
    std::vector<detail::EdgeRows> edge_rows;
    std::vector<RowSpan> spans;
    std::vector<int64_t> boundaries;  // merged boundaries of two rows
    std::vector<ToggleBand> bands;
    std::vector<int64_t> column_start;  // per column: where its toggles go
    std::vector<int64_t> positions;     // toggles as column-major positions, in order
    std::vector<uint32_t> runs;         // an object's counts, before compression
};

// This thread's scratch.  Out of line on purpose: in a shared library each
// use of a thread_local can cost a __tls_get_addr call (the encoder's loop
// has dozens of uses); a plain reference taken once costs one.
[[gnu::noinline]] EncodeScratch &thread_scratch()
{
    thread_local EncodeScratch scratch;
    return scratch;
}

// The COCO counts of the spans (sorted, disjoint, non-adjacent per row).
void runs_from_spans(const std::vector<RowSpan> &spans, int64_t height, int64_t width, EncodeScratch &scratch,
                     std::vector<uint32_t> &counts)
{
    const int64_t n_pixels = height * width;
    counts.clear();
    if (spans.empty()) {
        counts.push_back(static_cast<uint32_t>(n_pixels));
        return;
    }
    int64_t col_min = spans.front().begin;
    int64_t col_max = spans.front().end;  // exclusive
    for (const RowSpan &s : spans) {
        col_min = std::min(col_min, s.begin);
        col_max = std::max(col_max, s.end);
    }

    // 1. Bands of toggles, row by row, from the first span row to one past
    //    the last: rows without spans in between are empty rows, and the row
    //    after the last closes the runs.
    // A row's bands are at most its spans plus the row above's (the XOR of
    // k and m intervals has at most k + m): 2 per span in all.  Written
    // through a pointer into a buffer that only grows (the hottest loop of
    // the encoder; push_back's capacity check cost a tenth of it).
    std::vector<ToggleBand> &band_buffer = scratch.bands;
    if (band_buffer.size() < 2 * spans.size()) band_buffer.resize(2 * spans.size());
    ToggleBand *const bands_begin = band_buffer.data();
    ToggleBand *bands_end = bands_begin;
    size_t prev_begin = 0, prev_end = 0;  // spans of row - 1
    size_t next = 0;
    const int64_t row_last = spans.back().row;
    for (int64_t row = spans.front().row; row <= row_last + 1; ++row) {
        const size_t cur_begin = next;
        while (next < spans.size() && spans[next].row == row) ++next;
        const size_t cur_end = next;
        if (cur_begin == cur_end && prev_begin == prev_end) continue;  // both rows empty
        if (cur_end - cur_begin == 1 && prev_end - prev_begin == 1) {
            // The usual case, one span over one span: two bands at most.
            const RowSpan &a = spans[prev_begin], &b = spans[cur_begin];
            if (a.begin != b.begin) *bands_end++ = {row, std::min(a.begin, b.begin), std::max(a.begin, b.begin)};
            if (a.end != b.end) *bands_end++ = {row, std::min(a.end, b.end), std::max(a.end, b.end)};
        } else {
            // Merge the two rows' boundaries; XOR is inside between the
            // 2m-th and (2m+1)-th of them (equal boundaries cancel).
            std::vector<int64_t> &bounds = scratch.boundaries;
            bounds.clear();
            for (size_t k = prev_begin; k < prev_end; ++k) {
                bounds.push_back(spans[k].begin);
                bounds.push_back(spans[k].end);
            }
            const size_t middle = bounds.size();
            for (size_t k = cur_begin; k < cur_end; ++k) {
                bounds.push_back(spans[k].begin);
                bounds.push_back(spans[k].end);
            }
            std::inplace_merge(bounds.begin(), bounds.begin() + static_cast<std::ptrdiff_t>(middle), bounds.end());
            for (size_t k = 0; k + 1 < bounds.size(); k += 2) {
                if (bounds[k] < bounds[k + 1]) *bands_end++ = {row, bounds[k], bounds[k + 1]};
            }
        }
        prev_begin = cur_begin;
        prev_end = cur_end;
    }

    // 2. Counting sort by column: toggles per column from a difference
    //    array over the bands, then each band drops its toggles into place.
    //    Bands come in row order, so each column's rows stay increasing.
    const size_t n_columns = static_cast<size_t>(col_max - col_min);
    std::vector<int64_t> &start = scratch.column_start;
    start.assign(n_columns + 1, 0);
    for (const ToggleBand *band = bands_begin; band != bands_end; ++band) {
        ++start[static_cast<size_t>(band->begin - col_min)];
        --start[static_cast<size_t>(band->end - col_min)];
    }
    int64_t per_column = 0, total = 0;
    for (size_t c = 0; c < n_columns; ++c) {
        per_column += start[c];  // toggles in column c
        start[c] = total;        // where they go
        total += per_column;
    }
    std::vector<int64_t> &positions = scratch.positions;
    positions.resize(static_cast<size_t>(total));
    for (const ToggleBand *band = bands_begin; band != bands_end; ++band) {
        for (int64_t c = band->begin; c < band->end; ++c) {
            positions[static_cast<size_t>(start[static_cast<size_t>(c - col_min)]++)] = c * height + band->row;
        }
    }

    // 3. Toggle positions to runs; equal neighbours (a column ending inside,
    //    the next starting inside) cancel.
    counts.reserve(positions.size() + 1);
    int64_t previous = 0;
    int64_t pending = -1;  // a toggle not yet written, or -1
    for (int64_t position : positions) {
        if (pending == position) {
            pending = -1;
            continue;
        }
        if (pending >= 0) {
            counts.push_back(static_cast<uint32_t>(pending - previous));
            previous = pending;
        }
        pending = position;
    }
    // A toggle at the very end only closes the last run.
    if (pending >= 0 && pending < n_pixels) {
        counts.push_back(static_cast<uint32_t>(pending - previous));
        previous = pending;
    }
    counts.push_back(static_cast<uint32_t>(n_pixels - previous));
}

}  // namespace

namespace {

void check_size(int64_t height, int64_t width)
{
    if (height < 0 || width < 0 || (width > 0 && height > (int64_t{1} << 32) / width) ||
        height * width >= (int64_t{1} << 32)) {
        throw std::invalid_argument("polymask::rle_encode: height * width must be in [0, 2^32), got " +
                                    std::to_string(height) + " x " + std::to_string(width));
    }
}

// The cost of encoding, in parallel.hpp's pixel units (about 1/24 ns of one
// thread on the project machine), fitted to single-thread runs of
// benchmarks/test_coco.py's objects and of extreme sets (thousands of
// triangles; a few huge circles; 2,000-vertex parts): per object about
// 0.4 us (bookkeeping, compression, its Python dict), per vertex about 45 ns
// (edge table and its sort), and per row an edge crosses or column it spans
// about 14 ns (the sweep and the run boundaries it makes).
constexpr double kWorkPerObject = 10000;
constexpr double kWorkPerVertex = 1100;
constexpr double kWorkPerEdgeLength = 330;

// One edge's share of that: its length in rows and columns, clipped to the image.
inline double edge_work(double xi, double yi, double xj, double yj, double height, double width)
{
    const double rows = std::min(std::max(yi, yj), height) - std::max(std::min(yi, yj), 0.0);
    const double columns = std::min(std::max(xi, xj), width) - std::max(std::min(xi, xj), 0.0);
    return kWorkPerVertex + kWorkPerEdgeLength * (std::max(rows, 0.0) + std::max(columns, 0.0));
}

// How to spread the objects over threads (detail::plan_items), from
// part_work(p), the work of part p.
template <class PartWork>
detail::ItemPlan plan_objects(const int64_t *object_ends, int64_t n_objects, int threads, PartWork part_work)
{
    return detail::plan_items(n_objects, threads, [&](int64_t o) {
        double work = kWorkPerObject;
        for (int64_t p = o > 0 ? object_ends[o - 1] : 0; p < object_ends[o]; ++p) work += part_work(p);
        return work;
    });
}

// Encode every object, threaded across objects as `plan` says.
// edges_at(p, scratch) returns part p's edge table (sorted by y_low), valid
// until its next call with that scratch.
template <class EdgesAt>
void encode_objects(const int64_t *object_ends, int64_t n_objects, int64_t height, int64_t width, FillRule rule,
                    detail::ItemPlan plan, std::vector<std::vector<uint32_t>> &counts,
                    std::vector<std::string> *strings, EdgesAt edges_at)
{
    counts.assign(static_cast<size_t>(n_objects), {});
    if (strings != nullptr) strings->assign(static_cast<size_t>(n_objects), {});
    const Window image{0, 0, height, width};
    detail::parallel_for(plan.chunks, plan.team, [&](int64_t chunk) {
        // Buffers live as long as the thread: no allocation per object.
        EncodeScratch &scratch = thread_scratch();
        const int64_t first = n_objects * chunk / plan.chunks;
        const int64_t last = n_objects * (chunk + 1) / plan.chunks;
        for (int64_t o = first; o < last; ++o) {
            const int64_t part_begin = o > 0 ? object_ends[o - 1] : 0;
            const int64_t part_end = object_ends[o];
            scratch.spans.clear();
            if (height > 0 && width > 0) {
                for (int64_t p = part_begin; p < part_end; ++p) {
                    collect_part_spans(edges_at(p, scratch), image, rule, scratch.edge_rows, scratch.spans);
                }
            }
            if (part_end - part_begin > 1) unite_spans(scratch.spans);
            // Compressed: the runs are only a step, kept in the scratch.
            std::vector<uint32_t> &runs = strings != nullptr ? scratch.runs : counts[static_cast<size_t>(o)];
            runs_from_spans(scratch.spans, height, width, scratch, runs);
            if (strings != nullptr) {
                (*strings)[static_cast<size_t>(o)] = rle_compress(runs.data(), static_cast<int64_t>(runs.size()));
            }
        }
    });
}

}  // namespace

void rle_encode(const Polygon *parts, int64_t n_parts, const int64_t *object_ends, int64_t n_objects,
                int64_t height, int64_t width, FillRule rule, int threads,
                std::vector<std::vector<uint32_t>> &counts, std::vector<std::string> *strings)
{
    check_size(height, width);
    detail::check_ends("polymask::rle_encode", "object_ends", object_ends, n_objects, n_parts, "part count");
    const double h = static_cast<double>(height), w = static_cast<double>(width);
    const detail::ItemPlan plan = plan_objects(object_ends, n_objects, threads, [&](int64_t p) {
        double work = 0;
        for (const Edge &e : edges_by_y(parts[p])) work += edge_work(e.xi, e.yi, e.xj, e.yj, h, w);
        return work;
    });
    encode_objects(object_ends, n_objects, height, width, rule, plan, counts, strings,
                   [parts](int64_t p, EncodeScratch &) -> ConstSpan<Edge> { return edges_by_y(parts[p]); });
}

void rle_encode(const double *xy, int64_t n_vertices, const int64_t *ring_ends, int64_t n_rings,
                const int64_t *part_ends, int64_t n_parts, const int64_t *object_ends, int64_t n_objects,
                int64_t height, int64_t width, FillRule rule, int threads,
                std::vector<std::vector<uint32_t>> &counts, std::vector<std::string> *strings)
{
    check_size(height, width);
    detail::check_ends("polymask::rle_encode", "ring_ends", ring_ends, n_rings, n_vertices, "vertex count");
    detail::check_ends("polymask::rle_encode", "part_ends", part_ends, n_parts, n_rings, "ring count");
    detail::check_ends("polymask::rle_encode", "object_ends", object_ends, n_objects, n_parts, "part count");
    for (int64_t k = 0, start = 0; k < n_rings; start = ring_ends[k++]) {
        // Edge indices are int32 in the sweep, as in Polygon.
        if (ring_ends[k] - start > std::numeric_limits<int32_t>::max() / 2) {
            throw std::length_error("polymask::rle_encode: a ring has too many vertices");
        }
    }
    const double h = static_cast<double>(height), w = static_cast<double>(width);
    const detail::ItemPlan plan = plan_objects(object_ends, n_objects, threads, [&](int64_t p) {
        double work = 0;
        int64_t start = p > 0 && part_ends[p - 1] > 0 ? ring_ends[part_ends[p - 1] - 1] : 0;
        for (int64_t k = p > 0 ? part_ends[p - 1] : 0; k < part_ends[p]; start = ring_ends[k++]) {
            for (int64_t i = start, j = ring_ends[k] - 1; i < ring_ends[k]; j = i++) {
                work += edge_work(xy[2 * i], xy[2 * i + 1], xy[2 * j], xy[2 * j + 1], h, w);
            }
        }
        return work;
    });
    // Each thread builds the edge tables of its own objects' parts, into
    // buffers it keeps: the tables are made in parallel, without allocating.
    encode_objects(object_ends, n_objects, height, width, rule, plan, counts, strings,
                   [=](int64_t p, EncodeScratch &scratch) -> ConstSpan<Edge> {
                       const int64_t ring_begin = p > 0 ? part_ends[p - 1] : 0;
                       scratch.part.build(xy, ring_ends, ring_begin, part_ends[p]);
                       return scratch.part.edges;
                   });
}

}  // namespace polymask
