// core.hpp -- the public C++ interface of polymask's core.
//
// Everything here is plain C++17 and knows nothing of Python: the Cython
// bindings in src/polymask/*.pxd mirror this header line for line.
//
// The core owns the polygon (one or more closed rings), the per-pixel fill
// (the contract's rule applied to every pixel, O(H*W*N)) and the scanline
// fill (the same crossings computed once per edge and row, O(H*N + H*W)).
// Both fill any window of the image and agree bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "polymask/crossing.h"
#include "polymask/export.hpp"

namespace polymask {

// How crossings decide inside.  even_odd is the contract's PNPOLY rule;
// nonzero counts signed crossings, as SVG and canvas define it.
enum class FillRule : int { even_odd = 0, nonzero = 1 };

// A rectangle of the image in pixel units: rows [row0, row0 + height) and
// columns [col0, col0 + width).  The whole image is {0, 0, rows, cols}.
struct Window {
    int64_t row0 = 0;
    int64_t col0 = 0;
    int64_t height = 0;
    int64_t width = 0;
};

// A read-only view of `size` values in a row (C++17 has no std::span).  A
// std::vector converts to one, so functions that read edges take either.
template <class T>
class ConstSpan {
public:
    constexpr ConstSpan() = default;
    constexpr ConstSpan(const T *data, size_t size) : data_(data), size_(size) {}
    ConstSpan(const std::vector<T> &values) : data_(values.data()), size_(values.size()) {}

    const T *data() const { return data_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const T *begin() const { return data_; }
    const T *end() const { return data_ + size_; }
    const T &operator[](size_t k) const { return data_[k]; }
    const T &front() const { return data_[0]; }
    const T &back() const { return data_[size_ - 1]; }

private:
    const T *data_ = nullptr;
    size_t size_ = 0;
};

namespace detail {
struct PolygonEdges;  // the fills' way into a polygon's edge table (csrc/src/edges.hpp)
}

// One or more closed rings over one vertex list.  The polygon copies the
// vertices, so it can outlive the caller's array, and precomputes its edge
// table once, so repeated fills pay no conversion.
//
// The vertices, the ring ends and the edge table share one allocation: a
// label image of a million polygons made (and, after Ctrl-C, freed) four
// million small blocks when each had vectors of its own and a sort buffer.
//
// Every constructor, assignment and the destructor that changes what a
// polygon holds is compiled in the core library (none is inline), so
// polygon_census() below counts the polygons of every module that links it.
class POLYMASK_API Polygon {
public:
    Polygon();

    // A single ring of n_vertices (x, y) pairs, interleaved.
    Polygon(const double *xy, int64_t n_vertices);

    // Several rings: ring k holds vertices [ring_ends[k-1], ring_ends[k]),
    // with ring_ends[-1] taken as 0.  ring_ends must be non-decreasing and
    // end at n_vertices; throws std::invalid_argument otherwise.
    Polygon(const double *xy, int64_t n_vertices, const int64_t *ring_ends, int64_t n_rings);

    Polygon(const Polygon &other);
    Polygon &operator=(const Polygon &other);
    // A moved-from polygon is empty: no vertices, rings or edges.
    Polygon(Polygon &&other) noexcept;
    Polygon &operator=(Polygon &&other) noexcept;
    ~Polygon();

    int64_t vertex_count() const { return static_cast<int64_t>(n_vertices_); }
    int64_t ring_count() const { return static_cast<int64_t>(n_rings_); }
    // The vertices, (x, y) interleaved, and where each ring ends.
    ConstSpan<double> xy() const { return {vertices(), 2 * n_vertices_}; }
    ConstSpan<int64_t> ring_ends() const { return {ends(), n_rings_}; }

    // The per-pixel rule at one point (px, py).
    bool contains(double px, double py, FillRule rule = FillRule::even_odd) const;

private:
    friend struct detail::PolygonEdges;
    POLYMASK_HIDDEN void build(const double *xy, int64_t n_vertices, const int64_t *ring_ends, int64_t n_rings);
    // storage_ holds 2 n_vertices_ doubles, then n_rings_ ring ends, then
    // room for n_vertices_ edges (the core's edge table); every part is
    // 8-byte aligned (polygon.cpp: block_bytes).
    double *vertices() const { return reinterpret_cast<double *>(storage_.get()); }
    int64_t *ends() const { return reinterpret_cast<int64_t *>(storage_.get() + 2 * n_vertices_ * sizeof(double)); }
    unsigned char *edge_table() const
    {
        return storage_.get() + 2 * n_vertices_ * sizeof(double) + n_rings_ * sizeof(int64_t);
    }

    std::unique_ptr<unsigned char[]> storage_;
    size_t n_vertices_ = 0, n_rings_ = 0, n_edges_ = 0;
};

// The Polygon objects alive in this process, whichever module made them, and
// the vertices and heap bytes they hold: a leak check for code that owns
// polygons by pointer (a Cython class must delete in __dealloc__ what it made
// with new).  Each thread counts its own constructions and destructions
// (no atomic read-modify-write on the hot path); a reading sums the threads,
// so one taken while other threads make or drop polygons is approximate.
struct PolygonCensus {
    int64_t polygons = 0;
    int64_t vertices = 0;
    int64_t bytes = 0;
};
POLYMASK_API PolygonCensus polygon_census();

// Fill `window` of the mask: out[r * row_stride + c] (r, c relative to the
// window) becomes 1 where the pixel is inside and 0 elsewhere.  Every byte of
// the window is written.  threads: an upper bound, 0 for the default count
// (see resolve_threads below; every fill of the core reads it so).
POLYMASK_API void fill_per_pixel(const Polygon &polygon, const Window &window, uint8_t *out,
                                 int64_t row_stride, FillRule rule = FillRule::even_odd, int threads = 0);

POLYMASK_API void fill_scanline(const Polygon &polygon, const Window &window, uint8_t *out,
                                int64_t row_stride, FillRule rule = FillRule::even_odd, int threads = 0);

// fill_scanline for an `out` whose window is already all zero (a fresh
// calloc'ed or np.zeros array): writes the inside spans only, visits only
// the rows the polygon crosses, and never touches any other byte, so pages
// of untouched zeros stay untouched.  Same mask as fill_scanline.
POLYMASK_API void fill_scanline_spans(const Polygon &polygon, const Window &window, uint8_t *out,
                                      int64_t row_stride, FillRule rule = FillRule::even_odd, int threads = 0);

// How many rows of the window the polygon's edges cross: the rows holding
// any span, so the rows fill_scanline_spans writes (0 for an empty mask).
// Callers that allocate the mask use it to choose between a zeroed buffer
// with spans written (little of the image covered) and an uninitialized
// one with every byte written (most of it covered).
POLYMASK_API int64_t crossed_rows(const Polygon &polygon, const Window &window);

// What `threads` means, for every function of the core that takes it
// (the other headers point here): an upper bound on the threads a call
// uses, the calling thread included.  0 (the default argument) means the
// default count, default_threads(): $POLYMASK_NUM_THREADS, else
// $OMP_NUM_THREADS, else the CPUs this process may use (hardware_threads()),
// never above thread_cap().  It is not "all cores": the count follows the
// work, so a fill too small to gain from threads runs on the calling thread
// alone, and a larger one wakes only the helpers its work is worth.
//
// resolve_threads: the upper bound a call with `threads` works under, at
// most `threads` (or default_threads() for 0) and at most thread_cap().
POLYMASK_API int resolve_threads(int threads);

// ---- threads (csrc/src/thread_pool.cpp) ----------------------------------------
// CPUs this process may run on (its affinity mask).
POLYMASK_API int hardware_threads();
// The most threads any fill uses: a few per core; larger requests are capped.
POLYMASK_API int thread_cap();
// The count for threads = 0: $POLYMASK_NUM_THREADS, else $OMP_NUM_THREADS,
// else hardware_threads(); never above thread_cap().
POLYMASK_API int default_threads();

// Interrupts (Ctrl-C).  A caller may install, for its own thread only, a
// check that fills call between chunks, about every 10 ms of a long fill.
// When it returns true the fill skips its remaining chunks, waits for those
// already running, and throws Interrupted: the output is then incomplete.
// Returns the previous check (and its context through previous_context).
using InterruptCheck = bool (*)(void *context);
POLYMASK_API InterruptCheck set_interrupt_check(InterruptCheck check, void *context, void **previous_context = nullptr);

// The same for the whole process: a check that a fill polls, at the same
// cadence, whenever its calling thread has no check of its own installed
// with set_interrupt_check (a thread's own check always takes precedence).
// It may be called on any thread that runs a fill, so it decides for itself,
// cheaply, whether that thread should stop (a Python binding's, installed
// once at import, acts only on Python's main thread and answers false at
// once, without the GIL, elsewhere).  nullptr removes it.  Stored atomically: safe to set while
// other threads fill (a fill already running keeps the check it started
// with).  Returns the previous process-wide check.
POLYMASK_API InterruptCheck set_process_interrupt_check(InterruptCheck check, void *context);

// Polls now the check a fill on this thread would poll (its own, else the
// process's), for a caller's loop between calls into the core; throws
// Interrupted when it says stop.
POLYMASK_API void throw_if_interrupted();

// Out of line, the destructor is the key function: the vtable and typeinfo
// live in the core library alone, so a module that catches Interrupted
// catches the very type the core throws.
struct POLYMASK_API Interrupted : std::runtime_error {
    Interrupted();
    ~Interrupted() override;
};

// Whether the pool's helpers have been paying for themselves in this
// process (thread_pool.hpp explains the learning): counters since the
// process started or since reset_pool_learning, for benchmarks and tests.
struct PoolStatistics {
    int64_t threaded_calls = 0;   // calls that offered chunks to helpers
    int64_t unpaid_calls = 0;     // ... whose helpers ran none, or kept the caller waiting long
    int64_t waited_ns = 0;        // time callers waited for helpers, in total
    int64_t longest_wait_ns = 0;  // ... and the longest single wait
    int penalty = 0;              // a helper is woken for 2^penalty times the base work now
};
POLYMASK_API PoolStatistics pool_statistics();
// Forget what was learned and zero the counters.  adaptive = false keeps
// the bar at its base whatever helpers do, and wakes helpers whether or not
// a core is free (tests that need a known count).
POLYMASK_API void reset_pool_learning(bool adaptive = true);

// How this core was compiled, for polymask.build_info().
struct BuildInfo {
    std::string version;
    std::string compiler;
    std::string build_type;
    bool openmp = false;
    int openmp_version = 0;  // the _OPENMP date, e.g. 201511
    int max_threads = 1;
    std::string threading;  // the mechanism behind the production fills
    int thread_cap = 1;     // the most threads a fill uses, whatever is asked
};
POLYMASK_API BuildInfo build_info();

}  // namespace polymask
