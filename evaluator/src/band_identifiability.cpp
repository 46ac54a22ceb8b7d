// The band fit's uncertainty and verdicts: the residual's correlation
// time, each parameter's standard deviation, and whether each group's
// stiffness is identifiable, with the reason (the design note in
// band_identification.h, "Identifiability").
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>


#include "suitsim/core/statistics.h"
#include "suitsim/eval/least_squares.h"
#include "suitsim/eval/parameter_correlation.h"
#include "band_problem.h"

namespace suitsim::eval {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// The residual's autocorrelation time (core/statistics.h: each joint's, by
// its share of the residual power); r is N m with entry t m + c, one
// unbroken stretch of n samples.
double residualCorrelationTime(const VectorXd& r, int n, int m) {
  if (n < 3) return 1.0;
  const auto autocovariance = [&](int j, int lag) {
    double c = 0.0;
    for (int t = 0; t + lag < n; ++t) c += r[t * m + j] * r[(t + lag) * m + j];
    return c;
  };
  return meanAutocorrelationTime(m, autocovariance, n / 2);
}

VectorXd parameterStd(const MatrixXd& G, double sigma2) {
  return band_fit::parameterStd(jacobianCovariance(G), G, sigma2);
}

namespace band_fit {

VectorXd parameterStd(const UnitCovariance& c, const MatrixXd& G, double sigma2) {
  const Eigen::Index np = G.cols();
  VectorXd std_dev = VectorXd::Constant(np, std::numeric_limits<double>::infinity());
  if (!std::isfinite(sigma2)) return std_dev;
  for (Eigen::Index a = 0; a < np; ++a) {
    if (c.finite[static_cast<std::size_t>(a)]) std_dev[a] = std::sqrt(sigma2 * c.scaled(a, a)) / G.col(a).norm();
  }
  return std_dev;
}

std::string figure(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

// Per fitted group: its stiffness, std and whether it is identifiable, with
// the reason and the figures behind it.
void judgeGroups(const Problem& p, const WireSamples& samples, const BandIdentificationOptions& options,
                 const std::vector<int>& param_group, const VectorXd& best_l0, const Projection& fit,
                 const VectorXd& std_dev, const UnitCovariance& covariance, int nk, BandIdentificationResult& res) {
  const int n = samples.numSamples(), m = samples.numJoints(), nf = p.numBands();
  const Eigen::Index rows = static_cast<Eigen::Index>(n) * m;
  const std::string threshold = figure("%.3g %%", 100.0 * options.max_relative_std);
  for (int kp = 0; kp < p.num_k; ++kp) {
    const int g = param_group[kp];
    const double k = fit.k[kp];
    res.stiffness_fit[g] = k;
    res.stiffness_std[g] = std_dev[kp];
    res.relative_std[g] = std_dev[kp] / std::abs(k);
    double stretch = 0.0;
    int taut = 0;
    for (int b = 0; b < nf; ++b) {
      if (p.band_k[b] != kp) continue;
      const int i = p.band[b];
      // How much the stretch max(0, l − l0) varies over the samples: with l0
      // free, a constant stretch cannot tell k from l0.
      const double longest = samples.length.col(i).maxCoeff() - best_l0[b];
      const double shortest = samples.length.col(i).minCoeff() - best_l0[b];
      stretch = std::max(stretch, std::max(longest, 0.0) - std::max(shortest, 0.0));
      taut = std::max(taut, res.taut_samples[i]);
    }
    res.group_stretch[g] = stretch;
    res.group_torque_rms[g] = std::abs(k) * fit.phi.col(kp).norm() / std::sqrt(static_cast<double>(rows));
    const std::string context = "; stretch " + figure("%.3g mm", 1e3 * stretch) +
                                " and RMS torque " + figure("%.3g N m", res.group_torque_rms[g]) + " over " +
                                std::to_string(n) + " samples";
    std::string reason;
    bool ok = false;
    if (taut == 0) {
      reason = "never taut at the estimate (0 of " + std::to_string(n) + " samples)";
    } else if (!std::isfinite(res.noise_std)) {
      reason = "too few samples for the parameters (" + std::to_string(rows) + " torques, " +
               std::to_string(nk) + " parameters)";
    } else if (!std::isfinite(std_dev[kp])) {
      reason = "not separable from the natural lengths or the other groups' stiffness";
    } else if (!(k > 0.0)) {
      reason = "stiffness " + figure("%.3g N/m", k) + " is not positive (std " + figure("%.3g N/m", std_dev[kp]) + ")";
    } else {
      ok = res.relative_std[g] <= options.max_relative_std;
      reason = "relative std " + figure("%.3g %%", 100.0 * res.relative_std[g]) + (ok ? " <= " : " > ") + threshold;
    }
    res.group_identifiable[g] = ok;
    res.group_reason[g] = reason + context;
    if (ok) res.stiffness[g] = k;
  }
  // A(21) sums every group's pull on a joint, so a group fitted beside one
  // whose stiffness came out negative beyond its noise (k + 3 std < 0: no
  // band pushes, so the model does not fit these rows) is only as good as
  // that impossible estimate when the two trade (|r| >= 0.5, the report's
  // threshold for "trades with"): the fit has put the one's torque into the
  // other. Such a group is not identifiable in this fit; its own std cannot
  // say so, being computed as if the model fitted. A non-positive estimate
  // within 3 std of zero is merely undetermined, and the covariance the
  // other's std comes from already carries that.
  std::vector<int> impossible;
  for (int kp = 0; kp < p.num_k; ++kp) {
    if (std::isfinite(fit.k[kp]) && std::isfinite(std_dev[kp]) && fit.k[kp] + 3.0 * std_dev[kp] < 0.0) {
      impossible.push_back(kp);
    }
  }
  if (impossible.empty()) return;
  const MatrixXd r = correlation(covariance);
  for (int kp = 0; kp < p.num_k; ++kp) {
    const int g = param_group[kp];
    if (!res.group_identifiable[g]) continue;
    for (int other : impossible) {
      const double rho = r(kp, other);
      if (!(std::abs(rho) >= 0.5)) continue;
      const int h = param_group[other];
      res.group_identifiable[g] = false;
      res.stiffness[g] = std::numeric_limits<double>::quiet_NaN();
      res.group_reason[g] = "trades with group '" + options.groups[static_cast<std::size_t>(h)].name + "' (r " +
                            figure("%.2f", rho) + "), whose stiffness " + figure("%.3g N/m", fit.k[other]) +
                            " (std " + figure("%.3g N/m", std_dev[other]) + ") is negative; " + res.group_reason[g];
      break;
    }
  }
}

}  // namespace band_fit

}  // namespace suitsim::eval
