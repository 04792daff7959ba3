// coverage_integrate.hpp -- the arithmetic heart of the coverage sweep: the
// two members of RowSweep (coverage_row.hpp, where each is documented) that
// take a piece of the strip apart into crossings (add_piece) and integrate an
// edge's clamped abscissa over the cells it passes (integrate).  Internal:
// included by coverage.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "coverage_row.hpp"

namespace polymask::detail::coverage_sweep {

// See RowSweep::add_piece in coverage_row.hpp.
template <class Wide>
POLYMASK_FLATTEN void RowSweep<Wide>::add_piece(double ya, double yb)
{
    if (current_.empty()) return;
    ticker_.tick(static_cast<int64_t>(current_.size()));
    for (Crossing &c : current_) {
        const EdgeState &edge = state_[c.slot];
        const Wide x_top = edge.x_next;
        const Wide x_bottom = yb == y_bottom_ ? edge.x_strip_bottom : segments_[c.segment].x_at(yb);
        c.key = static_cast<double>(x_top);
        c.other = static_cast<double>(x_bottom);
        c.x_top = x_top;
        c.x_bottom = x_bottom;
    }
    sort_mostly_sorted(current_, crossing_less<Crossing>);
    const bool even_odd = rule_ == FillRule::even_odd;
    int left = 0;  // edges (even-odd) or winding (nonzero) left of the current one
    bool crossing = false;
    for (size_t k = 0; k < current_.size(); ++k) {
        Crossing &c = current_[k];
        c.left = left;
        c.index = static_cast<int32_t>(k);
        const int winding = segments_[c.segment].winding;
        EdgeState &edge = state_[c.slot];
        const int sign = boundary_sign(left, winding, even_odd);
        if (sign != edge.sign) {
            flush(edge, ya, c.x_top);
            edge.sign = sign;
        }
        left += even_odd ? 1 : winding;
        crossing = crossing || (k > 0 && current_[k - 1].other > c.other);
    }
    // No two edges cross inside the piece (the usual case: no adjacent
    // pair is out of order at yb): each edge keeps its sign to yb.
    if (!crossing) {
        for (const Crossing &c : current_) state_[c.slot].x_next = c.x_bottom;
        return;
    }
    events_.clear();
    for (Crossing &c : current_) std::swap(c.key, c.other);
    insertion_sort(current_, [&](const Crossing &l, const Crossing &r) {
        // l was left of r at ya and is right of it at yb: they cross.
        const double gap_top = r.other - l.other;  // >= 0
        const double gap_bottom = l.key - r.key;   // >= 0
        double y = ya + (yb - ya) * (gap_top / (gap_top + gap_bottom));
        y = y > ya ? (y < yb ? y : yb) : ya;  // also maps NaN (identical edges) to ya
        events_.push_back({y, l.index, even_odd ? 1 : segments_[r.segment].winding});
        events_.push_back({y, r.index, even_odd ? -1 : -segments_[l.segment].winding});
        ticker_.tick(2);
    });
    // Each edge's crossings, by its position at ya (a counting sort:
    // std::sort of all of them was a fifth of a piece's time), then by
    // ordinate within an edge (few each, as a rule).
    const size_t n_edges = current_.size();
    first_event_.assign(n_edges + 1, 0);
    for (const Event &event : events_) ++first_event_[static_cast<size_t>(event.index) + 1];
    for (size_t k = 0; k < n_edges; ++k) first_event_[k + 1] += first_event_[k];
    by_edge_.resize(events_.size());
    fill_at_.assign(first_event_.begin(), first_event_.end() - 1);
    for (const Event &event : events_) by_edge_[fill_at_[static_cast<size_t>(event.index)]++] = event;
    ticker_.tick(static_cast<int64_t>(events_.size()));
    for (const Crossing &c : current_) {
        const Segment &seg = segments_[c.segment];
        EdgeState &edge = state_[c.slot];
        Event *const begin = by_edge_.data() + first_event_[static_cast<size_t>(c.index)];
        Event *const end = by_edge_.data() + first_event_[static_cast<size_t>(c.index) + 1];
        const auto earlier = [](const Event &a, const Event &b) { return a.y < b.y; };
        if (end - begin > 16) {
            std::sort(begin, end, earlier);
        } else {
            for (Event *e = begin + 1; e < end; ++e) {
                const Event event = *e;
                Event *at = e;
                for (; at > begin && earlier(event, at[-1]); --at) *at = at[-1];
                *at = event;
            }
        }
        int count = c.left;
        for (const Event *e = begin; e != end; ++e) {
            count += e->delta;
            const int sign = boundary_sign(count, seg.winding, even_odd);
            if (sign != edge.sign) {
                const double y = e->y;
                flush(edge, y, y == ya ? c.x_top : (y == yb ? c.x_bottom : seg.x_at(y)));
                edge.sign = sign;
            }
        }
        edge.x_next = c.x_bottom;
    }
}

// See RowSweep::integrate in coverage_row.hpp.
template <class Wide>
void RowSweep<Wide>::integrate(const EdgeState &edge, double y0, double y1, int sign, Wide a, Wide b)
{
    const double height = y1 - y0;
    if (sign == 0 || !(height > 0.0)) return;
    const double signed_height = sign * height;
    // Columns in absolute terms, clamped only far away: what is summed,
    // and in which order, must not depend on the window.
    constexpr int64_t far = int64_t{1} << 60;
    const int64_t first = detail::ceil_clamped(static_cast<double>(std::min(a, b) - 0.5), -far, far);
    const int64_t last = floor_clamped(static_cast<double>(std::max(a, b) + 0.5), -far, far);
    const int64_t hi = window_.col0 + window_.width;
    base_ += 0.5 * signed_height;
    // The step is at last + 1: inside the edge's marked run or just after
    // it (the run is pushed below when not), as store() requires.
    if (last + 1 < hi) {
        if (last + 1 > window_.col0) {
            step_[last + 1 - window_.col0] -= signed_height;
        } else {
            steps_left_.push_back({last + 1, -signed_height});
        }
    }
    const int64_t begin = std::max(first, window_.col0), end = std::min(last, hi - 1);
    if (begin > end) return;
    ticker_.tick(end - begin + 1);
    // Abscissae relative to the edge's own first column, formed once in
    // Wide: small numbers from here on, so plain double loses nothing
    // that matters, and the anchor (unlike the window) is the same for
    // every window, so windows equal slices bit for bit.
    const int64_t anchor = first;
    const Wide origin = static_cast<Wide>(anchor);
    double low = static_cast<double>(a - origin), high = static_cast<double>(b - origin);
    if (low > high) std::swap(low, high);
    const double inverse_span = high - low > 0x1p-900 ? 1.0 / (high - low) : 0.0;
    double *area = area_.data() + (begin - window_.col0);
    // These columns are nearly always marked already; on absurd input (a
    // slope that overflows) x need not stay between the piece's ends, and
    // area_ and crossed_ must only ever be written inside touched runs,
    // which store() clears.
    // Inside the run sweep() marked for this edge (nearly always): a
    // second, overlapping run would only make store()'s sort costlier.
    const Columns run{begin - window_.col0, end - window_.col0};
    if (run.first < edge.marked_first || run.last > edge.marked_last) touched_.push_back(run);
    if (!exact_zeros_) {
        std::fill(crossed_.begin() + (begin - window_.col0), crossed_.begin() + (end - window_.col0) + 1,
                  uint8_t{1});
    }
    for (int64_t k = 0; k <= end - begin; ++k) {
        const double offset = static_cast<double>(begin + k - anchor);
        area[k] += signed_height * (cell_mean(low - offset, high - offset, inverse_span) - 0.5);
    }
}

}  // namespace polymask::detail::coverage_sweep
