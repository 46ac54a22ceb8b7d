// A running scene: its state, workspace and servo, stepped by the experiment
// library's TrialRunner, the loop `suitsim run` uses, so what the viewer
// shows is what the command line computes.
#pragma once

#include <functional>
#include <memory>

#include "suitsim/experiment/runner.h"
#include "suitsim/scene/scene.h"
#include "suitsim/servo.h"
#include "suitsim/state.h"
#include "suitsim/step.h"

namespace suitsim::viewer {

class Simulation {
 public:
  /// Takes the scene; `threads` for the force loops (>= 1).
  Simulation(io::Scene scene, int threads);

  /// Back to the scene's initial state (t = 0) and a fresh servo.
  void reset();
  /// Called after every step, for sampling plots at their own rate.
  using StepObserver = std::function<void(const Simulation&)>;
  /// Steps until the simulated time reaches `until` (s) or `wall_budget` (s
  /// of wall-clock time) is spent, whichever comes first; a negative budget
  /// means no limit. Stops at divergence. Returns the steps taken.
  long advanceTo(double until, double wall_budget, const StepObserver& observer = {});
  /// Exactly `count` steps (single stepping). Returns the steps taken.
  long stepCount(long count, const StepObserver& observer = {});

  const io::Scene& scene() const { return scene_; }
  const Model& model() const { return scene_.model; }
  const State& state() const { return runner_->state(); }
  const Workspace& workspace() const { return runner_->workspace(); }
  const JointServo* servo() const { return runner_->servo(); }
  double dt() const { return scene_.simulation.dt; }
  long steps() const { return steps_; }
  /// True once a position or velocity became non-finite; stepping stops.
  bool diverged() const { return diverged_; }

 private:
  bool stepOnce();

  io::Scene scene_;
  int threads_ = 1;
  std::unique_ptr<experiment::TrialRunner> runner_;
  long steps_ = 0;
  bool diverged_ = false;
};

}  // namespace suitsim::viewer
