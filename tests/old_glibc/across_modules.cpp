// Built against the core of a POLYMASK_OLD_GLIBC build by tests/test_old_glibc.py, once
// linked as the wheel's modules are (libstdc++ inside, csrc/compat/old_glibc.c) and once
// as a learner's module is (the system's shared libstdc++).  The core throws; this
// program, another shared object with its own libstdc++ or none, catches by type.
// Then a timed wait on the steady clock, which the shim carries over to the realtime clock.
#include <polymask/core.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <stdexcept>

int main() {
    const double square[] = {0, 0, 4, 0, 4, 4, 0, 4};
    const int64_t bad_ends[] = {3, 2};
    try {
        polymask::Polygon polygon(square, 4, bad_ends, 2);
        std::puts("no exception");
    } catch (const std::invalid_argument &error) {
        std::printf("invalid_argument: %s\n", error.what());
    }
    polymask::set_interrupt_check([](void *) { return true; }, nullptr);
    try {
        polymask::throw_if_interrupted();
        std::puts("no exception");
    } catch (const polymask::Interrupted &) {
        std::puts("Interrupted caught");
    }
    polymask::set_interrupt_check(nullptr, nullptr);

    std::mutex mutex;
    std::condition_variable never_notified;
    std::unique_lock<std::mutex> lock(mutex);
    const auto start = std::chrono::steady_clock::now();
    const bool woken = never_notified.wait_for(lock, std::chrono::milliseconds(200), [] { return false; });
    const auto waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("wait_for: %s after %.3f s\n", woken ? "woken" : "timed out", waited);
    return 0;
}
