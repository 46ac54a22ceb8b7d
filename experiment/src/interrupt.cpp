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
  // A write past the file-size limit (ulimit -f) would otherwise kill the
  // process where it stands, its temporary files left and nothing said;
  // ignored, the write fails with EFBIG, and the run reports it and cleans up.
  std::signal(SIGXFSZ, SIG_IGN);
}

int interruptSignal() { return stopSignal(); }

}  // namespace suitsim::experiment
