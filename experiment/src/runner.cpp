#include "suitsim/experiment/runner.h"

#include <optional>

namespace suitsim::experiment {

TrialRunner::TrialRunner(const io::Scene& scene, int threads, Sensors* sensors)
    : model_(&scene.model),
      integrator_(scene.simulation.integrator),
      dt_(scene.simulation.dt),
      state_(makeState(scene.model)),
      workspace_(std::make_unique<Workspace>(scene.model, threads < 1 ? 1 : threads)),
      sensors_(sensors) {
  // A robot with a servo follows its motion (or holds its initial pose); the
  // servo takes its hold angles from the initial state.
  if (scene.robot && scene.robot->has_servo) {
    servo_ = std::make_unique<JointServo>(scene.model, state_, scene.robot->motion, scene.robot->gains,
                                          scene.robot->servo_rate);
  }
  // A worn device drives its own hinges; the robot's servo leaves them alone.
  if (scene.robot && scene.robot->exoskeleton) {
    device_ = std::make_unique<ExoskeletonController>(scene.model, *scene.robot->exoskeleton, scene.robot->truth);
    if (servo_) {
      for (int h : device_->hinges()) servo_->leaveAlone(h);
    }
  }
  // Pushes and a balance assist, at their points of the built model.
  if (scene.robot && (!scene.robot->pushes.empty() || scene.robot->assist)) {
    std::vector<PushSpec> pushes;
    for (const auto& [at, push] : scene.robot->pushes) {
      pushes.push_back(push);
      pushes.back().at = io::robotForcePoint(scene.model, *scene.robot, at);
    }
    std::optional<BalanceAssistSpec> assist;
    if (scene.robot->assist) {
      assist = scene.robot->assist->second;
      assist->at = io::robotForcePoint(scene.model, *scene.robot, scene.robot->assist->first);
    }
    external_ = std::make_unique<ExternalForces>(scene.model, dt_, std::move(pushes), assist ? &*assist : nullptr);
  }
}

bool TrialRunner::start(double* sensor_row, double* stamp) {
  if (servo_) servo_->update(*model_, state_);
  if (device_) device_->update(*model_, state_, servo_ ? &servo_->desiredTorque() : nullptr);
  if (external_) external_->update(*model_, state_);
  return sensors_ && sensor_row && sensors_->startLog(state_, sensor_row, stamp);
}

bool TrialRunner::finish(double* sensor_row, double* stamp) {
  return sensors_ && sensor_row && sensors_->finishLog(state_, steps_, sensor_row, stamp);
}

}  // namespace suitsim::experiment
