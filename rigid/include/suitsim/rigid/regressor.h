// The inverse-dynamics regressor, A(11) and B(2): the equations of motion are
// linear in the standard inertial parameters, F = Y(q, v, a) phi.
//
// Parameters. phi stacks ten numbers per body, in body order:
//   [m, m c_x, m c_y, m c_z, I_xx, I_yy, I_zz, I_xy, I_xz, I_yz]
// with the first moment m c and the inertia tensor I about the body's
// origin (its joint), in body axes. In these the Newton-Euler wrench of a
// body is linear; the centre of mass and the inertia about it are not.
//
// Rows. Y has the layout of rnea's output: for a floating base six rows for
// the base wrench [f_o; n_o] (base axes, moment about the base origin; the
// upper rows of A(11), which B(4) uses alone), then one row per joint.
#pragma once

#include <Eigen/Core>

#include "suitsim/rigid/rigid_model.h"

namespace suitsim::eval {

/// The model's own standard parameters (10 x num_bodies), in the order above.
Eigen::VectorXd standardParameters(const RigidModel& model);

/// Y(q, v, a) (nv x 10 num_bodies): rnea(model, data, q, v, a) = Y phi for any
/// inertial parameters phi. Gravity is model.gravity. Writes `Y` (resized
/// once if its size is wrong) and the kinematic fields of `data`.
void regressor(const RigidModel& model, RigidData& data, const Configuration& q, const VectorRef& v,
               const VectorRef& a, Eigen::MatrixXd& Y);

}  // namespace suitsim::eval
