// The channel map resolved against the scene (log_plan.h): each joint's
// channels found directly or through a coupling's motors, all joints or
// none of each kind, the couplings inverted, and the limits and speed
// bounds every sample is checked against.
#include "log_plan.h"

#include <cmath>
#include <sstream>

#include <Eigen/LU>

#include "suitsim/core/decompositions.h"
#include "suitsim/scene/scene.h"

namespace suitsim::eval::log_plan {

using Eigen::MatrixXd;
using Eigen::VectorXd;

[[noreturn]] void mapFail(const LogMap& m, int line, const std::string& what) {
  throw io::SceneError(m.path + ":" + std::to_string(line) + ": " + what);
}

std::string number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}


const ColumnMap& channelOf(const LoggedDrive& d, int kind) {
  return kind == 0 ? d.angle : kind == 1 ? d.velocity : kind == 2 ? d.current : d.torque;
}
namespace {
const char* kKindName[] = {"angle", "velocity", "current", "torque"};

// True when every joint has channel `kind` (directly, or every motor of its
// coupling); throws when some have it and some do not (or `required`).
bool everyJointHas(const LogMap& m, const RigidModel& model, const Plan& p, const std::vector<JointSource>& src, int kind,
                   bool required) {
  int have = 0;
  std::string missing;
  int missing_line = m.root_line;
  for (int j = 0; j < model.num_joints; ++j) {
    bool has = true;
    int line = m.root_line;
    if (src[j].direct >= 0) {
      has = channelOf(m.joints[static_cast<std::size_t>(src[j].direct)], kind).present();
      line = m.joints[static_cast<std::size_t>(src[j].direct)].line;
    } else {
      for (int k : p.coupling_motor[static_cast<std::size_t>(src[j].coupling)]) {
        has = has && channelOf(m.motors[static_cast<std::size_t>(k)], kind).present();
        if (!channelOf(m.motors[static_cast<std::size_t>(k)], kind).present()) line = m.motors[static_cast<std::size_t>(k)].line;
      }
    }
    if (has) ++have;
    else if (missing.empty()) {
      missing = model.joint_name[j];
      missing_line = line;
    }
  }
  if (have == model.num_joints) return true;
  if (required || have > 0) {
    mapFail(m, missing_line, std::string("joint '") + missing + "' has no " + kKindName[kind] + " column" +
                                 (required ? " (the scene's sensors log one for every joint)"
                                           : " (other joints have one: all joints or none)"));
  }
  return false;
}

}  // namespace

Plan makePlan(const LogMap& m, const RigidModel& model, const EvaluationInputs& inputs) {
  Plan p;
  const int nj = model.num_joints;
  p.joint.assign(static_cast<std::size_t>(nj), {});
  auto resolve = [&](const std::string& name, int line, const char* what) {
    const int j = jointIndex(model, name);
    if (j < 0) {
      mapFail(m, line, std::string(what) + " '" + name + "' is no movable joint of the robot (its joints: " +
                           joinNames(model.joint_name) + ")");
    }
    return j;
  };
  for (std::size_t d = 0; d < m.joints.size(); ++d) {
    p.joint[static_cast<std::size_t>(resolve(m.joints[d].name, m.joints[d].line, "<joint>"))].direct = static_cast<int>(d);
  }
  for (std::size_t c = 0; c < m.couplings.size(); ++c) {
    const LogCoupling& cp = m.couplings[c];
    std::vector<int> motors;
    for (const std::string& name : cp.motors) {
      for (std::size_t k = 0; k < m.motors.size(); ++k) {
        if (m.motors[k].name == name) motors.push_back(static_cast<int>(k));
      }
    }
    p.coupling_motor.push_back(motors);
    const MatrixXd GM = cp.gear.asDiagonal() * cp.linkage;
    p.angle_from_motor.push_back(GM.fullPivLu().inverse());  // (L2)
    p.torque_from_motor.push_back(GM.transpose());           // power balance
    for (const std::string& name : cp.joints) {
      p.joint[static_cast<std::size_t>(resolve(name, cp.line, "<coupling> joint"))].coupling = static_cast<int>(c);
    }
  }
  for (int j = 0; j < nj; ++j) {
    if (p.joint[static_cast<std::size_t>(j)].direct < 0 && p.joint[static_cast<std::size_t>(j)].coupling < 0) {
      mapFail(m, m.root_line, "joint '" + model.joint_name[j] + "' of the robot is in no <joint> or <coupling>");
    }
  }
  everyJointHas(m, model, p, p.joint, 0, true);
  p.currents = inputs.layout.has_currents && everyJointHas(m, model, p, p.joint, 2, true);
  p.torques = everyJointHas(m, model, p, p.joint, 3, false);
  // The IMU and every force sensor of the scene's layout.
  p.imu = !inputs.layout.imu.name.empty();
  if (p.imu && !m.has_imu) mapFail(m, m.root_line, "the robot's IMU '" + inputs.layout.imu.name + "' has no <imu> in the map");
  if (!p.imu && m.has_imu) mapFail(m, m.imu_line, "<imu>: the scene's robot has no IMU to read it as");
  for (const LoggedForceSensor& f : m.force_sensors) {
    const bool known = std::any_of(inputs.layout.force_sensors.begin(), inputs.layout.force_sensors.end(),
                                   [&](const SensorMount& s) { return s.name == f.name; });
    if (!known) mapFail(m, f.line, "<force_sensor> '" + f.name + "' is no force sensor of the scene's robot");
  }
  for (const SensorMount& s : inputs.layout.force_sensors) {
    int found = -1;
    for (std::size_t k = 0; k < m.force_sensors.size(); ++k) {
      if (m.force_sensors[k].name == s.name) found = static_cast<int>(k);
    }
    if (found < 0) mapFail(m, m.root_line, "the robot's force sensor '" + s.name + "' has no <force_sensor> in the map");
    p.force_sensor.push_back(found);
  }
  // Winding temperatures: a <channel> "<joint>.winding_temperature" per joint, or none used.
  p.temperature.assign(static_cast<std::size_t>(nj), -1);
  for (int j = 0; j < nj; ++j) {
    for (std::size_t c = 0; c < m.channels.size(); ++c) {
      if (m.channels[c].first == model.joint_name[j] + ".winding_temperature") p.temperature[static_cast<std::size_t>(j)] = static_cast<int>(c);
    }
  }
  if (std::find(p.temperature.begin(), p.temperature.end(), -1) != p.temperature.end()) p.temperature.clear();
  // What a joint can do: its limits widened by the margin, its speed limit
  // (the description's, with the margin) or the map's bound for all.
  for (int j = 0; j < nj; ++j) {
    double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
    if (const auto it = inputs.layout.joint_limits.find(model.joint_name[j]); it != inputs.layout.joint_limits.end()) {
      lo = it->second.first - m.limit_margin;
      hi = it->second.second + m.limit_margin;
    }
    p.lower.push_back(lo);
    p.upper.push_back(hi);
    double bound = m.max_speed;
    const int k = inputs.apriori.findJoint(model.joint_name[j]);
    if (k >= 0) {
      const double limit = inputs.apriori.joints[static_cast<std::size_t>(k)].velocity_limit;
      if (std::isfinite(limit) && limit > 0.0) bound = limit * (1.0 + m.speed_margin);
    }
    p.speed_bound.push_back(bound);
  }
  return p;
}

}  // namespace suitsim::eval::log_plan
