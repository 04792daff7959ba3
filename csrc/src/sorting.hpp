// sorting.hpp -- the core's one insertion sort, for short or nearly sorted lists.
//
// The sweeps sort a few crossings per row, in nearly the order of the row
// before: an insertion sort is linear there and beats std::sort by far.
// Every sort of that kind in the core (a polygon's edges, the scanline's
// active edges, the coverage sweep's crossings) is this one function, with
// a budget of moves: past it the caller falls back to a full sort, so an
// adversarial input (many swaps per row) stays O(n log n).
#pragma once

#include <cstddef>
#include <limits>

namespace polymask {
namespace detail {

// Items of a plain array, sorted by `less`.  Another layout (the active
// edges' parallel arrays) passes its own adaptor with the same members.
template <class T, class Less>
struct ArrayItems {
    using Held = T;
    T *items;
    size_t count;
    Less less_than;

    size_t size() const { return count; }
    bool less(size_t a, size_t b) const { return less_than(items[a], items[b]); }
    bool less(const Held &held, size_t b) const { return less_than(held, items[b]); }
    Held take(size_t k) const { return items[k]; }
    void move(size_t to, size_t from) { items[to] = items[from]; }
    void put(size_t to, const Held &held) { items[to] = held; }
    const T &operator[](size_t k) const { return items[k]; }
};

struct NoShift {
    template <class Items, class Held>
    void operator()(const Items &, size_t, const Held &) const {}
};
constexpr size_t kUnlimitedMoves = std::numeric_limits<size_t>::max();

// Stable insertion sort of `items` (see ArrayItems for the members it
// uses).  Each item moved one place right past the item being inserted
// costs one of `moves_left`; on_shift(items, j, held) is called just before
// item j moves past `held` (the coverage sweep records each such pair: two
// edges that cross).  Returns true when sorted; false when the budget ran
// out (at zero, even on the last move), leaving a permutation of the items
// for the caller's full sort.  An unlimited budget always sorts.
template <class Items, class OnShift = NoShift>
bool insertion_sort(Items &items, size_t moves_left = kUnlimitedMoves, OnShift on_shift = OnShift())
{
    const size_t n = items.size();
    for (size_t k = 1; k < n; ++k) {
        if (!items.less(k, k - 1)) continue;  // the usual case: already in place
        if (moves_left == 0) return false;
        const typename Items::Held held = items.take(k);
        size_t pos = k;
        do {
            on_shift(items, pos - 1, held);
            items.move(pos, pos - 1);
            --pos;
            --moves_left;
        } while (pos > 0 && moves_left > 0 && items.less(held, pos - 1));
        items.put(pos, held);
        if (moves_left == 0) return false;
    }
    return true;
}

// The same over the array [first, first + count) by `less`.
template <class T, class Less, class OnShift = NoShift>
bool insertion_sort(T *first, size_t count, Less less, size_t moves_left = kUnlimitedMoves,
                    OnShift on_shift = OnShift())
{
    ArrayItems<T, Less> items{first, count, less};
    return insertion_sort(items, moves_left, on_shift);
}

}  // namespace detail
}  // namespace polymask
