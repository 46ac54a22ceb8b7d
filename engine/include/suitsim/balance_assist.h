// Forces from outside the robot: pushes (a disturbance, open loop) and the
// balance assist of Lefevre et al. (seed 003, (16)-(20)): a caregiver's
// hands or a robot arm's end point pushing at a point of the robot, which
// computes the force that brings the DCM back into the balance region from
// the measured DCM and VRP, whenever the DCM has left it.
//
// The controller, at its own rate (centroidal.h for the points):
//   balance region   the footprint (the soles that touch the ground, whole:
//                    centroidal.h) shrunk by `margin`; a 2-D region, the
//                    seed's 3-D balance polytope is left out;
//   ξ_d              ξ with its ground projection moved to the region's
//                    nearest point, its height kept; ξ̇_d = 0 (the DCM is
//                    to come to rest on the region's edge);
//   v_r = ξ - k_P (ξ_d - ξ) / (omega - omega'/omega)              (17)
//   (19) "force":         F_r = m (omega² - omega') (c - v_r) - m g_vec - f_feet
//   (20) "acceleration":  F_r += m [(omega² - omega') (c - v_r) - c̈]
// with g_vec the gravity vector, f_feet the ground's forces and c̈ the
// measured CoM acceleration. (19) takes the feet's forces as the only other
// external force, as the seed says; (20) measures the acceleration, so it
// also answers a push it does not know of. At constant height (19) makes
// ξ̇ = k_P (ξ_d - ξ): the DCM returns at the rate k_P. Inside the region
// the command is zero. The command is limited to `max_force` in magnitude
// and reaches the robot through a first-order lag of `bandwidth_hz` (the
// device's own dynamics). The device measures the simulator's CoM and
// ground forces without error: sensing is idealised, named so in the docs.
#pragma once

#include <array>
#include <vector>

#include <Eigen/Core>

#include "suitsim/centroidal.h"
#include "suitsim/model.h"
#include "suitsim/state.h"

namespace suitsim {

/// A point fixed on a body of four particles: x = sum_k w_k x_(first + k).
/// A force F there is w_k F on each particle: the same force and moment on
/// the rigid body.
struct BodyForcePoint {
  int first_particle = 0;
  std::array<double, 4> w{0.25, 0.25, 0.25, 0.25};
};

/// The weights of `point_body` (body frame, m) on body `body` of the model
/// (a body of four particles; std::invalid_argument otherwise).
BodyForcePoint bodyForcePoint(const Model& model, int body, const Vec3& point_body);

struct PushSpec {
  BodyForcePoint at;
  Vec3 force{0.0, 0.0, 0.0};  ///< world (N)
  double start = 0.0;         ///< (s)
  double duration = 0.0;      ///< acts on [start, start + duration) (s)
};

struct BalanceAssistSpec {
  enum class Law { kForce /* (19) */, kAcceleration /* (20) */ };
  BodyForcePoint at;
  Law law = Law::kForce;
  double kp = 0.0;            ///< DCM error gain k_P (1/s), the same on every axis
  double max_force = 0.0;     ///< magnitude limit (N)
  double bandwidth_hz = 0.0;  ///< first-order lag of the applied force (Hz)
  double rate_hz = 0.0;       ///< controller rate (Hz)
  double margin = 0.0;        ///< the region is the footprint shrunk by this (m)
};

/// The forces from outside: every push and at most one assist. Call
/// update() after each step (and once before the first): it measures the
/// state the last step produced, then sets the applied forces for the next.
/// Allocates nothing after construction.
class ExternalForces {
 public:
  ExternalForces(const Model& model, double dt, std::vector<PushSpec> pushes, const BalanceAssistSpec* assist);
  void update(const Model& model, State& state);

  bool hasAssist() const { return has_assist_; }
  /// The assist's force now applied (N), and what its controller asks for.
  const Vec3& assistForce() const { return applied_; }
  const Vec3& assistCommand() const { return command_; }
  /// Over the run so far: the largest assist force (N), its impulse (N s)
  /// and how long the DCM was outside the region (s).
  double peakForce() const { return peak_; }
  double impulse() const { return impulse_; }
  double timeOutside() const { return time_outside_; }

 private:
  void control(const Model& model, const State& state);
  static void add(State& state, const BodyForcePoint& at, const Vec3& f);

  double dt_;
  std::vector<PushSpec> pushes_;
  bool has_assist_ = false;
  BalanceAssistSpec assist_;
  long every_ = 1, count_ = 0;
  BalanceTracker tracker_;
  bool outside_ = false;
  Vec3 command_{0.0, 0.0, 0.0}, applied_{0.0, 0.0, 0.0};
  double peak_ = 0.0, impulse_ = 0.0, time_outside_ = 0.0;
  std::vector<int> touched_;  // particles whose applied force this object owns
  std::vector<Eigen::Vector2d> points_, work_;
  SupportPolygon polygon_, region_;
};

}  // namespace suitsim
