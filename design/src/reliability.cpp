// Predicted reliability of planned motions (reliability.h).
#include "reliability.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "suitsim/eval/least_squares.h"

namespace suitsim::design {

ReliabilityModel calibrateReliability(const Eigen::MatrixXd& measured_triangle, const Eigen::VectorXd& phi,
                                      const Eigen::VectorXd& relative_std, double target) {
  ReliabilityModel r;
  r.phi = phi;
  r.target = target;
  // The first columns are φ's (excitation.h); the rest are the joints'.
  const Eigen::VectorXd unit = eval::unitVariance(measured_triangle).head(phi.size());
  r.calibration = Eigen::VectorXd::Constant(phi.size(), std::nan(""));
  std::vector<double> valid;
  for (Eigen::Index p = 0; p < phi.size(); ++p) {
    const double sigma = relative_std(p) * std::abs(phi(p));
    if (std::isfinite(sigma) && sigma > 0.0 && std::isfinite(unit(p)) && unit(p) > 0.0) {
      r.calibration(p) = sigma * sigma / unit(p);
      valid.push_back(r.calibration(p));
    }
  }
  double median = 1.0;
  if (!valid.empty()) {
    std::nth_element(valid.begin(), valid.begin() + static_cast<std::ptrdiff_t>(valid.size() / 2), valid.end());
    median = valid[valid.size() / 2];
  }
  for (Eigen::Index p = 0; p < phi.size(); ++p) {
    if (!std::isfinite(r.calibration(p))) r.calibration(p) = median;
  }
  return r;
}

Eigen::VectorXd predictRelativeStd(const ReliabilityModel& model, const Eigen::MatrixXd& triangle) {
  const Eigen::VectorXd unit = eval::unitVariance(triangle).head(model.phi.size());
  Eigen::VectorXd out(unit.size());
  for (Eigen::Index p = 0; p < unit.size(); ++p) {
    const double scale = std::abs(model.phi(p));
    out(p) = (std::isfinite(unit(p)) && scale > 0.0) ? std::sqrt(model.calibration(p) * unit(p)) / scale
                                                      : std::numeric_limits<double>::infinity();
  }
  return out;
}

double reliabilityScore(const ReliabilityModel& model, const Eigen::MatrixXd& triangle) {
  const Eigen::VectorXd rs = predictRelativeStd(model, triangle);
  constexpr double kCap = 13.815510557964274;  // log 1e6
  double score = 0.0;
  for (Eigen::Index p = 0; p < rs.size(); ++p) {
    score += std::isfinite(rs(p)) ? std::min(kCap, std::log(std::max(rs(p), model.target) / model.target)) : kCap;
  }
  return score;
}

int countBelow(const Eigen::VectorXd& relative_std, double target) {
  int n = 0;
  for (Eigen::Index p = 0; p < relative_std.size(); ++p) {
    if (std::isfinite(relative_std(p)) && relative_std(p) < target) ++n;
  }
  return n;
}

}  // namespace suitsim::design
