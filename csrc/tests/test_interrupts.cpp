// test_interrupts.cpp -- the interrupt checks a fill polls: the calling
// thread's own (set_interrupt_check) and the process-wide one
// (set_process_interrupt_check), which a thread without its own uses.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "polymask/core.hpp"
#include "testing.hpp"

namespace {

using polymask::FillRule;
using polymask::Polygon;
using polymask::Window;

// A check that counts its calls (and on which thread) and answers `stop`.
struct CountingCheck {
    std::atomic<int> calls{0};
    std::atomic<bool> off_thread{false};  // called on a thread other than `thread`
    std::thread::id thread;
    bool stop = false;

    static bool call(void *context)
    {
        auto *self = static_cast<CountingCheck *>(context);
        self->calls.fetch_add(1);
        if (std::this_thread::get_id() != self->thread) self->off_thread = true;
        return self->stop;
    }
};

// A star of 64 vertices: the per-pixel fill of 800x800 pixels tests every
// edge at every pixel, long enough (tens of ms or more) for several polls.
Polygon star()
{
    std::vector<double> xy;
    for (int k = 0; k < 64; ++k) {
        const double angle = 2 * M_PI * k / 64, radius = k % 2 ? 390.0 : 150.0;
        xy.push_back(400 + radius * std::cos(angle));
        xy.push_back(400 + radius * std::sin(angle));
    }
    return Polygon(xy.data(), 64);
}

const Window kWindow{0, 0, 800, 800};

// Bands of 4 rows whatever the work, so there are chunks to poll between.
struct SmallBands {
    int64_t previous = polymask::testing::set_chunk_rows_for_testing(4);
    ~SmallBands() { polymask::testing::set_chunk_rows_for_testing(previous); }
};

// Removes the process-wide check however a test ends.
struct ProcessCheckReset {
    ~ProcessCheckReset() { polymask::set_process_interrupt_check(nullptr, nullptr); }
};

}  // namespace

TEST(ProcessInterruptCheck, ReturnsThePreviousCheck)
{
    ProcessCheckReset reset;
    CountingCheck check;
    EXPECT_EQ(polymask::set_process_interrupt_check(CountingCheck::call, &check), nullptr);
    EXPECT_EQ(polymask::set_process_interrupt_check(nullptr, nullptr), &CountingCheck::call);
    EXPECT_EQ(polymask::set_process_interrupt_check(nullptr, nullptr), nullptr);
}

TEST(ProcessInterruptCheck, StopsAFillOnAThreadWithoutACheckOfItsOwn)
{
    ProcessCheckReset reset;
    SmallBands bands;
    const Polygon polygon = star();
    std::vector<uint8_t> mask(static_cast<size_t>(kWindow.height * kWindow.width));
    CountingCheck check;
    check.stop = true;
    bool interrupted = false, other_error = false;
    std::thread filler([&] {
        check.thread = std::this_thread::get_id();
        polymask::set_process_interrupt_check(CountingCheck::call, &check);
        // A fill polls at most every 10 ms: on a machine fast enough to
        // finish one sooner, the next is asked again.
        for (int attempt = 0; attempt < 50 && !interrupted && !other_error; ++attempt) {
            try {
                polymask::fill_per_pixel(polygon, kWindow, mask.data(), kWindow.width, FillRule::even_odd, 2);
            } catch (const polymask::Interrupted &) {
                interrupted = true;  // caught here, across the shared library: its typeinfo is exported
            } catch (...) {
                other_error = true;
            }
        }
    });
    filler.join();
    EXPECT_TRUE(interrupted);
    EXPECT_FALSE(other_error);
    EXPECT_GE(check.calls.load(), 1);
    EXPECT_FALSE(check.off_thread.load()) << "the check ran on a helper, not on the calling thread";
}

TEST(ProcessInterruptCheck, AThreadsOwnCheckTakesPrecedence)
{
    ProcessCheckReset reset;
    SmallBands bands;
    const Polygon polygon = star();
    std::vector<uint8_t> expected(static_cast<size_t>(kWindow.height * kWindow.width));
    polymask::fill_scanline(polygon, kWindow, expected.data(), kWindow.width);

    CountingCheck process, own;
    process.stop = true;  // would stop the fill, if it were asked
    std::vector<uint8_t> mask(expected.size());
    std::thread filler([&] {
        own.thread = process.thread = std::this_thread::get_id();
        polymask::set_process_interrupt_check(CountingCheck::call, &process);
        polymask::set_interrupt_check(CountingCheck::call, &own);
        for (int attempt = 0; attempt < 50 && own.calls.load() == 0; ++attempt) {
            EXPECT_NO_THROW(
                polymask::fill_per_pixel(polygon, kWindow, mask.data(), kWindow.width, FillRule::even_odd, 2));
        }
        polymask::set_interrupt_check(nullptr, nullptr);
    });
    filler.join();
    EXPECT_EQ(process.calls.load(), 0);
    EXPECT_GE(own.calls.load(), 1) << "50 fills, each too short to poll: make it longer";
    EXPECT_EQ(mask, expected);
}

TEST(ProcessInterruptCheck, RemovedItStopsNothing)
{
    SmallBands bands;
    const Polygon polygon = star();
    CountingCheck check;
    check.stop = true;
    polymask::set_process_interrupt_check(CountingCheck::call, &check);
    polymask::set_process_interrupt_check(nullptr, nullptr);
    std::vector<uint8_t> mask(static_cast<size_t>(kWindow.height * kWindow.width));
    EXPECT_NO_THROW(polymask::fill_per_pixel(polygon, kWindow, mask.data(), kWindow.width, FillRule::even_odd, 2));
    EXPECT_EQ(check.calls.load(), 0);
}
