#include "suitsim/experiment/interrupt.h"

#include <csignal>

#include "suitsim/core/stop.h"

namespace suitsim::experiment {

namespace {

extern "C" void onSignal(int signal) { requestStop(signal); }

}  // namespace

void installInterruptHandlers() {
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
}

int interruptSignal() { return stopSignal(); }

}  // namespace suitsim::experiment
