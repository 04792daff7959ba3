// points.cpp -- the contract at arbitrary points (csrc/include/polymask/points.hpp).
//
// contains_points and contains_grid run many queries of one PointIndex
// (point_index.cpp) on the threading layer (parallel.hpp), in blocks of
// points or rows; which_polygon asks a LabelIndex (point_labels.cpp).
// Each block ticks the interrupt check by the work its queries did, so
// Ctrl-C lands soon however crowded the bands a block meets.
#include "polymask/points.hpp"

#include <algorithm>
#include <cmath>

#include "cell_geometry.hpp"  // detail::InterruptTicker
#include "point_blocks.hpp"

namespace polymask {
void contains_points(const Polygon &polygon, const double *x, const double *y, int64_t n, uint8_t *out,
                     FillRule rule, int threads)
{
    if (n > 0) contains_points(PointIndex(polygon), x, y, n, out, rule, threads);
}

void contains_points(const PointIndex &index, const double *x, const double *y, int64_t n, uint8_t *out,
                     FillRule rule, int threads)
{
    // A query's cost in pixel units: finding the bands, then a few per edge tested.
    const double work_per_point = 12.0 + 4.0 * index.mean_query_work();
    detail::for_point_blocks(n, work_per_point, threads, [&](int64_t begin, int64_t end) {
        detail::InterruptTicker ticker;
        for (int64_t k = begin; k < end; ++k) {
            int64_t work = 1;
            out[k] = index.contains(x[k], y[k], rule, work) ? 1 : 0;
            ticker.tick(work);
        }
    });
}

void contains_grid(const Polygon &polygon, const double *x, int64_t width, const double *y, int64_t height,
                   uint8_t *out, FillRule rule, int threads)
{
    if (width > 0 && height > 0) contains_grid(PointIndex(polygon), x, width, y, height, out, rule, threads);
}

void contains_grid(const PointIndex &index, const double *x, int64_t width, const double *y, int64_t height,
                   uint8_t *out, FillRule rule, int threads)
{
    if (width <= 0 || height <= 0) return;
    const double crossings = 4.0 * index.mean_query_work();
    const double work_per_row = static_cast<double>(width) + 8.0 * crossings * std::log2(2.0 + width);
    detail::for_point_blocks(height, work_per_row, threads, [&](int64_t begin, int64_t end) {
        detail::InterruptTicker ticker;
        std::vector<double> x_cross;
        std::vector<int> winding;
        std::vector<int64_t> change(static_cast<size_t>(width) + 1);
        for (int64_t r = begin; r < end; ++r) {
            uint8_t *row = out + r * width;
            index.row_crossings(y[r], x_cross, winding);
            ticker.tick(1 + static_cast<int64_t>(x_cross.size()) + width / 16);
            if (x_cross.empty()) {
                std::fill(row, row + width, uint8_t(0));
                continue;
            }
            // Crossing k counts for the columns with x[c] < x_cross[k]: the first
            // `columns` of them, x being sorted.  A running sum of the changes
            // gives each column its count (even-odd) or winding (nonzero).
            std::fill(change.begin(), change.end(), int64_t(0));
            for (size_t k = 0; k < x_cross.size(); ++k) {
                const int64_t columns = std::lower_bound(x, x + width, x_cross[k]) - x;
                const int step = rule == FillRule::even_odd ? 1 : winding[k];
                change[0] += step;
                change[columns] -= step;
            }
            int64_t count = 0;
            for (int64_t c = 0; c < width; ++c) {
                count += change[c];
                row[c] = (rule == FillRule::even_odd ? (count & 1) != 0 : count != 0) ? 1 : 0;
            }
        }
    });
}

void which_polygon(const Polygon *polygons, int64_t n_polygons, const double *x, const double *y, int64_t n,
                   int64_t *out, FillRule rule, int threads)
{
    // The polygons' rings, flat, as a LabelIndex reads them.
    std::vector<double> xy;
    std::vector<int64_t> ring_ends, polygon_ends;
    for (int64_t p = 0; p < n_polygons; ++p) {
        const int64_t base = static_cast<int64_t>(xy.size() / 2);
        xy.insert(xy.end(), polygons[p].xy().begin(), polygons[p].xy().end());
        for (int64_t end : polygons[p].ring_ends()) ring_ends.push_back(base + end);
        polygon_ends.push_back(static_cast<int64_t>(ring_ends.size()));
    }
    const LabelIndex index(xy.data(), static_cast<int64_t>(xy.size() / 2), ring_ends.data(),
                           static_cast<int64_t>(ring_ends.size()), polygon_ends.data(), n_polygons);
    index.which(x, y, n, out, rule, threads);
}

}  // namespace polymask
