#include "suitsim/core/stop.h"

#include <atomic>

namespace suitsim {

namespace {

// A handler may store to it only because it is lock-free.
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

}  // namespace

void requestStop(int signal) noexcept { g_stop_signal.store(signal, std::memory_order_relaxed); }

int stopSignal() noexcept { return g_stop_signal.load(std::memory_order_relaxed); }

}  // namespace suitsim
