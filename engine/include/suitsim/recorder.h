// Turning a State into a row of named, unit-labelled output channels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "suitsim/centroidal.h"
#include "suitsim/model.h"
#include "suitsim/state.h"
#include "suitsim/step.h"

namespace suitsim {

/// One recorded quantity; it expands into one or more columns.
struct ChannelSpec {
  enum class Kind {
    kParticlePosition,  ///< x, y, z (m) of `index`
    kParticleVelocity,  ///< x, y, z (m/s) of `index`
    kSpringLength,      ///< current length (m) of spring `index` (sorted index)
    kSpringTension,     ///< elastic tension k (l - l0) (N) of spring `index`; > 0 stretched
    kCentreOfMass,      ///< mass-weighted mean position (m) of `particles`
    kEnergy,            ///< kinetic, potential and total mechanical energy (J)
    kJointAngle,        ///< hinge `index` angle (rad)
    kJointVelocity,     ///< hinge `index` rate (rad/s)
    kJointCurrent,      ///< hinge `index` motor current (A)
    kMotorTorque,       ///< hinge `index` motor torque k_T u + tau_o (N m)
    kFrictionTorque,    ///< hinge `index` friction torque (N m), from the latest force evaluation
    kGroundForce,       ///< total ground reaction force on the model (N)
    kBandLength,        ///< band `index` wire length l (m), A(23)
    kBandTension,       ///< band `index` tension f (N), >= 0, 0 when slack, A(25)
    kAppliedForce,      ///< sum of the forces applied from outside (pushes, a balance assist) (N)
    kStrapForce,        ///< strap `index`'s force on its worn-on end, world x, y, z (N)
    kStrapTorque,       ///< hinge `index`: moment of the strap forces beyond it about its axis (N m), exoskeleton.h
    // Balance of the whole model (centroidal.h; seed 003 (11)-(15)). NaN
    // where undefined: no ground support, a CoM falling freely, omega' too big.
    kCom,               ///< centre of mass of the free particles (m)
    kComVelocity,       ///< its velocity (m/s)
    kCentreOfPressure,  ///< centre of pressure of the ground's forces (m)
    kPendulumFrequency, ///< omega (1/s), after (11)
    kDcm,               ///< 3-D DCM, (11) (m)
    kVrp,               ///< VRP, (13) (m); omega' from this recorder's previous sample
    kEcmp,              ///< eCMP, (15) (m); omega' as for kVrp
    kBalanceMargin,     ///< signed distance of the DCM's ground projection to the support polygon's edge (m), > 0 inside
  };
  Kind kind = Kind::kEnergy;
  int index = -1;
  std::vector<int> particles;
  std::string label;  ///< column prefix, e.g. the particle's name
};

class Recorder {
 public:
  Recorder(const Model& model, std::vector<ChannelSpec> channels);
  /// Column names with units, e.g. "bob.position.x[m]"; time is not included.
  const std::vector<std::string>& columns() const { return columns_; }
  /// Writes columns().size() values for `state` into `row`. Allocates nothing.
  /// `ws` (the workspace of the last step) is needed for friction torques; band
  /// channels are evaluated at `state` (ws.band_* hold the latest evaluation).
  /// Balance channels: omega' is the backward difference of omega over
  /// this recorder's previous sample (0 at the first), so a Recorder
  /// samples one trajectory in time order.
  void sample(const State& state, const Workspace* ws, double* row) const;
  /// Whether column `c` may hold NaN in a sound run (a balance point that is
  /// undefined at that instant); every other column is finite unless the
  /// run diverged.
  bool mayBeUndefined(std::size_t c) const { return may_be_undefined_[c] != 0; }

 private:
  const Model* model_;
  std::vector<ChannelSpec> channels_;
  std::vector<std::string> columns_;
  std::vector<std::uint8_t> may_be_undefined_;
  bool has_balance_ = false;
  // Balance channels' memory and buffers (sample() is logically const: it
  // keeps only omega's previous value and preallocated scratch space).
  mutable BalanceTracker tracker_;
  mutable std::vector<Eigen::Vector2d> support_points_;
  mutable SupportPolygon support_;
  bool has_strap_torque_ = false;
  mutable std::vector<double> strap_torque_;  // (num_hinges) when has_strap_torque_
};

}  // namespace suitsim
