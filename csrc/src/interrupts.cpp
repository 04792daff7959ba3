// interrupts.cpp -- where the caller's interrupt check is kept: each
// thread's own (set_interrupt_check), the process-wide one
// (set_process_interrupt_check), and the Interrupted exception the fills
// throw.  The pool polls them through interrupt_hook.hpp's Poller.
#include <atomic>
#include <mutex>
#include <vector>

#include "interrupt_hook.hpp"
#include "polymask/core.hpp"

namespace polymask {

namespace detail {

namespace {

thread_local InterruptHook interrupt_hook;

// The process-wide check (set_process_interrupt_check), for threads with no
// check of their own.  A check and its context must be read as one pair, so
// the atomic holds a pointer to an immutable hook.  Hooks are never freed (a
// fill on another thread may still be reading the one just replaced); one
// hook is kept per distinct (check, context) pair and reused, so installing
// and removing the same check again and again allocates nothing new.  The
// list lives as long as the process (it is reachable, so no leak is reported).
std::atomic<const InterruptHook *> process_hook{nullptr};
std::mutex process_hooks_mutex;  // guards the list; setting is rare (once at import)
std::vector<const InterruptHook *> *process_hooks = nullptr;

const InterruptHook *process_hook_for(InterruptCheck check, void *context)
{
    if (check == nullptr) return nullptr;
    if (process_hooks == nullptr) process_hooks = new std::vector<const InterruptHook *>();
    for (const InterruptHook *hook : *process_hooks) {
        if (hook->check == check && hook->context == context) return hook;
    }
    process_hooks->push_back(new InterruptHook{check, context});
    return process_hooks->back();
}

}  // namespace

// The check a fill on this thread polls: the thread's own, else the process's.
InterruptHook current_interrupt_hook()
{
    if (interrupt_hook.check != nullptr) return interrupt_hook;
    const InterruptHook *shared = process_hook.load(std::memory_order_acquire);
    return shared != nullptr ? *shared : InterruptHook{};
}

}  // namespace detail

using detail::InterruptHook;

namespace {
using detail::interrupt_hook;
using detail::process_hook;
using detail::process_hook_for;
using detail::process_hooks_mutex;
}  // namespace

InterruptCheck set_interrupt_check(InterruptCheck check, void *context, void **previous_context)
{
    InterruptHook previous = interrupt_hook;
    interrupt_hook.check = check;
    interrupt_hook.context = context;
    if (previous_context != nullptr) *previous_context = previous.context;
    return previous.check;
}

InterruptCheck set_process_interrupt_check(InterruptCheck check, void *context)
{
    const std::lock_guard<std::mutex> lock(process_hooks_mutex);
    const InterruptHook *previous = process_hook.exchange(process_hook_for(check, context), std::memory_order_acq_rel);
    return previous != nullptr ? previous->check : nullptr;
}

void throw_if_interrupted()
{
    const InterruptHook hook = detail::current_interrupt_hook();
    if (hook.check != nullptr && hook.check(hook.context)) throw Interrupted();
}

Interrupted::Interrupted() : std::runtime_error("polymask: the fill was interrupted") {}
Interrupted::~Interrupted() = default;

}  // namespace polymask
