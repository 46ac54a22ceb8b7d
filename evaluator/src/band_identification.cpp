// Identification of band stiffness and natural length, A(26) (see
// band_identification.h for the method).
#include "suitsim/eval/band_identification.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "band_problem.h"

namespace suitsim::eval {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using namespace band_fit;  // band_problem.h

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
// Squared residuals this small next to Σ ‖τ_s‖² are round-off.
constexpr double kRoundOff = 1e-24;

// Every estimate of the result unknown (NaN) until the fit gives it.
void clearEstimates(const BandIdentificationOptions& options, int nb, BandIdentificationResult& res) {
  const auto ng = static_cast<int>(options.groups.size());
  res.group.reserve(ng);
  for (const StiffnessGroup& group : options.groups) res.group.push_back(group.name);
  res.stiffness = VectorXd::Constant(ng, kNaN);
  res.stiffness_fit = VectorXd::Constant(ng, kNaN);
  res.stiffness_std = VectorXd::Constant(ng, kNaN);
  res.relative_std = VectorXd::Constant(ng, kNaN);
  res.group_stretch = VectorXd::Constant(ng, kNaN);
  res.group_torque_rms = VectorXd::Constant(ng, kNaN);
  res.group_identifiable.assign(ng, false);
  res.group_reason.assign(ng, "");
  res.natural_length = VectorXd::Constant(nb, kNaN);
  res.natural_length_std = VectorXd::Constant(nb, kNaN);
  res.taut_samples.assign(nb, 0);
  res.never_taut.assign(nb, false);
}

}  // namespace

BandIdentificationResult identifyBands(const WireSamples& samples,
                                       const Eigen::MatrixXd& supporting_torque,
                                       const BandIdentificationOptions& options) {
  constexpr const char* kFunction = "identifyBands";
  checkSamples(kFunction, samples);
  const int n = samples.numSamples(), nb = samples.numBands(), m = samples.numJoints();
  if (supporting_torque.rows() != n || supporting_torque.cols() != m) {
    argumentError(kFunction, "supporting_torque is " + shape(supporting_torque) + ", expected " +
                                 std::to_string(n) + " x " + std::to_string(m) +
                                 " (samples x chosen joints)");
  }
  if (!supporting_torque.allFinite()) {
    argumentError(kFunction, "supporting_torque has non-finite entries");
  }
  checkOptions(kFunction, options);
  BandIdentificationResult res;
  assignGroups(kFunction, samples, options, res);
  VectorXd l_min, l_range;
  screenRelevance(samples, options, l_min, l_range, res);
  // ---- parameters -----------------------------------------------------------------
  const auto ng = static_cast<int>(options.groups.size());
  std::vector<int> group_param(ng, -1);
  Problem p;
  p.samples = &samples;
  p.torque.resize(static_cast<Eigen::Index>(n) * m);
  for (int t = 0; t < n; ++t) {
    for (int c = 0; c < m; ++c) p.torque[t * m + c] = supporting_torque(t, c);
  }
  p.torque_sq = p.torque.squaredNorm();
  std::vector<int> param_group;  // group of each fitted stiffness
  for (int i = 0; i < nb; ++i) {
    if (!res.fitted[i]) continue;
    const int gi = res.band_group[i];
    if (group_param[gi] < 0) {
      group_param[gi] = static_cast<int>(param_group.size());
      param_group.push_back(gi);
    }
    p.band.push_back(i);
  }
  p.num_k = static_cast<int>(param_group.size());
  for (int i : p.band) p.band_k.push_back(group_param[res.band_group[i]]);
  const int nf = p.numBands();

  clearEstimates(options, nb, res);
  res.torque_rms = std::sqrt(p.torque_sq / (static_cast<double>(n) * m));
  res.rmse = res.torque_rms;
  for (int g = 0; g < ng; ++g) {
    if (group_param[g] >= 0) continue;
    double relevance = 0.0;
    for (const std::string& name : options.groups[g].bands) {
      const auto i = std::find(samples.band.begin(), samples.band.end(), name) - samples.band.begin();
      relevance = std::max(relevance, res.relevance[i]);
    }
    res.group_reason[g] = "not fitted: its bands' relevance " + figure("%.3g", relevance) + " < " +
                          figure("%.3g", options.relevance_threshold) + " on these joints";
  }
  for (int i = 0; i < nb; ++i) {
    if (!res.fitted[i]) res.band_group[i] = -1;
  }
  res.group_observable = res.group_identifiable;
  if (nf == 0) return res;  // nothing left to fit: τ̂ = 0

  // The box for l0 (see the design note): a natural length is not negative,
  // and one range above the longest length the band is slack throughout.
  p.l0_lower = VectorXd::Zero(nf);
  p.l0_upper.resize(nf);
  for (int b = 0; b < nf; ++b) p.l0_upper[b] = l_min[p.band[b]] + 2.0 * l_range[p.band[b]];

  VectorXd best_l0;
  multiStart(p, samples, options, l_min, l_range, res, best_l0);
  if (res.best_start < 0) return res;  // every start diverged (non-finite cost)
  // A group whose pull the data do not need (k fits to zero: its torque is
  // round-off) can have its bands slack or taut alike; the smoothing stages
  // tend to leave them taut at some arbitrary l0. Such bands are made
  // slack: "never taut" is what the result then says. (Only at round-off: a
  // band whose mirror image carries its pull, on a symmetric motion, is not
  // touched, since one band at 2k and two at k fit alike.)
  VectorXd width = VectorXd::Zero(nf);
  {
    Projection at_best;
    project(p, best_l0, width, false, at_best);
    for (int b = 0; b < nf; ++b) {
      const int kp = p.band_k[b];
      if ((at_best.k[kp] * at_best.phi.col(kp)).squaredNorm() <= kRoundOff * p.torque_sq) {
        best_l0[b] = p.l0_upper[b];
      }
    }
  }

  // ---- the estimate ---------------------------------------------------------------------
  Projection fit;
  width.setZero();
  project(p, best_l0, width, false, fit);
  for (int b = 0; b < nf; ++b) {
    const int i = p.band[b];
    res.natural_length[i] = best_l0[b];
    res.taut_samples[i] = static_cast<int>((samples.length.col(i).array() > best_l0[b]).count());
    res.never_taut[i] = res.taut_samples[i] == 0;
  }
  res.rmse = std::sqrt(fit.cost / (static_cast<double>(n) * m));

  // ---- uncertainty: σ² c (GᵀG)⁺ with G = ∂r/∂[k, l0] ------------------------------------
  const int np = p.num_k + nf;
  const Eigen::Index rows = static_cast<Eigen::Index>(n) * m;
  MatrixXd G(rows, np);
  G.leftCols(p.num_k) = -fit.phi;
  for (int b = 0; b < nf; ++b) G.col(p.num_k + b) = fit.k[p.band_k[b]] * fit.e.col(b);
  // Parameters that act nowhere (zero columns) have no std and cost no
  // degree of freedom.
  const int nk = static_cast<int>((G.colwise().norm().array() > 0.0).count());
  if (options.torque_noise_std > 0.0) {
    res.noise_std = options.torque_noise_std;
    res.noise_correlation = 1.0;
  } else {
    res.noise_std = rows > nk ? std::sqrt(fit.cost / static_cast<double>(rows - nk)) : kInf;
    res.noise_correlation = residualCorrelationTime(fit.r, n, m);
  }
  const UnitCovariance covariance = jacobianCovariance(G);
  const VectorXd std_dev = band_fit::parameterStd(covariance, G, res.noise_std * res.noise_std * res.noise_correlation);
  res.group_parameter.assign(static_cast<std::size_t>(ng), -1);
  for (int kp = 0; kp < p.num_k; ++kp) {
    res.group_parameter[static_cast<std::size_t>(param_group[kp])] = kp;
    res.parameter.push_back("k:" + options.groups[static_cast<std::size_t>(param_group[kp])].name);
  }
  for (int b = 0; b < nf; ++b) res.parameter.push_back("l0:" + samples.band[static_cast<std::size_t>(p.band[b])]);
  for (int b = 0; b < nf; ++b) res.natural_length_std[p.band[b]] = std_dev[p.num_k + b];

  judgeGroups(p, samples, options, param_group, best_l0, fit, std_dev, covariance, nk, res);
  res.group_observable = res.group_identifiable;
  res.jacobian = std::move(G);
  return res;
}

BandIdentificationResult identifyBands(const RigidModel& model,
                                       const std::vector<WireGeometry>& wires,
                                       const Eigen::MatrixXd& joint_angles,
                                       const std::vector<std::string>& joints,
                                       const Eigen::MatrixXd& supporting_torque,
                                       const BandIdentificationOptions& options) {
  return identifyBands(sampleWires(model, wires, joint_angles, joints), supporting_torque, options);
}

}  // namespace suitsim::eval
