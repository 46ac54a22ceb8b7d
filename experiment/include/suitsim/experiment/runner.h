// The one stepping loop of a scene: integrator step, joint servo, sensors.
// `suitsim run`/`evaluate` (trials.h), the viewer and the benchmarks all step
// through it, so what one front end shows is what another computes.
//
// Order within a step k (k >= 1):
//   1. step()                 the integrator advances the state by dt, with the
//                             motor currents the servo set before it;
//   2. after_step(state)      the caller samples what acted during the step
//                             (truth channels: motor torques of that step);
//   3. servo update           currents for step k + 1 (A(6): tau = k_T u + tau_o);
//      device controller      a worn exoskeleton's currents for step k + 1
//                             (exoskeleton.h; the servo's desired torques are
//                             its assist's input, so it comes after);
//      external forces        pushes and the balance assist for step k + 1
//                             (balance_assist.h; the assist measures step k's state);
//   4. sensors logStep        the logged current is the mean of the commands
//                             either side of its stamp (sensors.h), so the
//                             servo must have set step k + 1's first.
// start() runs 3 and 4 for the initial state. Nothing here allocates.
#pragma once

#include <memory>

#include "suitsim/balance_assist.h"
#include "suitsim/exoskeleton.h"
#include "suitsim/scene/scene.h"
#include "suitsim/sensors.h"
#include "suitsim/servo.h"
#include "suitsim/state.h"
#include "suitsim/step.h"

namespace suitsim::experiment {

class TrialRunner {
 public:
  /// Steps `scene.model` with the integrator and time step of
  /// `scene.simulation` (the one owner of both: a run at another step loads
  /// the scene with that dt overridden, io::SceneOverrides) and `threads`
  /// force-loop threads (>= 1). `sensors` may be null (no robot sensors, or
  /// the caller does not log); they must have been made for that dt.
  /// The scene must outlive the runner.
  TrialRunner(const io::Scene& scene, int threads, Sensors* sensors = nullptr);

  /// Sets the first command and logs the initial state. Returns true when a
  /// sensor row is complete (written to `sensor_row`, stamp to `*stamp`).
  bool start(double* sensor_row = nullptr, double* stamp = nullptr);

  /// One step as in the header; `after_step(const State&)` runs between the
  /// integrator and the servo. Returns true when a sensor row is complete.
  template <class AfterStep>
  bool advance(AfterStep&& after_step, double* sensor_row = nullptr, double* stamp = nullptr) {
    step(*model_, state_, *workspace_, integrator_, dt_);
    ++steps_;
    after_step(static_cast<const State&>(state_));
    if (servo_) servo_->update(*model_, state_);
    if (device_) device_->update(*model_, state_, servo_ ? &servo_->desiredTorque() : nullptr);
    if (external_) external_->update(*model_, state_);
    return sensors_ && sensor_row && sensors_->logStep(state_, steps_, sensor_row, stamp);
  }
  bool advance(double* sensor_row = nullptr, double* stamp = nullptr) {
    return advance([](const State&) {}, sensor_row, stamp);
  }
  /// The sensors' last row (the half window after the final stamp); call
  /// once after the last step. Returns true when a row was written.
  bool finish(double* sensor_row, double* stamp);

  const Model& model() const { return *model_; }
  const State& state() const { return state_; }
  /// The state, for a caller that drives the robot itself (the Python
  /// module's Simulation): it sets State::hinge_current between steps,
  /// which step() allows (state.h), in place of a servo.
  State& state() { return state_; }
  Workspace& workspace() { return *workspace_; }
  const Workspace& workspace() const { return *workspace_; }
  const JointServo* servo() const { return servo_.get(); }
  /// Pushes and the balance assist; null when the scene has neither.
  const ExternalForces* externalForces() const { return external_.get(); }
  /// A worn exoskeleton's controller; null when the scene has none.
  const ExoskeletonController* device() const { return device_.get(); }
  long steps() const { return steps_; }
  double dt() const { return dt_; }

 private:
  const Model* model_;
  Integrator integrator_;
  double dt_;
  State state_;
  std::unique_ptr<Workspace> workspace_;
  std::unique_ptr<JointServo> servo_;
  std::unique_ptr<ExternalForces> external_;
  std::unique_ptr<ExoskeletonController> device_;
  Sensors* sensors_;
  long steps_ = 0;
};

}  // namespace suitsim::experiment
