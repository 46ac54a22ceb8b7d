// Random states and error measures shared by the evaluator tests.
#pragma once

#include <cmath>
#include <numbers>
#include <random>
#include <sstream>
#include <string>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "suitsim/rigid/rigid_model.h"

namespace suitsim::eval::testutil {

inline Eigen::VectorXd randomVector(std::mt19937& rng, int n, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  Eigen::VectorXd x(n);
  for (int i = 0; i < n; ++i) x[i] = u(rng);
  return x;
}

/// Joint angles in [−π, π]; for a floating base a random orientation and a
/// position within 1 m of the origin. A fixed base stays at the identity.
inline Configuration randomConfiguration(const RigidModel& model, std::mt19937& rng) {
  Configuration q(randomVector(rng, model.num_joints, std::numbers::pi));
  if (model.floating_base) {
    std::normal_distribution<double> n(0.0, 1.0);
    Eigen::Quaterniond r(n(rng), n(rng), n(rng), n(rng));
    q.base_R = r.normalized().toRotationMatrix();
    q.base_p = randomVector(rng, 3, 1.0);
  }
  return q;
}

/// |a − b| / max(|b|, floor): relative error with a floor for tiny values.
template <typename A, typename B>
double relativeError(const A& a, const B& b, double floor = 1e-12) {
  return (a - b).norm() / std::max(b.norm(), floor);
}

inline double relativeError(double a, double b, double floor = 1e-12) {
  return std::abs(a - b) / std::max(std::abs(b), floor);
}

/// "1.234e-10": for RecordProperty, where std::to_string would print 0.000000.
inline std::string sci(double x) {
  std::ostringstream out;
  out.precision(3);
  out << std::scientific << x;
  return out.str();
}

/// vee of the antisymmetric part: for R_plus R_minusᵀ ≈ exp(2h [ω]) this is 2h ω.
inline Eigen::Vector3d veeAntisymmetric(const Eigen::Matrix3d& A) {
  const Eigen::Matrix3d S = 0.5 * (A - A.transpose());
  return Eigen::Vector3d(S(2, 1), S(0, 2), S(1, 0));
}

}  // namespace suitsim::eval::testutil
