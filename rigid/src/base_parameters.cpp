#include "suitsim/rigid/base_parameters.h"

#include <Eigen/Geometry>
#include <Eigen/QR>
#include <cmath>
#include <random>

#include "suitsim/core/decompositions.h"
#include "suitsim/core/random.h"
#include "suitsim/rigid/regressor.h"

namespace suitsim::eval {

Eigen::VectorXd BaseParameters::fromStandard(const Eigen::VectorXd& phi) const {
  Eigen::VectorXd phi1(independent.size()), phi2(dependent.size());
  for (std::size_t i = 0; i < independent.size(); ++i) phi1[i] = phi[independent[i]];
  for (std::size_t i = 0; i < dependent.size(); ++i) phi2[i] = phi[dependent[i]];
  return phi1 + K * phi2;
}

Eigen::MatrixXd BaseParameters::reduce(const Eigen::MatrixXd& Y) const {
  Eigen::MatrixXd Y1(Y.rows(), independent.size());
  for (std::size_t i = 0; i < independent.size(); ++i) Y1.col(i) = Y.col(independent[i]);
  return Y1;
}

BaseParameters computeBaseParameters(const RigidModel& model, int samples, unsigned seed, double tolerance) {
  // Random states spread over the joint range and fast enough that every
  // velocity-dependent term shows; the base pose is random too.
  // Draws as core/random.h specifies them, the same with every standard library.
  BasicRandomStream<std::mt19937> rng(seed);
  const auto angle = [](BasicRandomStream<std::mt19937>& s) { return s.uniform(-M_PI, M_PI); };
  const auto rate = [](BasicRandomStream<std::mt19937>& s) { return s.uniform(-3.0, 3.0); };
  const auto unit = [](BasicRandomStream<std::mt19937>& s) { return s.uniform(-1.0, 1.0); };
  RigidData data(model);
  const int np = 10 * model.num_bodies;
  Eigen::MatrixXd W(static_cast<Eigen::Index>(samples) * model.nv, np);
  Eigen::MatrixXd Y;
  for (int s = 0; s < samples; ++s) {
    Configuration q = neutralConfiguration(model);
    for (int j = 0; j < model.num_joints; ++j) q.joints[j] = angle(rng);
    if (model.floating_base) {
      // One draw per statement: argument order is the compiler's to choose
      // (GCC takes the last first, as here).
      const double rz = unit(rng), ry = unit(rng), rx = unit(rng), rw = unit(rng);
      Eigen::Quaterniond r(rw, rx, ry, rz);
      q.base_R = r.normalized().toRotationMatrix();
    }
    Eigen::VectorXd v(model.nv), a(model.nv);
    for (int k = 0; k < model.nv; ++k) {
      v[k] = rate(rng);
      a[k] = 3.0 * rate(rng);
    }
    regressor(model, data, q, v, a, Y);
    W.middleRows(static_cast<Eigen::Index>(s) * model.nv, model.nv) = Y;
  }
  // Scale columns to unit norm so the rank test does not depend on units.
  Eigen::VectorXd norms = W.colwise().norm().transpose();
  for (int c = 0; c < np; ++c) {
    if (norms[c] > 0.0) W.col(c) /= norms[c];
  }
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(W);
  const Eigen::MatrixXd R = qr.matrixR().topRows(std::min<Eigen::Index>(W.rows(), np)).triangularView<Eigen::Upper>();
  const double largest = std::abs(R(0, 0));
  int rank = 0;
  while (rank < std::min<int>(static_cast<int>(R.rows()), np) && std::abs(R(rank, rank)) > tolerance * largest) ++rank;
  BaseParameters base;
  const auto& perm = qr.colsPermutation().indices();
  for (int i = 0; i < rank; ++i) base.independent.push_back(perm[i]);
  for (int i = rank; i < np; ++i) base.dependent.push_back(perm[i]);
  // Y_2 = Y_1 K with K = R11^-1 R12, undoing the column scaling.
  const Eigen::MatrixXd R11 = R.topLeftCorner(rank, rank);
  const Eigen::MatrixXd R12 = R.topRightCorner(rank, np - rank);
  base.K = R11.triangularView<Eigen::Upper>().solve(R12);
  for (int i = 0; i < rank; ++i) base.K.row(i) /= norms[base.independent[i]];
  for (int j = 0; j < np - rank; ++j) base.K.col(j) *= norms[base.dependent[j]];
  // Columns that never appear (zero norm) have K = 0: they are unidentifiable.
  for (int j = 0; j < np - rank; ++j) {
    if (!(norms[base.dependent[j]] > 0.0)) base.K.col(j).setZero();
  }
  return base;
}

}  // namespace suitsim::eval
