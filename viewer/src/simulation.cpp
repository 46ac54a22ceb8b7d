#include "simulation.h"

#include <chrono>
#include <utility>

namespace suitsim::viewer {

Simulation::Simulation(io::Scene scene, int threads) : scene_(std::move(scene)), threads_(threads < 1 ? 1 : threads) {
  reset();
}

void Simulation::reset() {
  runner_ = std::make_unique<experiment::TrialRunner>(scene_, threads_);
  runner_->start();
  steps_ = 0;
  diverged_ = false;
}

bool Simulation::stepOnce() {
  if (diverged_) return false;
  runner_->advance();
  ++steps_;
  if (!stateIsFinite(runner_->state())) {
    diverged_ = true;
    return false;
  }
  return true;
}

long Simulation::advanceTo(double until, double wall_budget, const StepObserver& observer) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  long taken = 0;
  // Half a step of tolerance: the step that lands on `until` is taken, the
  // one after it is not.
  while (runner_->state().time + 0.5 * dt() < until) {
    if (!stepOnce()) break;
    ++taken;
    if (observer) observer(*this);
    // Reading the clock costs far less than a step; checking every few steps
    // still keeps the frame on time for cheap scenes.
    if (wall_budget >= 0.0 && (taken & 7) == 0 &&
        std::chrono::duration<double>(Clock::now() - start).count() > wall_budget) {
      break;
    }
  }
  return taken;
}

long Simulation::stepCount(long count, const StepObserver& observer) {
  long taken = 0;
  for (; taken < count; ++taken) {
    if (!stepOnce()) break;
    if (observer) observer(*this);
  }
  return taken;
}

}  // namespace suitsim::viewer
