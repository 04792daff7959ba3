// rle.cpp -- COCO run lengths from scanline spans, and COCO's counts string.
//
// See rle.hpp for the format.  The encoder per object:
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

#include <algorithm>
#include <limits>
#include <utility>
#include <stdexcept>
#include <string>

#include "checks.hpp"
#include "parallel.hpp"
#include "row_bands.hpp"
#include "scanline.hpp"

namespace polymask {

namespace {

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
void collect_part_spans(ConstSpan<Edge> edges, const Window &image, FillRule rule,
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
void unite_spans(std::vector<RowSpan> &spans)
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
// use of a thread_local can cost a __tls_get_addr call (33 of them in the
// encoder's loop, 2% of its time); a plain reference taken once costs one.
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
        for (const Edge &e : parts[p].edges_by_y()) work += edge_work(e.xi, e.yi, e.xj, e.yj, h, w);
        return work;
    });
    encode_objects(object_ends, n_objects, height, width, rule, plan, counts, strings,
                   [parts](int64_t p, EncodeScratch &) -> ConstSpan<Edge> { return parts[p].edges_by_y(); });
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

}  // namespace

std::vector<uint32_t> rle_merge(const uint32_t *a, int64_t n_a, const uint32_t *b, int64_t n_b, bool intersect)
{
    const uint64_t n_pixels = total(a, n_a);
    if (total(b, n_b) != n_pixels) {
        throw std::invalid_argument("polymask::rle_merge: the two RLEs cover " + std::to_string(n_pixels) + " and " +
                                    std::to_string(total(b, n_b)) + " pixels");
    }
    std::vector<uint32_t> out;
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
