// interrupt_hook.hpp -- the caller's interrupt check as the pool sees it:
// the hook a fill on this thread polls (its own, else the process's; set in
// interrupts.cpp) and the Poller that calls it at most every 10 ms.
// Internal: included by interrupts.cpp and thread_pool.cpp.
#pragma once

#include <chrono>

#include "polymask/core.hpp"

namespace polymask::detail {

struct InterruptHook {
    InterruptCheck check = nullptr;
    void *context = nullptr;
};

// The check a fill on this thread polls: the thread's own, else the process's.
InterruptHook current_interrupt_hook();


// How often a caller polls its check.  Polling takes the GIL in the Python
// binding, which can wait up to the interpreter's switch interval, so short
// fills never poll and long ones poll about every 10 ms: well inside the
// 0.25 s promised for Ctrl-C, and a negligible cost.
constexpr auto kPollInterval = std::chrono::milliseconds(10);

class Poller {
public:
    Poller() : hook_(current_interrupt_hook()), last_(std::chrono::steady_clock::now()) {}
    bool active() const { return hook_.check != nullptr; }
    // True when the check asks to stop; calls it at most every kPollInterval.
    bool should_stop()
    {
        if (hook_.check == nullptr) return false;
        const auto now = std::chrono::steady_clock::now();
        if (now - last_ < kPollInterval) return false;
        last_ = now;
        return hook_.check(hook_.context);
    }

private:
    InterruptHook hook_;
    std::chrono::steady_clock::time_point last_;
};

}  // namespace polymask::detail
