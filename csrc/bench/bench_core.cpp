// bench_core.cpp -- Google Benchmark timings of the C++ core, no Python.
//
// Measures the single-threaded sweep on the problems the issue tracker
// names, so every change to scanline.hpp or the row writer can be timed on
// the core alone (Python call overhead would blur a few microseconds):
//
//   standard     1024x1024, the 24 random vertices of polymask's standard
//                problem (NumPy PCG64, seed 2014), copied here literally
//   integer      the same vertices rounded to integers (what cv2 fills)
//   large        4096x4096, 1,000 random vertices (also with all_touched)
//   floor        memset of the same bytes: nothing that writes every byte
//                of the mask can beat it
//   first touch  the mask into a fresh calloc'ed buffer at one and two
//                threads, beside memset's floor for the same fresh pages
//
// Run with scripts/bench-core.sh; compare ratios within one run.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "polymask/core.hpp"
#include "polymask/coverage.hpp"
#include "edges.hpp"
#include "scanline.hpp"

namespace {

// polymask.course.problems.standard_problem(): 24 vertices, uniform in [0, 1024).
const double kStandard[] = {
    940.6300447894164, 731.3927451947487,
    271.94630494863395, 539.4770187046682,
    811.3675214055604, 1015.4566158687977,
    679.7982483483089, 784.2640798245562,
    685.8859346068874, 925.6698885562006,
    202.48024648349565, 851.1698762772678,
    109.95238397861215, 121.03100698700814,
    49.58192035105401, 619.5473651452755,
    344.4434714150973, 803.270048929964,
    342.5842027448591, 493.3292727159594,
    950.6765565897045, 547.6878310921054,
    139.5579499681411, 325.6327323978445,
    680.888830409423, 668.0414127906847,
    429.53818539408337, 484.096487266656,
    479.12257744657643, 374.90296169991086,
    649.1878063594671, 666.5732207618264,
    920.5566894359932, 390.9694102367938,
    424.0607532464729, 693.9389948464802,
    433.8666968782504, 714.5371885266266,
    440.37010595992706, 793.938305528009,
    863.1836574849283, 849.2596738512799,
    751.0022171713819, 811.2762201984967,
    673.166730086798, 632.3261712028283,
    413.8836038909301, 924.9298997329772
};

std::vector<double> standard_vertices(bool integer)
{
    std::vector<double> xy(std::begin(kStandard), std::end(kStandard));
    if (integer) {
        for (double &v : xy) v = std::round(v);
    }
    return xy;
}

std::vector<double> random_vertices(int n, double size, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> uniform(0.0, size);
    std::vector<double> xy(2 * static_cast<size_t>(n));
    for (double &v : xy) v = uniform(rng);
    return xy;
}

void run_fill(benchmark::State &state, const std::vector<double> &xy, int64_t size)
{
    const polymask::Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2));
    const polymask::Window window{0, 0, size, size};
    std::vector<uint8_t> out(static_cast<size_t>(size * size));
    for (auto _ : state) {
        polymask::fill_scanline(polygon, window, out.data(), size, polymask::FillRule::even_odd, 1);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * size * size);
}

// all_touched into the same buffer (csrc/src/touched.cpp): compare with
// BM_fill_large, the centre rule on the same polygon (issue 14: <= 2x).
void BM_touched_large(benchmark::State &state)
{
    const std::vector<double> xy = random_vertices(1000, 4096.0, 7);
    const polymask::Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2));
    const polymask::Window window{0, 0, 4096, 4096};
    std::vector<uint8_t> out(static_cast<size_t>(4096 * 4096));
    for (auto _ : state) {
        polymask::fill_touched(polygon, window, out.data(), 4096, polymask::FillRule::even_odd, 1);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
}

void BM_fill_standard(benchmark::State &state) { run_fill(state, standard_vertices(false), 1024); }
void BM_fill_integer(benchmark::State &state) { run_fill(state, standard_vertices(true), 1024); }
void BM_fill_large(benchmark::State &state) { run_fill(state, random_vertices(1000, 4096.0, 7), 4096); }

// What polymask.mask does without out=: a zeroed allocation (calloc, as
// np.zeros) and only the spans written.  `size` squared bytes, polygon
// scaled to `extent` pixels and placed near the middle.
void run_fresh(benchmark::State &state, std::vector<double> xy, int64_t size, double offset)
{
    for (double &v : xy) v += offset;
    const polymask::Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2));
    const polymask::Window window{0, 0, size, size};
    for (auto _ : state) {
        auto *out = static_cast<uint8_t *>(std::calloc(static_cast<size_t>(size * size), 1));
        polymask::fill_scanline_spans(polygon, window, out, size, polymask::FillRule::even_odd, 1);
        benchmark::DoNotOptimize(out);
        std::free(out);
    }
}

// The same with a full write of a malloc'ed buffer (the eager path).
void run_fresh_eager(benchmark::State &state, std::vector<double> xy, int64_t size, double offset)
{
    for (double &v : xy) v += offset;
    const polymask::Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2));
    const polymask::Window window{0, 0, size, size};
    for (auto _ : state) {
        auto *out = static_cast<uint8_t *>(std::malloc(static_cast<size_t>(size * size)));
        polymask::fill_scanline(polygon, window, out, size, polymask::FillRule::even_odd, 1);
        benchmark::DoNotOptimize(out);
        std::free(out);
    }
}

void BM_fresh_standard(benchmark::State &state) { run_fresh(state, standard_vertices(false), 1024, 0.0); }
void BM_fresh_standard_eager(benchmark::State &state) { run_fresh_eager(state, standard_vertices(false), 1024, 0.0); }

// A 40-vertex polygon a few hundred pixels wide in an 8192x8192 image.
std::vector<double> small_polygon()
{
    std::vector<double> xy;
    for (int k = 0; k < 40; ++k) {
        const double angle = 2.0 * 3.14159265358979 * k / 40.0;
        const double radius = (k % 2 == 0) ? 150.0 : 110.0;
        xy.push_back(radius * std::cos(angle));
        xy.push_back(radius * std::sin(angle));
    }
    return xy;
}
void BM_fresh_small_in_8192(benchmark::State &state) { run_fresh(state, small_polygon(), 8192, 4000.3); }
void BM_fresh_small_in_8192_eager(benchmark::State &state) { run_fresh_eager(state, small_polygon(), 8192, 4000.3); }

// The sweep alone: crossings, sorting and spans, nothing written.
struct CountingSink {
    int64_t spans = 0;
    void begin_row(int64_t) {}
    void span(int64_t begin, int64_t end) { spans += end - begin; }
    void end_row() {}
};

void BM_sweep_only_standard(benchmark::State &state)
{
    const std::vector<double> xy = standard_vertices(false);
    const polymask::Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2));
    const polymask::Window window{0, 0, 1024, 1024};
    const auto rows = polymask::detail::edge_rows_in_window(edges_by_y(polygon), window);
    for (auto _ : state) {
        CountingSink sink;
        polymask::detail::scan_rows(edges_by_y(polygon), rows, window, polymask::FillRule::even_odd, 0, 1024, sink);
        benchmark::DoNotOptimize(sink.spans);
    }
}

void BM_floor_memset(benchmark::State &state)
{
    const int64_t size = state.range(0);
    std::vector<uint8_t> out(static_cast<size_t>(size * size));
    for (auto _ : state) {
        std::memset(out.data(), 0, out.size());
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * size * size);
}

// ---- first touch on two threads -------------------------------------------
// polymask.mask returns a lazily zeroed array: writing a span first faults
// its page in, and the kernel zeroes it.  Does splitting those writes over
// two threads gain?  The mask itself (24 random vertices in 4096x4096, so
// few crossings and many fresh pages) at one and two threads (a fixed plan,
// so the pool's learning and the free-core check do not decide), and the
// floor: the same bytes written with memset into a calloc'ed buffer by one
// thread, or by two that claim 64-row blocks from one counter.
void BM_fresh_24_in_4096(benchmark::State &state)
{
    const std::vector<double> xy = random_vertices(24, 4096.0, 11);
    const polymask::Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2));
    const polymask::Window window{0, 0, 4096, 4096};
    const int threads = static_cast<int>(state.range(0));
    polymask::reset_pool_learning(false);
    for (auto _ : state) {
        auto *out = static_cast<uint8_t *>(std::calloc(size_t(4096) * 4096, 1));
        polymask::fill_scanline_spans(polygon, window, out, 4096, polymask::FillRule::even_odd, threads);
        benchmark::DoNotOptimize(out);
        std::free(out);
    }
    polymask::reset_pool_learning(true);
}

void BM_floor_first_touch(benchmark::State &state)
{
    constexpr int64_t kSize = 4096, kBlock = 64;
    const bool two = state.range(0) == 2;
    std::atomic<uint8_t *> buffer{nullptr};
    std::atomic<int64_t> next_block{0}, generation{0}, finished{0};
    std::atomic<bool> quit{false};
    const auto write_blocks = [&] {
        uint8_t *out = buffer.load();
        for (int64_t block; (block = next_block.fetch_add(1)) < kSize / kBlock;) {
            for (int64_t row = block * kBlock; row < (block + 1) * kBlock; ++row) {
                std::memset(out + row * kSize + kSize / 4, 1, kSize * 2 / 5);  // 40% of the row
            }
        }
    };
    std::thread helper;
    if (two) {
        helper = std::thread([&] {  // spins between iterations: always awake, so no wake-up is timed
            for (int64_t seen = 0; !quit.load();) {
                if (generation.load() == seen) continue;
                seen = generation.load();
                write_blocks();
                finished.fetch_add(1);
            }
        });
    }
    for (auto _ : state) {
        buffer = static_cast<uint8_t *>(std::calloc(size_t(kSize) * kSize, 1));
        next_block = 0;
        finished = 0;
        if (two) generation.fetch_add(1);
        write_blocks();
        while (two && finished.load() == 0) {
        }
        benchmark::DoNotOptimize(buffer.load());
        std::free(buffer.load());
    }
    quit = true;
    if (two) helper.join();
}


// ---- coverage ---------------------------------------------------------------
// polymask.coverage into a uint8 (or float) raster on one thread, beside the
// mask of the same polygon above: the standard 24 random vertices at 1024x1024,
// 24 random vertices at 4096x4096, and a smooth 1,000-vertex outline (a circle
// bent by low harmonics) at 4096x4096.
std::vector<double> outline_vertices(int n, double size, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> amplitude(-0.25, 0.25), phase(0.0, 6.283185307179586);
    std::vector<double> radii(static_cast<size_t>(n), 1.0);
    for (int k = 2; k < 10; ++k) {
        const double a = amplitude(rng) / k, p = phase(rng);
        for (int v = 0; v < n; ++v) radii[static_cast<size_t>(v)] += a * std::cos(k * 6.283185307179586 * v / n + p);
    }
    double largest = 0.0;
    for (double r : radii) largest = std::max(largest, r);
    std::vector<double> xy;
    for (int v = 0; v < n; ++v) {
        const double r = radii[static_cast<size_t>(v)] * 0.45 * size / largest, angle = 6.283185307179586 * v / n;
        xy.push_back(size / 2 + r * std::cos(angle));
        xy.push_back(size / 2 + r * std::sin(angle));
    }
    return xy;
}

template <class Value>
void run_coverage(benchmark::State &state, const std::vector<double> &xy, int64_t size)
{
    const polymask::Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2));
    const polymask::Window window{0, 0, size, size};
    std::vector<Value> out(static_cast<size_t>(size * size));
    const int threads = static_cast<int>(state.range(0));
    for (auto _ : state) {
        polymask::coverage<Value>(polygon, window, out.data(), size, polymask::FillRule::even_odd, threads);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
}

void BM_coverage_u8_standard(benchmark::State &state) { run_coverage<uint8_t>(state, standard_vertices(false), 1024); }
void BM_coverage_u8_random24_4096(benchmark::State &state)
{
    run_coverage<uint8_t>(state, random_vertices(24, 4096.0, 11), 4096);
}
void BM_coverage_u8_outline_4096(benchmark::State &state)
{
    run_coverage<uint8_t>(state, outline_vertices(1000, 4096.0, 2014), 4096);
}
void BM_coverage_f32_random24_4096(benchmark::State &state)
{
    run_coverage<float>(state, random_vertices(24, 4096.0, 11), 4096);
}
void BM_fill_random24_4096(benchmark::State &state) { run_fill(state, random_vertices(24, 4096.0, 11), 4096); }
void BM_fill_outline_4096(benchmark::State &state) { run_fill(state, outline_vertices(1000, 4096.0, 2014), 4096); }

}  // namespace

BENCHMARK(BM_fill_standard)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_fill_integer)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_fill_large)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_touched_large)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_fresh_standard)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_fresh_standard_eager)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_fresh_small_in_8192)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_fresh_small_in_8192_eager)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sweep_only_standard)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_fresh_24_in_4096)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_floor_first_touch)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_floor_memset)->Arg(1024)->Arg(4096)->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_fill_random24_4096)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_fill_outline_4096)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_coverage_u8_standard)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_coverage_u8_random24_4096)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_coverage_u8_outline_4096)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_coverage_f32_random24_4096)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();

BENCHMARK_MAIN();
