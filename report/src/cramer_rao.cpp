// The Cramér-Rao bound of the band stiffness (cramer_rao.h).
#include "suitsim/report/cramer_rao.h"

#include <cmath>
#include <limits>

#include "suitsim/eval/band_identification.h"

namespace suitsim::report {

TorqueNoise torqueNoise(const io::SceneDescription& scene) {
  TorqueNoise out;
  if (!scene.robot || !scene.robot->declared_sensors) return out;
  const SensorSpec& s = *scene.robot->declared_sensors;
  const RobotDescription& truth = scene.robot->truth;
  out.rate = s.rate;
  const double on = s.noise ? 1.0 : 0.0;  // noise="off": ideal sensors
  // The channels' `hinges` hold description joints (scene.h).
  for (std::size_t c = 0; c < s.currents.hinges.size(); ++c) {
    const JointActuation& a = truth.joints[static_cast<std::size_t>(s.currents.hinges[c])].actuation;
    // The smaller of the drive's two gains (η_f k driving, k / η_b
    // backdriven): less noise keeps the bound a lower one.
    out.current[s.currents.names[c]] = on * std::abs(a.motor_constant * a.gear_efficiency) * s.currents.noise;
  }
  for (const ForceSensorSpec& f : s.force_sensors) {
    out.force_sensor[f.name] = {on * std::sqrt(f.force_noise * f.force_noise + f.force_resolution * f.force_resolution / 12.0),
                                on * std::sqrt(f.torque_noise * f.torque_noise + f.torque_resolution * f.torque_resolution / 12.0)};
  }
  const JointTorqueSpec& t = s.joint_torques;
  for (std::size_t c = 0; c < t.hinges.size(); ++c) {
    out.torque_sensor[t.names[c]] = on * std::sqrt(t.noise * t.noise + t.resolution * t.resolution / 12.0);
  }
  return out;
}

double cramerRaoStd(const eval::UnitInformation& info, const TorqueNoise& noise, eval::SupportMethod method,
                    bool torque_sensors) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (info.parameter.empty() || info.stiffness < 0 || info.joint.empty() || !(noise.rate > 0.0) ||
      !(info.row_interval > 0.0)) {
    return kNaN;
  }
  // A(3) subtracts two trials' readings, A(4) reads one.
  const bool two_trials = method == eval::SupportMethod::kApproachA || method == eval::SupportMethod::kAprioriA;
  const double trials = two_trials ? 2.0 : 1.0;
  const double per_row = std::max(1.0, info.row_interval * noise.rate);
  const std::map<std::string, double>& channel = torque_sensors ? noise.torque_sensor : noise.current;
  const auto np = static_cast<Eigen::Index>(info.parameter.size());
  Eigen::MatrixXd stack(np * static_cast<Eigen::Index>(info.joint.size()), np);
  for (std::size_t j = 0; j < info.joint.size(); ++j) {
    const auto it = channel.find(info.joint[j]);
    if (it == channel.end()) return kNaN;
    double per_trial = it->second * it->second;
    for (std::size_t f = 0; f < info.force_sensor.size() && j < info.force_gain.size(); ++f) {
      const auto fs = noise.force_sensor.find(info.force_sensor[f]);
      if (fs == noise.force_sensor.end()) return kNaN;
      const double sf = fs->second.first, sm = fs->second.second;
      per_trial += info.force_gain[j][f] * sf * sf + info.moment_gain[j][f] * sm * sm;
    }
    const double variance = trials * per_trial;
    if (!(variance > 0.0)) return 0.0;  // a noise-free channel bounds nothing
    stack.middleRows(static_cast<Eigen::Index>(j) * np, np) = std::sqrt(per_row / variance) * info.factor[j];
  }
  // (Σ_j d T_jᵀT_j / (a σ_j²))⁻¹ by the reported std's own pseudo-inverse.
  return eval::parameterStd(stack, 1.0)[info.stiffness];
}

}  // namespace suitsim::report
