// The channel map resolved against the scene (log_plan.cpp): where each
// joint's channels come from, the couplings' inverses, which sensors every
// trial reads and the bounds the samples are checked against. Private to
// the log reader (log_streams.cpp).
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "suitsim/eval/log_streams.h"

namespace suitsim::eval::log_plan {

/// Throws io::SceneError at the map's file and line.
[[noreturn]] void mapFail(const LogMap& m, int line, const std::string& what);
/// v as a message shows it (the stream's default precision).
std::string number(double v);
/// "a, b, c".
std::string joinNames(const std::vector<std::string>& names);

/// Where each joint's channels come from: a <joint> of the map, or a row of
/// a <coupling>.
struct JointSource {
  int direct = -1;    // index into LogMap::joints
  int coupling = -1;  // index into LogMap::couplings
};

/// The map resolved against the scene: what every trial reads.
struct Plan {
  std::vector<JointSource> joint;    // model joint order
  std::vector<std::vector<int>> coupling_motor;  // per coupling: index into LogMap::motors, row order
  std::vector<Eigen::MatrixXd> angle_from_motor;  // per coupling: (G M)^-1
  std::vector<Eigen::MatrixXd> torque_from_motor; // per coupling: (G M)^T, for motor-side torque sensors
  bool currents = false, torques = false;
  bool imu = false;                  // the scene's robot has an IMU (a fixed base may have none)
  std::vector<int> force_sensor;     // layout order -> LogMap::force_sensors
  std::vector<int> temperature;      // model joint order -> LogMap::channels, -1 without
  std::vector<double> speed_bound;   // rad/s per joint
  std::vector<double> lower, upper;  // limits widened by the margin (rad)
};

/// A drive's channel of kind 0 angle, 1 velocity, 2 current, 3 torque.
const ColumnMap& channelOf(const LoggedDrive& d, int kind);

/// The map resolved against the scene's model and a-priori set; every
/// inconsistency is refused at its line of the map.
Plan makePlan(const LogMap& m, const RigidModel& model, const EvaluationInputs& inputs);

}  // namespace suitsim::eval::log_plan
