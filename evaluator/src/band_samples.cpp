// The band fit's inputs: the wire samples A(21)-(23), the stiffness
// groups, and which bands are fitted (the relevance screen), each checked.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "suitsim/rigid/kinematics.h"
#include "band_problem.h"

namespace suitsim::eval {

using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace band_fit {

[[noreturn]] void argumentError(const char* function, const std::string& what) {
  throw std::invalid_argument(std::string(function) + ": " + what);
}

std::string shape(const MatrixXd& m) {
  return std::to_string(m.rows()) + " x " + std::to_string(m.cols());
}

void checkSamples(const char* function, const WireSamples& s) {
  const long n = s.length.rows(), b = s.numBands(), m = s.numJoints();
  if (n == 0) argumentError(function, "no samples (N = 0)");
  if (b == 0) argumentError(function, "no bands in the samples");
  if (m == 0) argumentError(function, "no joints in the samples");
  if (s.length.cols() != b) {
    argumentError(function, "length is " + shape(s.length) + ", expected N x " + std::to_string(b) +
                                " (one column per band)");
  }
  if (static_cast<long>(s.jacobian.size()) != b) {
    argumentError(function, "jacobian has " + std::to_string(s.jacobian.size()) +
                                " matrices, expected one per band (" + std::to_string(b) + ")");
  }
  for (long i = 0; i < b; ++i) {
    const MatrixXd& J = s.jacobian[i];
    if (J.rows() != n || J.cols() != m) {
      argumentError(function, "jacobian of band '" + s.band[i] + "' is " + shape(J) + ", expected " +
                                  std::to_string(n) + " x " + std::to_string(m));
    }
    if (!J.allFinite()) {
      argumentError(function, "jacobian of band '" + s.band[i] + "' has non-finite entries");
    }
  }
  if (!s.length.allFinite()) argumentError(function, "length has non-finite entries");
}

// identifyBands' options, checked.
void checkOptions(const char* function, const BandIdentificationOptions& options) {
  if (options.groups.empty()) argumentError(function, "no stiffness groups");
  if (options.num_starts < 1) {
    argumentError(function, "num_starts must be >= 1 (got " + std::to_string(options.num_starts) + ")");
  }
  if (options.max_iterations < 1) {
    argumentError(function,
                  "max_iterations must be >= 1 (got " + std::to_string(options.max_iterations) + ")");
  }
  if (!(options.relevance_threshold >= 0.0 && options.relevance_threshold < 1.0)) {
    argumentError(function, "relevance_threshold must be in [0, 1) (got " +
                                 std::to_string(options.relevance_threshold) + ")");
  }
  for (double w : options.smoothing_widths) {
    if (!(w > 0.0) || !std::isfinite(w)) {
      argumentError(function, "smoothing widths must be > 0 (got " + std::to_string(w) + ")");
    }
  }
  if (!(options.max_relative_std > 0.0) || !std::isfinite(options.max_relative_std)) {
    argumentError(function, "max_relative_std must be > 0 (got " + std::to_string(options.max_relative_std) + ")");
  }
  if (!(options.twin_taut_ratio >= 0.0 && options.twin_taut_ratio < 1.0)) {
    argumentError(function, "twin_taut_ratio must be in [0, 1) (got " + std::to_string(options.twin_taut_ratio) + ")");
  }
  if (!(options.torque_noise_std >= 0.0) || !std::isfinite(options.torque_noise_std)) {
    argumentError(function, "torque_noise_std must be >= 0 (got " + std::to_string(options.torque_noise_std) + ")");
  }
}

// Each band's stiffness group (res.band, res.band_group), checked.
void assignGroups(const char* function, const WireSamples& samples, const BandIdentificationOptions& options,
                  BandIdentificationResult& res) {
  res.band = samples.band;
  res.band_group.assign(static_cast<std::size_t>(samples.numBands()), -1);
  for (std::size_t gi = 0; gi < options.groups.size(); ++gi) {
    const StiffnessGroup& group = options.groups[gi];
    if (group.bands.empty()) argumentError(function, "stiffness group '" + group.name + "' has no bands");
    for (const std::string& name : group.bands) {
      const auto it = std::find(samples.band.begin(), samples.band.end(), name);
      if (it == samples.band.end()) {
        argumentError(function, "stiffness group '" + group.name + "': unknown band '" + name + "'");
      }
      const auto i = static_cast<std::size_t>(it - samples.band.begin());
      if (res.band_group[i] >= 0) {
        argumentError(function, "band '" + name + "' is in two stiffness groups ('" +
                                     options.groups[res.band_group[i]].name + "' and '" + group.name + "')");
      }
      res.band_group[i] = static_cast<int>(gi);
    }
  }
}

// Each band's observed length range, and the relevance screen: the bands
// whose largest possible torque is under the threshold of the strongest
// band's are not fitted (res.relevance, res.fitted).
void screenRelevance(const WireSamples& samples, const BandIdentificationOptions& options, VectorXd& l_min,
                     VectorXd& l_range, BandIdentificationResult& res) {
  const int n = samples.numSamples(), nb = samples.numBands();
  l_min.resize(nb);
  l_range.resize(nb);
  VectorXd effect(nb);
  for (int i = 0; i < nb; ++i) {
    l_min[i] = samples.length.col(i).minCoeff();
    l_range[i] = samples.length.col(i).maxCoeff() - l_min[i];
    // Largest possible torque of band i at unit stiffness: taut from its
    // shortest observed length on.
    double sum = 0.0;
    for (int t = 0; t < n; ++t) {
      const double stretch = samples.length(t, i) - l_min[i];
      sum += stretch * stretch * samples.jacobian[i].row(t).squaredNorm();
    }
    effect[i] = std::sqrt(sum / n);
  }
  const double strongest = effect.maxCoeff();
  res.relevance.resize(nb);
  res.fitted.assign(nb, false);
  for (int i = 0; i < nb; ++i) {
    res.relevance[i] = strongest > 0.0 ? effect[i] / strongest : 0.0;
    res.fitted[i] = res.band_group[i] >= 0 && (options.relevance_threshold == 0.0 ||
                                               res.relevance[i] >= options.relevance_threshold);
  }
}

}  // namespace band_fit

using namespace band_fit;  // band_problem.h

WireSamples sampleWires(const RigidModel& model, const std::vector<WireGeometry>& wires,
                        const Eigen::MatrixXd& joint_angles, const std::vector<std::string>& joints) {
  constexpr const char* kFunction = "sampleWires";
  if (joint_angles.rows() == 0) argumentError(kFunction, "no samples (joint_angles has 0 rows)");
  if (joint_angles.cols() != model.num_joints) {
    argumentError(kFunction, "joint_angles is " + shape(joint_angles) + ", expected N x " +
                                 std::to_string(model.num_joints) + " (num_joints)");
  }
  if (!joint_angles.allFinite()) argumentError(kFunction, "joint_angles has non-finite entries");
  if (wires.empty()) argumentError(kFunction, "no wires");
  if (joints.empty()) argumentError(kFunction, "no joints chosen");
  std::vector<int> column;
  for (const std::string& name : joints) {
    const int j = jointIndex(model, name);
    if (j < 0) argumentError(kFunction, "unknown joint '" + name + "'");
    column.push_back(j);
  }
  const auto n = joint_angles.rows();
  const auto m = static_cast<Eigen::Index>(joints.size());
  WireSamples s;
  s.joint = joints;
  s.length.resize(n, static_cast<Eigen::Index>(wires.size()));
  for (const WireGeometry& w : wires) {
    s.band.push_back(w.name);
    s.jacobian.emplace_back(n, m);
  }
  RigidData data(model);
  Configuration q(VectorXd::Zero(model.num_joints));
  Eigen::RowVectorXd J(model.num_joints);
  for (Eigen::Index t = 0; t < n; ++t) {
    q.joints = joint_angles.row(t).transpose();
    forwardKinematics(model, data, q);
    for (std::size_t i = 0; i < wires.size(); ++i) {
      s.length(t, static_cast<Eigen::Index>(i)) = wireLengthJacobian(model, data, wires[i], J);
      for (Eigen::Index c = 0; c < m; ++c) s.jacobian[i](t, c) = J[column[c]];
    }
  }
  return s;
}

Eigen::MatrixXd predictSupportingTorque(const WireSamples& samples, const Eigen::VectorXd& stiffness,
                                        const Eigen::VectorXd& natural_length) {
  constexpr const char* kFunction = "predictSupportingTorque";
  checkSamples(kFunction, samples);
  const int b = samples.numBands();
  if (stiffness.size() != b || natural_length.size() != b) {
    argumentError(kFunction, "stiffness and natural_length need one entry per band (" +
                                 std::to_string(b) + "), got " + std::to_string(stiffness.size()) +
                                 " and " + std::to_string(natural_length.size()));
  }
  MatrixXd tau = MatrixXd::Zero(samples.numSamples(), samples.numJoints());
  for (int i = 0; i < b; ++i) {
    for (int t = 0; t < samples.numSamples(); ++t) {
      const double f = wireTension(samples.length(t, i), stiffness[i], natural_length[i]);
      // A(21): τ_support = −J_iᵀ f_i.
      if (f != 0.0) tau.row(t).noalias() -= f * samples.jacobian[i].row(t);
    }
  }
  return tau;
}

std::vector<StiffnessGroup> stiffnessGroups(const std::vector<RobotBand>& bands) {
  std::vector<StiffnessGroup> groups;
  for (const RobotBand& b : bands) {
    const std::string& name = b.group.empty() ? b.name : b.group;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const StiffnessGroup& g) { return g.name == name; });
    if (it == groups.end()) {
      groups.push_back({name, {b.name}});
    } else {
      it->bands.push_back(b.name);
    }
  }
  return groups;
}

}  // namespace suitsim::eval
