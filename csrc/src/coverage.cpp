// coverage.cpp -- the exact coverage sweep behind polymask.coverage and all_touched.
//
// One row strip y in [row - 1/2, row + 1/2] at a time:
//
//   1. the edges that overlap the strip mark the columns they pass ("touched");
//      every other cell of the row is wholly inside or wholly outside;
//   2. the strip is cut at every vertex inside it into pieces; in a piece
//      every edge spans it, and the crossings of two edges inside it are the
//      swaps of an insertion sort from the order at the piece's top to the
//      order at its bottom;
//   3. the inside length in column c at height y is the sum over edges of
//      sign * clamp(x(y) - c, -1/2, 1/2), sign -1 for an edge that opens an
//      inside run and +1 for one that closes it (0 for neither, nonzero
//      only).  The sign follows from the edges left of it (parity, or the
//      winding count), so it changes only where the edge crosses another:
//      vertices add and remove edges in pairs of opposite winding.  Each edge
//      is therefore integrated once between consecutive crossings of its own,
//      O(edges + crossings) per piece;
//   4. the integral of clamp(x(y) - c, ...) over a stretch where x is linear
//      is a closed form (mean_clamped) for the columns the edge passes; to
//      the columns left of it the edge adds the constant sign * h / 2 (base_)
//      and to those right of it -sign * h / 2 (a step, in a per-column
//      difference array), so a wide inside run costs O(1) plus the columns
//      its edges pass.
//
// At the end of the row, cells an edge passes through take the summed area,
// clamped to [2^-126, 1] (an edge through the open cell always leaves some
// area inside, however little the sums say); all others are exactly 0 or 1.
// That is the open-cell test of touched.cpp (cell_geometry.hpp), so
// coverage > 0 is all_touched exactly; polygons whose edges may overlap along
// a stretch fall back to the sums, with residues below 2^-40 taken as 0.
// Every sum is taken in an order that depends on the geometry only, never on
// the window or the thread count, so windows equal slices bit for bit.
//
// Error: abscissae are interpolated in double (vertices within 2^16) or x87
// extended precision (beyond), then taken relative to the cell, so the error
// per edge piece is a few ulps of |x1 - x0| times h: measured 5e-14 for edges
// 2^21 long through a cell, 4e-12 for edges 2^17 long in double, under the
// promised 1e-10 for coordinates within +-2^20.
//
// The sweep itself is in five internal headers: coverage_pieces.hpp (the
// small parts), coverage_row.hpp (RowSweep, one row strip, and the general
// sweep), coverage_integrate.hpp (its crossings and integrals),
// coverage_simple_row.hpp (the one-pass path for a strip no vertex or
// crossing falls in, most rows) and coverage_vertex_row.hpp (a strip that
// vertices cut but no crossing does); this file plans the rows over threads
// and holds the public entry points.  A row takes the first of the three
// paths its own strip allows, so the path never depends on the window or
// the thread count.
#include "polymask/coverage.hpp"
#include "edges.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "cell_geometry.hpp"
#include "edge_overlap.hpp"
#include "checks.hpp"
#include "coverage_integrate.hpp"
#include "coverage_vertex_row.hpp"
#include "parallel.hpp"
#include "scanline.hpp"
#include "sorting.hpp"

namespace polymask {

namespace {

using detail::Extended;
using detail::Flat;
using detail::floor_clamped;
using detail::SegmentT;
using detail::coverage_sweep::RowSweep;

// Rows per chunk of parallel_for for a team of threads: each chunk sorts
// its first row from scratch, so chunks are not too small (16 rows, each
// chunk then also building its own sweep, spent a tenth of the time
// there), yet a 4096-row window still makes 64.  A lone thread needs chunks
// only for the interrupt checks, so it cuts as coarsely as the mask's bands
// do (chunks_for_work): in 64-row chunks the smooth 1,000-vertex outline at
// 4096x4096 spent a tenth of its coverage on them (csrc/bench/STEPS.md).
constexpr int64_t kRowsPerChunk = 64;

// The sweep's work over `window` in parallel.hpp's pixel units, for the
// thread count (one raster) and the plan of a batch (coverage_crops): a few
// units a cell, and about a thousand an (edge, row) pair, its piece and the
// areas of the cells it passes.  Measured on 12 random vertices, one thread
// against two: 260x260 88 against 126 us (so one), 400x400 151 against
// 137 us; the random 1,000-vertex polygon costs about 2,500 units a pair,
// so the estimate errs towards one thread.
double coverage_work(const Polygon &polygon, const Window &window)
{
    const double cells = static_cast<double>(window.height) * static_cast<double>(window.width);
    return 4.0 * cells + 1000.0 * detail::crossings_in_window(edges_by_y(polygon), window);
}

template <class Wide, class Store>
void sweep_window(const Polygon &polygon, const Window &window, FillRule rule, int threads, Store store_row)
{
    using Segment = SegmentT<Wide>;
    if (window.height < 0 || window.width < 0) {
        throw std::invalid_argument("polymask::coverage: window height and width must be >= 0");
    }
    if (window.height == 0 || window.width == 0) return;
    detail::check_finite_vertices(polygon, "polymask::coverage");
    std::vector<Segment> segments;
    std::vector<Flat> flats;
    detail::cell_edges(polygon, segments, flats);
    const bool exact_zeros = detail::edges_decide_touch(polygon, segments, flats);

    // Threads only when the work pays for waking them, and a lone thread in
    // coarse chunks (see kRowsPerChunk).  A window of one chunk's rows or fewer
    // (each small crop of coverage_crops) is one chunk either way, so it
    // needs no estimate.
    int team = 1;
    int64_t rows_per_chunk = window.height;
    if (window.height > kRowsPerChunk) {
        const double work = coverage_work(polygon, window);
        team = threads == 1 ? 1 : detail::threads_for_work(threads, work);
        rows_per_chunk = kRowsPerChunk;
        if (team == 1) {
            const int64_t lone_chunks = detail::chunks_for_work(1, work, window.height);
            rows_per_chunk = (window.height + lone_chunks - 1) / lone_chunks;
        }
    }
    const int64_t n_chunks = (window.height + rows_per_chunk - 1) / rows_per_chunk;
    // One sweep (its per-column buffers, three of the window's width) per
    // thread of the team, built by the first chunk that claims it and reused
    // by the next: at most `team` chunks run at once, so a chunk always finds
    // one free.  Building one per 64-row chunk cost the smooth outline
    // about 5% with two threads (csrc/bench/STEPS.md).  A chunk that throws
    // (bad_alloc) keeps its slot, whose sums may be half made: the job then
    // stops and starts no chunk that could need it.
    struct Slot {
        std::atomic<bool> busy{false};
        std::unique_ptr<RowSweep<Wide>> sweep;
    };
    const int slot_count = static_cast<int>(std::min<int64_t>(team, n_chunks));
    std::unique_ptr<Slot[]> slots(new Slot[static_cast<size_t>(slot_count)]);
    const auto chunk_top = [&](int64_t chunk) { return static_cast<double>(window.row0 + chunk * rows_per_chunk) - 0.5; };
    const auto chunk_bottom = [&](int64_t chunk) {
        return static_cast<double>(std::min(window.row0 + (chunk + 1) * rows_per_chunk, window.row0 + window.height)) -
               0.5;
    };
    // The segments each chunk's rows can reach, in order of their top, as
    // one list per chunk (offsets into reaching): one pass over the
    // segments, where a scan per chunk cost every chunk all the segments
    // above it (a quarter of the sweep for 10^6 vertices on 32 chunks).
    std::vector<int64_t> first_of_chunk(static_cast<size_t>(n_chunks) + 1, 0);
    std::vector<int32_t> reaching;
    for (int pass = 0; pass < 2; ++pass) {
        std::vector<int64_t> filled(first_of_chunk.begin(), first_of_chunk.end() - 1);
        for (size_t s = 0; s < segments.size(); ++s) {
            const Segment &seg = segments[s];
            // Chunks whose rows' strips meet (y0, y1), with a chunk's margin
            // against the division's rounding; the exact test decides.
            const double span = static_cast<double>(rows_per_chunk);
            const int64_t first = floor_clamped((seg.y0 + 0.5 - static_cast<double>(window.row0)) / span - 1.0, 0,
                                                n_chunks - 1);
            const int64_t last = floor_clamped((seg.y1 + 0.5 - static_cast<double>(window.row0)) / span + 1.0, 0,
                                               n_chunks - 1);
            for (int64_t c = first; c <= last; ++c) {
                if (!(seg.y0 < chunk_bottom(c) && seg.y1 > chunk_top(c))) continue;
                if (pass == 0) {
                    ++first_of_chunk[static_cast<size_t>(c) + 1];
                } else {
                    reaching[static_cast<size_t>(filled[static_cast<size_t>(c)]++)] = static_cast<int32_t>(s);
                }
            }
        }
        if (pass == 0) {
            for (size_t c = 1; c < first_of_chunk.size(); ++c) first_of_chunk[c] += first_of_chunk[c - 1];
            reaching.resize(static_cast<size_t>(first_of_chunk.back()));
        }
    }
    // Horizontal edges by ordinate: each row takes those in its closed strip.
    std::sort(flats.begin(), flats.end(), [](const Flat &a, const Flat &b) { return a.y < b.y; });
    detail::parallel_for(n_chunks, team, [&](int64_t chunk) {
        const int64_t row_begin = window.row0 + chunk * rows_per_chunk;
        const int64_t row_end = std::min(row_begin + rows_per_chunk, window.row0 + window.height);
        const int32_t *const candidates = reaching.data() + first_of_chunk[static_cast<size_t>(chunk)];
        const int64_t n_candidates = first_of_chunk[static_cast<size_t>(chunk) + 1] - first_of_chunk[static_cast<size_t>(chunk)];
        const Flat *flats_begin = std::lower_bound(flats.data(), flats.data() + flats.size(), chunk_top(chunk),
                                                   [](const Flat &f, double y) { return f.y < y; });
        const Flat *flats_end = flats_begin;
        const Flat *const flats_last = flats.data() + flats.size();
        int claimed = static_cast<int>(chunk % slot_count);
        while (slots[claimed].busy.exchange(true, std::memory_order_acquire)) claimed = (claimed + 1) % slot_count;
        Slot &slot = slots[claimed];
        if (!slot.sweep) slot.sweep = std::make_unique<RowSweep<Wide>>(segments, window, rule, exact_zeros);
        RowSweep<Wide> &sweep = *slot.sweep;
        std::vector<int32_t> active;
        int64_t next = 0;
        for (int64_t row = row_begin; row < row_end; ++row) {
            const double y_top = static_cast<double>(row) - 0.5, y_bottom = static_cast<double>(row) + 0.5;
            active.erase(std::remove_if(active.begin(), active.end(),
                                        [&](int32_t s) { return segments[s].y1 <= y_top; }),
                         active.end());
            while (next < n_candidates && segments[candidates[next]].y0 < y_bottom) {
                if (segments[candidates[next]].y1 > y_top) active.push_back(candidates[next]);
                ++next;
            }
            while (flats_begin != flats_last && flats_begin->y < y_top) ++flats_begin;
            if (flats_end < flats_begin) flats_end = flats_begin;
            while (flats_end != flats_last && flats_end->y <= y_bottom) ++flats_end;
            if (active.empty() && flats_begin == flats_end) {
                store_row(row, static_cast<RowSweep<Wide> *>(nullptr));
                continue;
            }
            sweep.use_flats(flats_begin, flats_end);
            if (!sweep.sweep_simple(row, active) && !sweep.sweep_pieces(row, active)) sweep.sweep(row, active);
            store_row(row, &sweep);
        }
        slot.busy.store(false, std::memory_order_release);
    });
}

// Run the sweep in double when every vertex is within 2^16, else in Extended.
template <class Store>
void sweep_any(const Polygon &polygon, const Window &window, FillRule rule, int threads, Store store_row)
{
    if (detail::double_is_enough(polygon)) {
        sweep_window<double>(polygon, window, rule, threads, store_row);
    } else {
        sweep_window<Extended>(polygon, window, rule, threads, store_row);
    }
}

}  // namespace

template <class Value>
void coverage(const Polygon &polygon, const Window &window, Value *out, int64_t row_stride, FillRule rule,
              int threads, bool zeroed)
{
    detail::check_window("polymask::coverage", window, out, row_stride);
    sweep_any(polygon, window, rule, threads, [&](int64_t row, auto *sweep) {
        Value *line = out + (row - window.row0) * row_stride;
        if (sweep == nullptr) {
            if (!zeroed) std::fill(line, line + window.width, Value(0));
            return;
        }
        if constexpr (std::is_same_v<Value, uint8_t>) {
            sweep->store(line, detail::coverage_sweep::ToByte{}, zeroed);
        } else {
            sweep->store(line, [](double value) { return static_cast<Value>(value); }, zeroed);
        }
    });
}

template <class Value>
void coverage_crops(const Polygon *polygons, int64_t n_polygons, const MaskBox *boxes, Value *out,
                    const int64_t *offsets, FillRule rule, int threads)
{
    if (n_polygons < 0) throw std::invalid_argument("polymask::coverage_crops: negative polygon count");
    if (n_polygons == 0) return;
    if (polygons == nullptr || boxes == nullptr || offsets == nullptr) {
        throw std::invalid_argument("polymask::coverage_crops: null pointer");
    }
    // Every input checked on the calling thread, before any work starts.
    const auto has_cells = [boxes](int64_t p) { return boxes[p].height > 0 && boxes[p].width > 0; };
    for (int64_t p = 0; p < n_polygons; ++p) {
        if (!has_cells(p)) continue;
        if (out == nullptr) throw std::invalid_argument("polymask::coverage_crops: null output pointer");
        detail::check_finite_vertices(polygons[p], "polymask::coverage_crops");
    }
    // A crop's work: its sweep's (coverage_work), plus its own bookkeeping.
    const auto work_of = [&](int64_t p) {
        const MaskBox &box = boxes[p];
        return has_cells(p) ? 64.0 + coverage_work(polygons[p], Window{box.row0, box.col0, box.height, box.width})
                            : 64.0;
    };
    detail::for_items(n_polygons, threads, work_of, [&](int64_t p) {
        if (!has_cells(p)) return;
        const MaskBox &box = boxes[p];
        coverage<Value>(polygons[p], Window{box.row0, box.col0, box.height, box.width}, out + offsets[p], box.width,
                        rule, 1, true);
    });
}

void detail::fill_touched_by_area(const Polygon &polygon, const Window &window, uint8_t *out, int64_t row_stride,
                                  FillRule rule, int threads)
{
    detail::check_window("polymask::fill_touched", window, out, row_stride);
    sweep_any(polygon, window, rule, threads, [&](int64_t row, auto *sweep) {
        uint8_t *line = out + (row - window.row0) * row_stride;
        if (sweep == nullptr) {
            std::fill(line, line + window.width, uint8_t{0});
            return;
        }
        sweep->store(line, [](double value) { return static_cast<uint8_t>(value > 0.0 ? 1 : 0); }, false);
    });
}

template void coverage<double>(const Polygon &, const Window &, double *, int64_t, FillRule, int, bool);
template void coverage<float>(const Polygon &, const Window &, float *, int64_t, FillRule, int, bool);
template void coverage<uint8_t>(const Polygon &, const Window &, uint8_t *, int64_t, FillRule, int, bool);
template void coverage_crops<double>(const Polygon *, int64_t, const MaskBox *, double *, const int64_t *, FillRule,
                                     int);
template void coverage_crops<float>(const Polygon *, int64_t, const MaskBox *, float *, const int64_t *, FillRule,
                                    int);
template void coverage_crops<uint8_t>(const Polygon *, int64_t, const MaskBox *, uint8_t *, const int64_t *, FillRule,
                                      int);

}  // namespace polymask
