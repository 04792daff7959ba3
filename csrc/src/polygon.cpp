// polygon.cpp -- rings, the per-point rule, and the edge table.
#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

#include "polymask/core.hpp"
#include "edges.hpp"

#include "checks.hpp"
#include "sorting.hpp"

namespace polymask {

namespace {

// polygon_census()'s counts, kept per thread: an atomic read-modify-write per
// polygon made and dropped shows in a label image of many small polygons
// (csrc/bench/STEPS.md), where a thread's own relaxed load and store cost next to nothing.  A polygon
// dropped on another thread than made it leaves +1 on one and -1 on the other:
// the sum is right.
struct Counts {
    std::atomic<int64_t> polygons{0}, vertices{0}, bytes{0};
};

// Constant-initialised, so reaching it needs no guard; `state` says whether
// it is registered (1) or its thread is ending (2: count in `retired`).
// Registered threads form a list through `next` and `previous`.
struct Slot {
    Counts counts;
    int state = 0;
    Slot *next = nullptr, *previous = nullptr;
};
thread_local Slot slot;

// The threads' counts: linked in on a thread's first polygon, folded into
// `retired` when the thread ends.  Constant-initialised: no heap block (a
// polygon stays one block, test_allocations); with a trivially destructible
// std::mutex (libstdc++, libc++) it is never destroyed, so it is still there
// for a polygon dropped while the process exits.
struct Registry {
    std::mutex mutex;
    Slot *threads = nullptr;
    Counts retired;
};
Registry registry;

void add(std::atomic<int64_t> &count, int64_t value)
{
    count.store(count.load(std::memory_order_relaxed) + value, std::memory_order_relaxed);
}

// Folds this thread's counts into `retired` as the thread ends.
struct Retire {
    ~Retire()
    {
        const std::lock_guard<std::mutex> lock(registry.mutex);
        registry.retired.polygons.fetch_add(slot.counts.polygons.load(std::memory_order_relaxed));
        registry.retired.vertices.fetch_add(slot.counts.vertices.load(std::memory_order_relaxed));
        registry.retired.bytes.fetch_add(slot.counts.bytes.load(std::memory_order_relaxed));
        (slot.previous ? slot.previous->next : registry.threads) = slot.next;
        if (slot.next) slot.next->previous = slot.previous;
        slot.state = 2;
    }
};

void count(int64_t polygons, int64_t vertices, int64_t bytes)
{
    Slot &mine = slot;
    if (mine.state != 1) {
        if (mine.state == 2) {  // this thread is ending: count where its counts went
            registry.retired.polygons.fetch_add(polygons), registry.retired.vertices.fetch_add(vertices);
            registry.retired.bytes.fetch_add(bytes);
            return;
        }
        {
            const std::lock_guard<std::mutex> lock(registry.mutex);
            mine.next = registry.threads;
            if (mine.next) mine.next->previous = &mine;
            registry.threads = &mine;
        }
        thread_local Retire retire;  // its destructor runs when this thread ends
        (void)retire;
        mine.state = 1;
    }
    if (polygons != 0) add(mine.counts.polygons, polygons);
    if (vertices != 0) add(mine.counts.vertices, vertices);
    if (bytes != 0) add(mine.counts.bytes, bytes);
}

// The bytes of a polygon's one block: its vertices, ring ends and edge table.
constexpr size_t block_bytes(size_t n_vertices, size_t n_rings)
{
    static_assert(sizeof(Edge) % alignof(double) == 0 && alignof(Edge) <= alignof(double) &&
                      alignof(int64_t) <= alignof(double),
                  "vertices, ring ends and edges share one 8-byte aligned block");
    return n_vertices * (sizeof(Edge) + 2 * sizeof(double)) + n_rings * sizeof(int64_t);
}

// The bytes a polygon holds, for the census: none when it has no block.
int64_t held(bool has_block, size_t n_vertices, size_t n_rings)
{
    return has_block ? static_cast<int64_t>(block_bytes(n_vertices, n_rings)) : 0;
}

}  // namespace

PolygonCensus polygon_census()
{
    const std::lock_guard<std::mutex> lock(registry.mutex);
    PolygonCensus census;
    census.polygons = registry.retired.polygons.load();
    census.vertices = registry.retired.vertices.load();
    census.bytes = registry.retired.bytes.load();
    for (const Slot *thread = registry.threads; thread; thread = thread->next) {
        census.polygons += thread->counts.polygons.load(std::memory_order_relaxed);
        census.vertices += thread->counts.vertices.load(std::memory_order_relaxed);
        census.bytes += thread->counts.bytes.load(std::memory_order_relaxed);
    }
    return census;
}

Polygon::Polygon() { count(1, 0, 0); }

Polygon::Polygon(const double *xy, int64_t n_vertices)
{
    const int64_t ring_end = n_vertices;
    build(xy, n_vertices, &ring_end, 1);
    // Counted once built: a constructor that throws made no polygon.
    count(1, vertex_count(), held(storage_ != nullptr, n_vertices_, n_rings_));
}

Polygon::Polygon(const double *xy, int64_t n_vertices, const int64_t *ring_ends, int64_t n_rings)
{
    build(xy, n_vertices, ring_ends, n_rings);
    count(1, vertex_count(), held(storage_ != nullptr, n_vertices_, n_rings_));
}

Polygon::Polygon(const Polygon &other)
    : n_vertices_(other.n_vertices_), n_rings_(other.n_rings_), n_edges_(other.n_edges_)
{
    const size_t bytes = block_bytes(n_vertices_, n_rings_);
    if (bytes > 0) {
        storage_.reset(new unsigned char[bytes]);
        std::uninitialized_copy(edges_by_y(other).begin(), edges_by_y(other).end(),
                                reinterpret_cast<Edge *>(edge_table()));
        std::uninitialized_copy(other.vertices(), other.vertices() + 2 * n_vertices_, vertices());
        std::uninitialized_copy(other.ends(), other.ends() + n_rings_, ends());
    }
    count(1, vertex_count(), held(storage_ != nullptr, n_vertices_, n_rings_));
}

Polygon &Polygon::operator=(const Polygon &other)
{
    if (this != &other) *this = Polygon(other);
    return *this;
}

// A move hands over the storage: one more polygon, no more vertices or bytes.
Polygon::Polygon(Polygon &&other) noexcept
    : storage_(std::move(other.storage_)), n_vertices_(other.n_vertices_), n_rings_(other.n_rings_),
      n_edges_(other.n_edges_)
{
    other.n_vertices_ = other.n_rings_ = other.n_edges_ = 0;
    count(1, 0, 0);
}

Polygon &Polygon::operator=(Polygon &&other) noexcept
{
    if (&other != this) {
        // What this polygon held is freed; what `other` held changes hands.
        count(0, -vertex_count(), -held(storage_ != nullptr, n_vertices_, n_rings_));
        storage_ = std::move(other.storage_);
        n_vertices_ = other.n_vertices_, n_rings_ = other.n_rings_, n_edges_ = other.n_edges_;
        other.n_vertices_ = other.n_rings_ = other.n_edges_ = 0;
    }
    return *this;
}

Polygon::~Polygon() { count(-1, -vertex_count(), -held(storage_ != nullptr, n_vertices_, n_rings_)); }

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

    n_vertices_ = static_cast<size_t>(n_vertices);
    n_rings_ = static_cast<size_t>(n_rings);
    n_edges_ = 0;
    const size_t bytes = block_bytes(n_vertices_, n_rings_);
    storage_.reset(bytes > 0 ? new unsigned char[bytes] : nullptr);
    double *const own_xy = vertices();
    int64_t *const own_ends = ends();
    std::uninitialized_copy(xy, xy + 2 * n_vertices, own_xy);
    std::uninitialized_copy(ring_ends, ring_ends + n_rings, own_ends);

    // At most one edge per vertex: the block has room for them all.
    Edge *const table = reinterpret_cast<Edge *>(edge_table());
    ring_start = 0;
    for (int64_t r = 0; r < n_rings; ++r) {
        const int64_t ring_end = own_ends[r];
        for (int64_t i = ring_start, j = ring_end - 1; i < ring_end; j = i++) {
            const double xi = own_xy[2 * i], yi = own_xy[2 * i + 1];
            const double xj = own_xy[2 * j], yj = own_xy[2 * j + 1];
            // Horizontal edges never cross a row; edges with a NaN ordinate
            // never satisfy the crossing test's x comparison either.
            if (!(yi < yj) && !(yi > yj)) continue;
            const double y_low = std::min(yi, yj), y_high = std::max(yi, yj);
            new (table + n_edges_++) Edge{xi, yi, xj, yj, y_low, y_high, (yi > yj) ? 1 : -1};
        }
        ring_start = ring_end;
    }
    const auto lower = [](const Edge &a, const Edge &b) { return a.y_low < b.y_low; };
    if (n_edges_ <= 32) {
        // A stable insertion sort: stable_sort would allocate a buffer for
        // every small polygon of a label image.
        detail::insertion_sort(table, n_edges_, lower);
    } else {
        std::stable_sort(table, table + n_edges_, lower);
    }
}

bool Polygon::contains(double px, double py, FillRule rule) const
{
    int64_t ring_start = 0;
    bool parity = false;
    int winding = 0;
    for (int64_t ring_end : ring_ends()) {
        const double *ring = vertices() + 2 * ring_start;
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
