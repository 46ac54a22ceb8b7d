// Rigid-body dynamics of the model: inverse dynamics (recursive Newton-Euler),
// the joint-space mass matrix (composite rigid bodies) and forward dynamics.
//
// They share one equation of motion, A(5) without friction and contacts:
//     M(q) a + h(q, v) = F,
// F, a and v in the layout of rigid_model.h: for a floating base the first six
// entries of F are the wrench [f_o; n_o] on the base (base axes, moment about
// the base origin), then the joint torques. With contacts, A(5) and A(10)
// read  M a + h = [0; τ] + Σ_k J_kᵀ F_k^ext,  so the base rows of
// rnea(q, v, a) − Σ J_kᵀ F_k^ext are the residual the base-link
// identification B(4) drives to zero.
//
// Results are written to and returned from `data` (valid until the next call
// that writes the same field); nothing allocates after RigidData is built.
// Sizes are checked on entry (std::invalid_argument).
#pragma once

#include <Eigen/Core>

#include "suitsim/rigid/rigid_model.h"

namespace suitsim::eval {

/// Inverse dynamics, recursive Newton-Euler: the generalised force F (nv)
/// that makes the robot follow (q, v, a) under model.gravity. Fixed base: the
/// joint torques. Floating base: [f_o; n_o; τ]. Returns data.tau.
const Eigen::VectorXd& rnea(const RigidModel& model, RigidData& data, const Configuration& q,
                            const VectorRef& v, const VectorRef& a);
/// The same with the bodies' inertial parameters from `parameters` (10 per
/// body in regressor.h's order) instead of the model's: Y(q, v, a)
/// parameters without forming the regressor Y.
const Eigen::VectorXd& rnea(const RigidModel& model, RigidData& data, const Configuration& q,
                            const VectorRef& v, const VectorRef& a, const Eigen::VectorXd& parameters);

/// Joint-space inertia M(q) (nv x nv, symmetric positive definite when every
/// body has mass and inertia), composite-rigid-body algorithm. Floating base:
/// the top-left 6x6 block is the composite inertia of the whole robot about
/// the base origin, A(5)'s M_oo. Returns data.M with both triangles filled.
const Eigen::MatrixXd& massMatrix(const RigidModel& model, RigidData& data, const Configuration& q);

/// h(q, v): Coriolis, centrifugal and gravity terms = rnea(q, v, 0). Returns data.nle.
const Eigen::VectorXd& nonlinearEffects(const RigidModel& model, RigidData& data,
                                        const Configuration& q, const VectorRef& v);

/// Forward dynamics: a solving M(q) a = F − h(q, v) by LDLT, F (nv) as in
/// rnea (a free-floating robot has F's base rows zero). Returns data.ddq;
/// also leaves M(q) in data.M and h in data.nle.
const Eigen::VectorXd& forwardDynamics(const RigidModel& model, RigidData& data,
                                       const Configuration& q, const VectorRef& v,
                                       const VectorRef& tau);

}  // namespace suitsim::eval
