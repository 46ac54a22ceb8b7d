// Base (minimal) parameters: the combinations of the standard inertial
// parameters that the equations of motion actually depend on, found
// numerically (A §3, B appendix A): stack the regressor at random states,
// factor it by QR with column pivoting, keep the independent columns.
//
// With the columns permuted as [independent | dependent] = [Y_1 | Y_2] and
// Y_2 = Y_1 K, the base parameters are phi_B = phi_1 + K phi_2 and
// Y phi = Y_1 phi_B for every state. Dependent columns (parameters that never
// matter, or only in combination) are folded into the independent ones.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "suitsim/rigid/rigid_model.h"

namespace suitsim::eval {

struct BaseParameters {
  std::vector<int> independent;  ///< standard-parameter columns kept, (num_base)
  std::vector<int> dependent;    ///< columns folded into them
  Eigen::MatrixXd K;             ///< (num_base x dependent.size()): Y_2 = Y_1 K
  int numBase() const { return static_cast<int>(independent.size()); }
  /// phi_B = phi_1 + K phi_2 from standard parameters (10 num_bodies).
  Eigen::VectorXd fromStandard(const Eigen::VectorXd& phi) const;
  /// The base-parameter regressor Y_1 from a full regressor Y.
  Eigen::MatrixXd reduce(const Eigen::MatrixXd& Y) const;
};

/// Finds the base parameters from `samples` random states (seeded), with a
/// rank tolerance relative to the largest diagonal of R.
BaseParameters computeBaseParameters(const RigidModel& model, int samples = 200, unsigned seed = 1,
                                     double tolerance = 1e-9);

}  // namespace suitsim::eval
