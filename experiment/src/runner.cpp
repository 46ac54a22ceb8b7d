#include "suitsim/experiment/runner.h"

namespace suitsim::experiment {

TrialRunner::TrialRunner(const io::Scene& scene, double dt, int threads, Sensors* sensors)
    : model_(&scene.model),
      integrator_(scene.simulation.integrator),
      dt_(dt),
      state_(makeState(scene.model)),
      workspace_(std::make_unique<Workspace>(scene.model, threads < 1 ? 1 : threads)),
      sensors_(sensors) {
  // A robot with a servo follows its motion (or holds its initial pose); the
  // servo takes its hold angles from the initial state.
  if (scene.robot && scene.robot->has_servo) {
    servo_ = std::make_unique<JointServo>(scene.model, state_, scene.robot->motion, scene.robot->gains,
                                          scene.robot->servo_rate);
  }
}

bool TrialRunner::start(double* sensor_row, double* stamp) {
  if (servo_) servo_->update(*model_, state_);
  return sensors_ && sensor_row && sensors_->startLog(state_, sensor_row, stamp);
}

bool TrialRunner::finish(double* sensor_row, double* stamp) {
  return sensors_ && sensor_row && sensors_->finishLog(state_, steps_, sensor_row, stamp);
}

}  // namespace suitsim::experiment
