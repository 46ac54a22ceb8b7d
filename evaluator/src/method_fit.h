// One supporting-torque method's band fit of a suit, A(26) over every
// motion it was worn in (suit_fit.h): the passes fitSuit runs per method.
#pragma once

#include <vector>

#include "suitsim/eval/band_identification.h"
#include "suitsim/eval/suit_fit.h"

namespace suitsim::eval {

/// What every method's fit of one suit shares.
struct SuitFitSetup {
  const RigidModel& model;
  const std::vector<WireGeometry>& wires;
  const std::vector<const SupportCurves*>& curves;
  const std::vector<FitJoints>& fit_joints;
  const BandIdentificationOptions& options;  ///< the suit's stiffness groups, in its order
  BandModel band_model;
  /// Every band's length at every sample of each motion (the viscoelastic
  /// models only; empty otherwise).
  const std::vector<Eigen::MatrixXd>& motion_lengths;
};

/// The fit by method `m` (fitSuit's passes, suit_fit.cpp explains them).
MethodFit fitMethod(const SuitFitSetup& setup, SupportMethod m);

}  // namespace suitsim::eval
