// polygon.cpp -- rings, the per-point rule, and the edge table.
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "polymask/core.hpp"

#include "checks.hpp"

namespace polymask {

Polygon::Polygon(const double *xy, int64_t n_vertices)
{
    const int64_t ring_end = n_vertices;
    build(xy, n_vertices, &ring_end, 1);
}

Polygon::Polygon(const double *xy, int64_t n_vertices, const int64_t *ring_ends, int64_t n_rings)
{
    build(xy, n_vertices, ring_ends, n_rings);
}

void Polygon::build(const double *xy, int64_t n_vertices, const int64_t *ring_ends, int64_t n_rings)
{
    if (n_vertices < 0 || n_rings < 0) {
        throw std::invalid_argument("polymask::Polygon: negative vertex or ring count");
    }
    if (n_vertices > 0 && xy == nullptr) {
        throw std::invalid_argument("polymask::Polygon: null vertex pointer");
    }
    detail::check_ends("polymask::Polygon", "ring_ends", ring_ends, n_rings, n_vertices, "vertex count");
    int64_t ring_start = 0;
    for (int64_t k = 0; k < n_rings; ++k) {
        // The shared predicate counts vertices in int; edge indices are int32.
        if (ring_ends[k] - ring_start > std::numeric_limits<int32_t>::max() / 2) {
            throw std::length_error("polymask::Polygon: a ring has too many vertices");
        }
        ring_start = ring_ends[k];
    }
    if (n_vertices > std::numeric_limits<int32_t>::max() / 2) {
        throw std::length_error("polymask::Polygon: too many vertices");
    }

    xy_.assign(xy, xy + 2 * n_vertices);
    ring_ends_.assign(ring_ends, ring_ends + n_rings);

    edges_.clear();
    edges_.reserve(static_cast<size_t>(n_vertices));
    ring_start = 0;
    for (int64_t ring_end : ring_ends_) {
        for (int64_t i = ring_start, j = ring_end - 1; i < ring_end; j = i++) {
            const double xi = xy_[2 * i], yi = xy_[2 * i + 1];
            const double xj = xy_[2 * j], yj = xy_[2 * j + 1];
            // Horizontal edges never cross a row; edges with a NaN ordinate
            // never satisfy the crossing test's x comparison either.
            if (!(yi < yj) && !(yi > yj)) continue;
            const double y_low = std::min(yi, yj), y_high = std::max(yi, yj);
            edges_.push_back({xi, yi, xj, yj, y_low, y_high, (yi > yj) ? 1 : -1});
        }
        ring_start = ring_end;
    }
    std::stable_sort(edges_.begin(), edges_.end(),
                     [](const Edge &a, const Edge &b) { return a.y_low < b.y_low; });
}

bool Polygon::contains(double px, double py, FillRule rule) const
{
    int64_t ring_start = 0;
    bool parity = false;
    int winding = 0;
    for (int64_t ring_end : ring_ends_) {
        const double *ring = xy_.data() + 2 * ring_start;
        const int n = static_cast<int>(ring_end - ring_start);
        if (rule == FillRule::even_odd) {
            parity ^= pm_ring_parity(ring, n, px, py);
        } else {
            winding += pm_ring_winding(ring, n, px, py);
        }
        ring_start = ring_end;
    }
    return rule == FillRule::even_odd ? parity : winding != 0;
}

}  // namespace polymask
