// Turning a State into a row of named, unit-labelled output channels.
#pragma once

#include <string>
#include <vector>

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
  void sample(const State& state, const Workspace* ws, double* row) const;

 private:
  const Model* model_;
  std::vector<ChannelSpec> channels_;
  std::vector<std::string> columns_;
};

}  // namespace suitsim
