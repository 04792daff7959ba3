// point_labels.cpp -- LabelIndex (csrc/include/polymask/points.hpp): which
// of many polygons holds a point, each point testing only the polygons
// whose box holds it.
//
// The boxes are filed in a grid of cells over all of them (about one cell a
// polygon; coarser while a few big boxes would be filed in too many cells),
// each cell's polygons last first, so the first that holds a point is its
// label.  A grid query files the boxes by rows instead, and paints each
// polygon's spans of a row in order, the later over the earlier.
#include "polymask/points.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>

#include "bounds.hpp"
#include "cell_geometry.hpp"  // detail::InterruptTicker
#include "checks.hpp"
#include "parallel.hpp"
#include "point_blocks.hpp"
#include "x_margin.hpp"

namespace polymask {
namespace {

constexpr int64_t kSmallEdges = 32;          // up to this many edges a polygon is tested edge by edge
constexpr int64_t kMaxCells = int64_t(1) << 22;
constexpr uint32_t kNoIndex = ~uint32_t(0);

// Polygon ids filed in cells: cell c holds ids[start[c], start[c + 1]).
struct Cells {
    std::vector<int64_t> start;
    std::vector<uint32_t> ids;
};

}  // namespace

struct POLYMASK_HIDDEN LabelIndex::Parts {
    const double *xy = nullptr;
    const int64_t *ring_ends = nullptr, *polygon_ends = nullptr;
    int64_t n_polygons = 0;
    struct Box {
        double x_low, x_high;  // the vertices' x range, widened by the margin of x_cross's rounding
        double y_low, y_high;  // the edges' y range: [y_low, y_high) holds every row an edge crosses
    };
    std::vector<Box> boxes;
    std::vector<int64_t> edge_counts;
    std::vector<uint32_t> slot;  // into indexes, or kNoIndex
    std::vector<PointIndex> indexes;  // by value: a query follows one pointer, to the bands
    double x0 = 0, y0 = 0, x_scale = 0, y_scale = 0;  // the grid of cells
    int64_t nx = 1, ny = 1;
    Cells cells;                      // polygons with a finite box, last first
    std::vector<uint32_t> unbounded;  // polygons whose x_cross may overflow, last first
    double query_work = 1;            // pixel units a point costs, about
    mutable std::once_flag rows_built;
    mutable Cells rows;               // polygons by bands of rows, first first
    mutable double row_y0 = 0, row_scale = 0;

    int64_t first_ring(int64_t p) const { return p > 0 ? polygon_ends[p - 1] : 0; }
    int64_t ring_start(int64_t r) const { return r > 0 ? ring_ends[r - 1] : 0; }
    static int64_t cell_of(double v, double origin, double scale, int64_t count)
    {
        const double at = (v - origin) * scale;
        return at > 0 ? std::min(count - 1, static_cast<int64_t>(std::min(at, 9e15))) : 0;
    }

    bool holds(int64_t p, double px, double py, FillRule rule, int64_t &work) const
    {
        const Box &box = boxes[p];
        ++work;
        if (!(py >= box.y_low && py < box.y_high && px >= box.x_low && px <= box.x_high)) return false;
        if (slot[p] != kNoIndex) return indexes[slot[p]].contains(px, py, rule, work);
        bool parity = false;
        int winding = 0;
        for (int64_t r = first_ring(p); r < polygon_ends[p]; ++r) {
            const double *ring = xy + 2 * ring_start(r);
            const int n = static_cast<int>(ring_ends[r] - ring_start(r));
            if (rule == FillRule::even_odd) {
                parity ^= pm_ring_parity(ring, n, px, py);
            } else {
                winding += pm_ring_winding(ring, n, px, py);
            }
            work += n;
        }
        return rule == FillRule::even_odd ? parity : winding != 0;
    }

    // Every crossing of polygon p with the row y = py, as PointIndex::row_crossings gives them.
    void crossings(int64_t p, double py, std::vector<std::pair<double, int>> &found, std::vector<double> &x_cross,
                   std::vector<int> &winding) const
    {
        found.clear();
        if (slot[p] != kNoIndex) {
            indexes[slot[p]].row_crossings(py, x_cross, winding);
            for (size_t k = 0; k < x_cross.size(); ++k) found.emplace_back(x_cross[k], winding[k]);
            return;
        }
        for (int64_t r = first_ring(p); r < polygon_ends[p]; ++r) {
            const int64_t begin = ring_start(r), end = ring_ends[r];
            for (int64_t i = begin, j = end - 1; i < end; j = i++) {
                const double xi = xy[2 * i], yi = xy[2 * i + 1], xj = xy[2 * j], yj = xy[2 * j + 1];
                if (pm_edge_crosses_row(yi, yj, py)) found.emplace_back(pm_x_cross(xi, yi, xj, yj, py), yi > yj ? 1 : -1);
            }
        }
    }

    void build(int threads);
    void file_in_cells(detail::InterruptTicker &ticker);
    void build_rows() const;
};

void LabelIndex::Parts::build(int threads)
{
    detail::InterruptTicker ticker;
    boxes.resize(static_cast<size_t>(n_polygons));
    edge_counts.assign(static_cast<size_t>(n_polygons), 0);
    slot.assign(static_cast<size_t>(n_polygons), kNoIndex);
    std::vector<uint32_t> large;
    for (int64_t p = 0; p < n_polygons; ++p) {
        detail::CrossingBox crossing;
        for (int64_t r = first_ring(p); r < polygon_ends[p]; ++r) {
            const int64_t begin = ring_start(r), end = ring_ends[r];
            if (end - begin > std::numeric_limits<int32_t>::max() / 2) {
                throw std::length_error("polymask::LabelIndex: a ring has too many vertices");
            }
            for (int64_t i = begin, j = end - 1; i < end; j = i++) {
                crossing.add(xy[2 * i], xy[2 * i + 1], xy[2 * j], xy[2 * j + 1]);
            }
            ticker.tick(end - begin + 1);
        }
        const int64_t edges = crossing.edges;
        const detail::Bounds &box = crossing.box;
        edge_counts[p] = edges;
        if (edges == 0) {
            boxes[p] = Box{box.x_min, box.x_max, box.y_min, box.y_max};  // inverted: holds no point
            continue;
        }
        const double margin = detail::x_cross_margin(box.x_min, box.x_max, box.y_max - box.y_min, crossing.least_rise);
        boxes[p] = Box{box.x_min - margin, box.x_max + margin, box.y_min, box.y_max};
        if (edges > kSmallEdges) large.push_back(static_cast<uint32_t>(p));
    }
    std::vector<std::unique_ptr<PointIndex>> built(large.size());  // PointIndex has no empty state to fill in
    detail::for_items(
        static_cast<int64_t>(large.size()), threads, [&](int64_t k) { return 64.0 * edge_counts[large[k]]; },
        [&](int64_t k) {
            const int64_t p = large[k], ring0 = first_ring(p), base = ring_start(ring0);
            std::vector<int64_t> ends;
            for (int64_t r = ring0; r < polygon_ends[p]; ++r) ends.push_back(ring_ends[r] - base);
            const int64_t n_vertices = ends.empty() ? 0 : ends.back();
            const Polygon polygon(xy + 2 * base, n_vertices, ends.data(), static_cast<int64_t>(ends.size()));
            built[k] = std::make_unique<PointIndex>(polygon);
        });
    indexes.reserve(built.size());
    for (auto &index : built) indexes.push_back(std::move(*index));
    for (size_t k = 0; k < large.size(); ++k) slot[large[k]] = static_cast<uint32_t>(k);
    file_in_cells(ticker);
    // A point's cost: its cell's boxes, and the polygons' own tests.
    double tests = 0;
    for (int64_t p = 0; p < n_polygons; ++p) {
        tests += slot[p] != kNoIndex ? indexes[slot[p]].mean_query_work() : static_cast<double>(edge_counts[p]);
    }
    const double cells_count = static_cast<double>(nx * ny);
    const double per_cell = static_cast<double>(cells.ids.size()) / cells_count;
    query_work = 16.0 + 2.0 * per_cell + 4.0 * std::min(per_cell, 4.0) * tests / std::max<double>(1, n_polygons) +
                 4.0 * static_cast<double>(unbounded.size());
}

void LabelIndex::Parts::file_in_cells(detail::InterruptTicker &ticker)
{
    const double inf = std::numeric_limits<double>::infinity();
    double x_low = inf, x_high = -inf, y_low = inf, y_high = -inf;
    int64_t filed = 0;
    for (int64_t p = n_polygons; p-- > 0;) {
        const Box &box = boxes[p];
        if (!(box.y_low < box.y_high)) continue;
        if (!std::isfinite(box.x_low) || !std::isfinite(box.x_high)) {
            unbounded.push_back(static_cast<uint32_t>(p));
            continue;
        }
        ++filed;
        x_low = std::min(x_low, box.x_low), x_high = std::max(x_high, box.x_high);
        y_low = std::min(y_low, box.y_low), y_high = std::max(y_high, box.y_high);
    }
    const double width = x_high - x_low, height = y_high - y_low;
    const int64_t wanted = std::max<int64_t>(1, std::min(kMaxCells, filed));
    const double aspect = width > 0 && height > 0 && std::isfinite(width / height) ? width / height : 1.0;
    nx = std::max<int64_t>(1, std::min<int64_t>(wanted, std::llround(std::sqrt(wanted * aspect))));
    ny = std::max<int64_t>(1, std::min<int64_t>(wanted, wanted / nx));
    x0 = std::isfinite(x_low) ? x_low : 0.0, y0 = std::isfinite(y_low) ? y_low : 0.0;
    for (;;) {  // coarser while big boxes would be filed in too many cells
        x_scale = width > 0 && std::isfinite(width) ? static_cast<double>(nx) / width : 0.0;
        y_scale = height > 0 && std::isfinite(height) ? static_cast<double>(ny) / height : 0.0;
        int64_t copies = 0;
        for (int64_t p = 0; p < n_polygons; ++p) {
            const Box &box = boxes[p];
            if (!(box.y_low < box.y_high) || !std::isfinite(box.x_low) || !std::isfinite(box.x_high)) continue;
            copies += (cell_of(box.x_high, x0, x_scale, nx) - cell_of(box.x_low, x0, x_scale, nx) + 1) *
                      (cell_of(box.y_high, y0, y_scale, ny) - cell_of(box.y_low, y0, y_scale, ny) + 1);
        }
        ticker.tick(n_polygons);
        if (copies <= 4 * filed + nx * ny || nx * ny == 1) break;
        nx = std::max<int64_t>(1, nx / 2), ny = std::max<int64_t>(1, ny / 2);
    }
    cells.start.assign(static_cast<size_t>(nx * ny) + 1, 0);
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1) {
            for (int64_t c = 0; c < nx * ny; ++c) cells.start[c + 1] += cells.start[c];
            cells.ids.resize(static_cast<size_t>(cells.start[nx * ny]));
        }
        for (int64_t p = n_polygons; p-- > 0;) {  // last first
            const Box &box = boxes[p];
            if (!(box.y_low < box.y_high) || !std::isfinite(box.x_low) || !std::isfinite(box.x_high)) continue;
            const int64_t cx0 = cell_of(box.x_low, x0, x_scale, nx), cx1 = cell_of(box.x_high, x0, x_scale, nx);
            const int64_t cy0 = cell_of(box.y_low, y0, y_scale, ny), cy1 = cell_of(box.y_high, y0, y_scale, ny);
            for (int64_t cy = cy0; cy <= cy1; ++cy) {
                for (int64_t cx = cx0; cx <= cx1; ++cx) {
                    const int64_t c = cy * nx + cx;
                    if (pass == 0) {
                        ++cells.start[c + 1];
                    } else {
                        cells.ids[static_cast<size_t>(cells.start[c]++)] = static_cast<uint32_t>(p);
                    }
                }
            }
            ticker.tick(1);
        }
    }
    for (int64_t c = nx * ny; c > 0; --c) cells.start[c] = cells.start[c - 1];
    cells.start[0] = 0;
}

// The polygons by bands of rows, for the grid queries: first first, so
// that later polygons paint over earlier ones.
void LabelIndex::Parts::build_rows() const
{
    double y_low = std::numeric_limits<double>::infinity(), y_high = -y_low;
    int64_t filed = 0;
    for (const Box &box : boxes) {
        if (!(box.y_low < box.y_high)) continue;
        ++filed, y_low = std::min(y_low, box.y_low), y_high = std::max(y_high, box.y_high);
    }
    const double height = y_high - y_low;
    int64_t bands = std::max<int64_t>(1, std::min(kMaxCells, filed));
    row_y0 = std::isfinite(y_low) ? y_low : 0.0;
    detail::InterruptTicker ticker;
    for (;;) {
        row_scale = height > 0 && std::isfinite(height) ? static_cast<double>(bands) / height : 0.0;
        int64_t copies = 0;
        for (const Box &box : boxes) {
            if (box.y_low < box.y_high) {
                copies += cell_of(box.y_high, row_y0, row_scale, bands) - cell_of(box.y_low, row_y0, row_scale, bands) + 1;
            }
        }
        ticker.tick(n_polygons);
        if (copies <= 4 * filed + bands || bands == 1) break;
        bands /= 2;
    }
    rows.start.assign(static_cast<size_t>(bands) + 1, 0);
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1) {
            for (int64_t b = 0; b < bands; ++b) rows.start[b + 1] += rows.start[b];
            rows.ids.resize(static_cast<size_t>(rows.start[bands]));
        }
        for (int64_t p = 0; p < n_polygons; ++p) {
            const Box &box = boxes[p];
            if (!(box.y_low < box.y_high)) continue;
            const int64_t b1 = cell_of(box.y_high, row_y0, row_scale, bands);
            for (int64_t b = cell_of(box.y_low, row_y0, row_scale, bands); b <= b1; ++b) {
                if (pass == 0) {
                    ++rows.start[b + 1];
                } else {
                    rows.ids[static_cast<size_t>(rows.start[b]++)] = static_cast<uint32_t>(p);
                }
            }
            ticker.tick(1);
        }
    }
    for (int64_t b = bands; b > 0; --b) rows.start[b] = rows.start[b - 1];
    rows.start[0] = 0;
}

LabelIndex::LabelIndex(const double *xy, int64_t n_vertices, const int64_t *ring_ends, int64_t n_rings,
                       const int64_t *polygon_ends, int64_t n_polygons)
    : parts_(std::make_unique<Parts>())
{
    detail::check_ends("polymask::LabelIndex", "ring_ends", ring_ends, n_rings, n_vertices, "vertex count");
    detail::check_ends("polymask::LabelIndex", "polygon_ends", polygon_ends, n_polygons, n_rings, "ring count");
    if (n_vertices > 0 && xy == nullptr) throw std::invalid_argument("polymask::LabelIndex: null vertex pointer");
    if (n_polygons >= int64_t(1) << 32) throw std::length_error("polymask::LabelIndex: too many polygons");
    parts_->xy = xy, parts_->ring_ends = ring_ends, parts_->polygon_ends = polygon_ends;
    parts_->n_polygons = n_polygons;
    // One chunk of the threading layer: the build's ticks poll Ctrl-C.
    detail::parallel_for(1, 1, [&](int64_t) { parts_->build(0); });
}

LabelIndex::~LabelIndex() = default;

int64_t LabelIndex::polygon_count() const { return parts_->n_polygons; }
int64_t LabelIndex::indexed_polygons() const { return static_cast<int64_t>(parts_->indexes.size()); }

int64_t LabelIndex::memory_bytes() const
{
    const Parts &parts = *parts_;
    int64_t bytes = static_cast<int64_t>(parts.boxes.capacity() * sizeof(Parts::Box) +
                                         parts.edge_counts.capacity() * 8 + parts.slot.capacity() * 4 +
                                         parts.cells.start.capacity() * 8 + parts.cells.ids.capacity() * 4 +
                                         parts.rows.start.capacity() * 8 + parts.rows.ids.capacity() * 4);
    for (const auto &index : parts.indexes) bytes += index.memory_bytes() + static_cast<int64_t>(sizeof(PointIndex));
    return bytes;
}

void LabelIndex::which(const double *x, const double *y, int64_t n, int64_t *out, FillRule rule, int threads) const
{
    const Parts &parts = *parts_;
    detail::for_point_blocks(n, parts.query_work, threads, [&](int64_t begin, int64_t end) {
        detail::InterruptTicker ticker;
        for (int64_t k = begin; k < end; ++k) {
            const double px = x[k], py = y[k];
            int64_t work = 1, label = 0;
            const int64_t c = Parts::cell_of(py, parts.y0, parts.y_scale, parts.ny) * parts.nx +
                              Parts::cell_of(px, parts.x0, parts.x_scale, parts.nx);
            for (int64_t i = parts.cells.start[c]; i < parts.cells.start[c + 1]; ++i) {
                if (parts.holds(parts.cells.ids[i], px, py, rule, work)) {
                    label = parts.cells.ids[i] + 1;
                    break;
                }
            }
            for (uint32_t p : parts.unbounded) {  // last first: only later polygons than the label can win
                if (p + 1 <= label) break;
                if (parts.holds(p, px, py, rule, work)) {
                    label = p + 1;
                    break;
                }
            }
            out[k] = label;
            ticker.tick(work);
        }
    });
}

void LabelIndex::which_grid(const double *x, int64_t width, const double *y, int64_t height, int64_t *out,
                            FillRule rule, int threads) const
{
    if (width <= 0 || height <= 0) return;
    const Parts &parts = *parts_;
    detail::parallel_for(1, 1, [&](int64_t) { std::call_once(parts.rows_built, [&] { parts.build_rows(); }); });
    const int64_t bands = static_cast<int64_t>(parts.rows.start.size()) - 1;
    const double per_band = static_cast<double>(parts.rows.ids.size()) / static_cast<double>(bands);
    const double work_per_row = static_cast<double>(width) + 16.0 * per_band * std::log2(2.0 + width);
    detail::for_point_blocks(height, work_per_row, threads, [&](int64_t begin, int64_t end) {
        detail::InterruptTicker ticker;
        std::vector<std::pair<double, int>> found;
        std::vector<double> x_cross;
        std::vector<int> winding;
        for (int64_t r = begin; r < end; ++r) {
            int64_t *row = out + r * width;
            std::fill(row, row + width, int64_t(0));
            const double py = y[r];
            const int64_t b = Parts::cell_of(py, parts.row_y0, parts.row_scale, bands);
            int64_t work = 1 + width / 16;
            for (int64_t i = parts.rows.start[b]; i < parts.rows.start[b + 1]; ++i) {
                const int64_t p = parts.rows.ids[i];
                const Parts::Box &box = parts.boxes[p];
                ++work;
                if (!(py >= box.y_low && py < box.y_high)) continue;
                parts.crossings(p, py, found, x_cross, winding);
                std::sort(found.begin(), found.end(),
                          [](const std::pair<double, int> &a, const std::pair<double, int> &c) { return a.first < c.first; });
                // Column c counts the crossings with x[c] < x_cross: between the
                // k-th and (k+1)-th crossing in x order, those from k on.
                int count = static_cast<int>(found.size()), turns = 0;
                for (const auto &crossing : found) turns += crossing.second;
                int64_t from = 0;
                for (const auto &crossing : found) {
                    const int64_t to = std::lower_bound(x, x + width, crossing.first) - x;
                    const bool inside = rule == FillRule::even_odd ? (count & 1) != 0 : turns != 0;
                    if (inside) std::fill(row + from, row + std::max(from, to), p + 1);
                    from = std::max(from, to), --count, turns -= crossing.second;
                }
                work += 4 * static_cast<int64_t>(found.size());
            }
            ticker.tick(work);
        }
    });
}

}  // namespace polymask
