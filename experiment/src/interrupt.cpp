#include "suitsim/experiment/interrupt.h"

#include <csignal>

namespace suitsim::experiment {

namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void onSignal(int signal) { g_signal = signal; }

}  // namespace

void installInterruptHandlers() {
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
}

int interruptSignal() { return g_signal; }

}  // namespace suitsim::experiment
