// Time integration of the rigid model: the independent reference the particle
// engine is checked against (fixed and floating base).
//
// Classical RK4 on y = (base_p, base quaternion, θ, v) with ẏ = (base_R v_o,
// ½ quat ⊗ (0, ω_o), θ̇, forwardDynamics(q, v, F)). The quaternion is
// normalised when a stage turns it into base_R and at the end of the step, so
// the scheme stays fourth order and base_R stays a rotation. F is held
// constant over the step (zero-order hold, as a servo running at the step
// rate would apply it).
#pragma once

#include <Eigen/Core>

#include "suitsim/rigid/rigid_model.h"

namespace suitsim::eval {

/// Position and velocity of the rigid model.
struct RigidState {
  Configuration q;   ///< configuration
  Eigen::VectorXd v;  ///< generalised velocity (nv)
};

/// Neutral configuration at rest.
RigidState makeRigidState(const RigidModel& model);

/// q ← q ⊕ v dt: the configuration reached after moving for dt seconds at
/// the constant velocity v (nv); exact (SE(3) exponential) for the base.
void integrateConfiguration(const RigidModel& model, Configuration& q, const VectorRef& v, double dt);

/// One RK4 step of length dt (s) under the generalised force F (nv).
/// Allocates nothing; uses data's RK4 scratch and dynamics buffers.
void rk4Step(const RigidModel& model, RigidData& data, RigidState& state, const VectorRef& F,
             double dt);

}  // namespace suitsim::eval
