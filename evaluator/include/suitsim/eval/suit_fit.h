// Band identification of one suit, A(26), from the supporting torques of
// every motion it was worn in (A §5.4): which joints each motion's fit uses,
// one fit per motion, each stiffness group taken from the motion where it
// matters most, and a second pass that takes the left-out bands' share off
// the curves.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "suitsim/eval/band_identification.h"
#include "suitsim/eval/parameter_correlation.h"
#include "suitsim/eval/band_relaxation.h"
#include "suitsim/eval/supporting_torque.h"
#include "suitsim/eval/wires.h"

namespace suitsim::eval {

/// A joint moves (its friction is known from its rate, and a band fit may
/// use it) above this rate (rad/s): beyond the Stribeck drop and well above
/// the rate noise of the filtered encoders.
constexpr double kMovingSpeed = 0.05;

/// The joints one motion's band fit uses.
struct FitJoints {
  std::string motion;
  std::vector<std::string> joints;  ///< rows of the fit: each joint where it moves
  std::string figure_joint;         ///< the joint the motion is about (plots, curve RMSE)
  std::string reason;               ///< "declared in the scene" or how they were derived, with figures
};

/// The fit joints of a motion. `declared` non-empty: those (checked to be
/// joints of the model). Otherwise derived from the robot and the suit: for
/// each movable joint, the band length change it can drive over the motion,
/// max_t,i |∂l_i/∂θ_j| (the largest moment arm, A(22)) times the joint's range
/// of motion; the joints with at least half the largest such change that
/// move (|rate| > kMovingSpeed) in at least 5 % of the samples. Leg joints
/// qualify: approach A accounts for the measured contact forces
/// (supporting_torque.h). Throws std::invalid_argument naming the motion
/// when no joint qualifies.
FitJoints chooseFitJoints(const RigidModel& model, const std::vector<WireGeometry>& wires, const SupportCurves& curves,
                          const std::vector<std::string>& declared);

/// One stiffness group's estimate by one method.
struct GroupEstimate {
  std::string name;
  std::vector<std::string> bands;
  double stiffness = 0.0;       ///< N/m; NaN when not identifiable (then no estimate is given)
  bool identifiable = false;
  std::string reason;           ///< why not identifiable (with the deciding figure); empty when it is
  double relative_std = 0.0;    ///< of the stiffness, from the fit (NaN when unknown)
  std::string from;             ///< "motion:joint" of the fit it came from
  /// BandModel::Viscoelastic only (NaN otherwise or when not identifiable):
  /// the Maxwell arm's k_m (N/m) and the relaxation time tau (s) of the
  /// fit the stiffness came from (band_relaxation.h); `stiffness` is then
  /// the equilibrium k.
  double relaxing_stiffness = std::nan("");
  double relaxation_time = std::nan("");
  /// BandModel::Capstan only (NaN otherwise or when not identifiable): the
  /// friction coefficient mu of the fit the stiffness came from
  /// (band_capstan.h).
  double capstan_friction = std::nan("");
  /// Straps::Corrected only (NaN otherwise or when not identifiable): the
  /// stiffness as worn, before the straps' correction (band_attachments.h);
  /// `stiffness` is then the band's own.
  double worn_stiffness = std::nan("");
  /// The parameters of the fit that decided the group (the one its estimate
  /// came from; without one, the one its reason names) that its k
  /// correlates with most: at most 3, |r| >= 0.5, strongest first
  /// (parameter_correlation.h). Empty when no fit had the group.
  std::vector<ParameterCorrelation> correlations;
  /// That fit's Fisher information per unit noise, by joint: what the
  /// Cramér-Rao bound of k needs besides the noise (report/cramer_rao.h).
  UnitInformation information;
};

struct BandEstimate {
  std::string name;
  std::string group;
  double natural_length = 0.0;  ///< m; NaN when its group is not identifiable
  int taut_samples = 0;
};

/// A(26) by one supporting-torque method.
struct MethodFit {
  SupportMethod method = SupportMethod::kApproachA;
  std::vector<GroupEstimate> groups;  ///< in the suit's group order
  std::vector<BandEstimate> bands;    ///< in the suit's band order
  double fit_rmse = 0.0;              ///< largest per-motion RMS of τ_s − τ̂ (N m)
};

struct SuitFit {
  std::string suit;
  std::vector<BandRoute> routes;         ///< the suit as designed
  std::vector<std::string> group_order;  ///< groups in the order the suit declares them
  std::vector<FitJoints> fit_joints;     ///< per motion worn with this suit
  std::vector<MethodFit> methods;        ///< per SupportMethod, kSupportMethods order
  BandModel band_model = BandModel::Elastic;
};

/// Fits `routes` to every motion's curves (all of the same suit), with each
/// motion's fit joints. BandModel::Viscoelastic adds, per motion, the
/// Maxwell arms of band_relaxation.h at the elastic fit's natural lengths,
/// then fits k and l0 again with the arms' torque taken off (twice).
/// BandModel::Capstan refits, per motion, its groups' k, their bands' l0 and
/// one friction coefficient with the capstan wire model of band_capstan.h,
/// from the elastic estimates.
SuitFit fitSuit(const RigidModel& model, const std::string& suit, const std::vector<BandRoute>& routes,
                const std::vector<const SupportCurves*>& curves, const std::vector<FitJoints>& fit_joints,
                BandModel band_model = BandModel::Elastic);

}  // namespace suitsim::eval
