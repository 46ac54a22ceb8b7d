// The residuals of the robot's identification at an estimate x = [φ; ξ]:
// their power per equation, the torque the static friction holds at rest,
// and their autocorrelation time.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "suitsim/core/statistics.h"
#include "identification_problem.h"
#include "motion_samples.h"

namespace suitsim::eval::robot_fit {

namespace {

/// Residual of equation e at sample t of trial k, given y = Y φ of that
/// trial (perSample); false for a joint row left out of the least squares.
bool rowResidual(const Problem& p, std::size_t k, const MatrixXd& y, const VectorXd& x, int t, int e, double* res) {
  *res = y(t, e) - p.F[k](t, e);
  if (e < p.nbase) return true;
  const int i = e - p.nbase;
  const JointRow& z = p.z[k][static_cast<std::size_t>(t) * p.nj + i];
  if (!z.used) return false;
  for (int a = 0; a < kXi; ++a) *res += zValue(z, a) * x[xiColumn(p, a, i)];
  return true;
}

}  // namespace

using namespace samples;  // motion_samples.h

/// Sum of squared residuals per equation (nv) at x.
VectorXd residualPower(const Problem& p, const VectorXd& x, bool joints, VectorXd* count) {
  VectorXd power = VectorXd::Zero(p.nv);
  *count = VectorXd::Zero(p.nv);
  for (std::size_t k = 0; k < p.rows.size(); ++k) {
    const MotionData& d = *p.trials[k];
    const MatrixXd y = perSample(p.rows[k], x.head(p.nb), p.nv);
    for (int t = 0; t < d.numSamples(); ++t) {
      for (int e = 0; e < (joints ? p.nv : 6); ++e) {
        double res = 0.0;
        if (!rowResidual(p, k, y, x, t, e, &res)) continue;
        power[e] += res * res;
        (*count)[e] += 1.0;
      }
    }
  }
  return power;
}

/// Per joint, the `static_quantile` quantile of |k_T u + τ_o − Y_j φ + F_j|,
/// the torque the friction holds, over the samples where the joint is at
/// rest (|θ̇| ≤ stop_velocity); NaN for a joint never at rest.
VectorXd restHoldQuantile(const Problem& p, const VectorXd& x, const IdentificationOptions& o) {
  std::vector<std::vector<double>> held(static_cast<std::size_t>(p.nj));
  const JointParameters xi = JointParameters::fromStacked(x.tail(kXi * p.nj));
  for (std::size_t k = 0; k < p.trials.size(); ++k) {
    const MotionData& d = *p.trials[k];
    const MatrixXd y = perSample(p.rows[k], x.head(p.nb), p.nv);
    for (int t = 0; t < d.numSamples(); ++t) {
      for (int i = 0; i < p.nj; ++i) {
        if (std::abs(d.qd(t, i)) > o.stop_velocity || p.follower[static_cast<std::size_t>(i)]) continue;
        // p.F holds a known k_T's k_T u already.
        const double drive = p.known_gain[static_cast<std::size_t>(i)] ? 0.0 : x[xiColumn(p, 0, i)] * d.current(t, i);
        const double h = drive + x[xiColumn(p, 4, i)] - y(t, p.nbase + i) + p.F[k](t, p.nbase + i) +
                         xi.backdrive_excess[i] * backdrivenLoad(xi, i, d.current(t, i), d.qd(t, i)) -
                         (o.fitArmature() ? x[xiColumn(p, 5, i)] * d.qdd(t, i) : 0.0);
        held[static_cast<std::size_t>(i)].push_back(std::abs(h));
      }
    }
  }
  VectorXd out(p.nj);
  for (int i = 0; i < p.nj; ++i) {
    std::vector<double>& h = held[static_cast<std::size_t>(i)];
    if (h.empty()) {
      out[i] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    const double q = std::clamp(o.static_quantile, 0.0, 1.0);
    const std::size_t at = std::min(h.size() - 1, static_cast<std::size_t>(q * static_cast<double>(h.size() - 1) + 0.5));
    std::nth_element(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(at), h.end());
    out[i] = h[at];
  }
  return out;
}

/// The autocorrelation time (core/statistics.h, in samples) of the weighted
/// residuals at x: each equation's own, from pairs within one trial and
/// one unbroken stretch of used rows (a joint at rest leaves its rows out),
/// lags up to half the longest stretch, averaged with each equation's share
/// of the weighted residual power. The band fit uses the same rule
/// (band_identifiability.cpp).
double residualCorrelationTime(const Problem& p, const VectorXd& x, bool joints, const VectorXd& weight) {
  const int ne = joints ? p.nv : 6;
  // Per trial and equation: the residual and the stretch each sample is in
  // (-1 where the row is not used).
  struct Series {
    std::vector<double> r;
    std::vector<int> stretch;
  };
  std::vector<std::vector<Series>> series(static_cast<std::size_t>(ne));
  int longest = 0;
  for (std::size_t k = 0; k < p.rows.size(); ++k) {
    const MotionData& d = *p.trials[k];
    const int n = d.numSamples();
    const MatrixXd y = perSample(p.rows[k], x.head(p.nb), p.nv);
    for (int e = 0; e < ne; ++e) {
      if (weight[e] == 0.0) continue;
      Series s;
      s.r.assign(static_cast<std::size_t>(n), 0.0);
      s.stretch.assign(static_cast<std::size_t>(n), -1);
      int id = 0, run = 0;
      for (int t = 0; t < n; ++t) {
        const auto i = static_cast<std::size_t>(t);
        if (rowResidual(p, k, y, x, t, e, &s.r[i])) {
          s.stretch[i] = id;
          longest = std::max(longest, ++run);
        } else if (run > 0) {
          ++id;
          run = 0;
        }
      }
      series[static_cast<std::size_t>(e)].push_back(std::move(s));
    }
  }
  // An equation's autocovariance sums its trials' pairs.
  const auto autocovariance = [&](int e, int lag) {
    double c = 0.0;
    for (const Series& s : series[static_cast<std::size_t>(e)]) {
      const int n = static_cast<int>(s.r.size());
      for (int t = 0; t + lag < n; ++t) {
        const auto i = static_cast<std::size_t>(t), j = static_cast<std::size_t>(t + lag);
        if (s.stretch[i] >= 0 && s.stretch[i] == s.stretch[j]) c += s.r[i] * s.r[j];
      }
    }
    return weight[e] * c;
  };
  return meanAutocorrelationTime(ne, autocovariance, longest / 2);
}

}  // namespace suitsim::eval::robot_fit
