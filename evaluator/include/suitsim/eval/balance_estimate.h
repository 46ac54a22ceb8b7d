// The wearer's balance as the evaluator sees it: the centre of mass, DCM,
// VRP, eCMP (dcm.h, seed 003 (11)-(15)), centre of pressure and balance
// margin of one trial, from its sensor stream alone (encoders, the base IMU,
// the feet's force sensors) and the a-priori robot.
//
// Design note. The robot stands feet flat (the protocol's premise), so the
// estimate works in the frame of the first force sensor's link (the "stance
// frame"), fixed in the world while that foot stays planted. Everything else
// is put in that frame by the encoders and the model's kinematics:
//  - up: the trial's mean specific force measured by the IMU, turned into
//    the stance frame (a robot that starts and ends at rest has a mean
//    acceleration of about zero, so the mean reads -gravity);
//  - the ground: the plane with that normal through the lowest sole
//    contact point (the scene's <contact> points, as designed) at the first
//    sample;
//  - the external force: the force sensors' sum, so c̈ = F / m + g, with m
//    the mean normal force over g: the force sensors weigh the robot as it
//    is (with its suit and loads), which the a-priori model does not know;
//  - the centre of mass: the a-priori model with the loads the trial holds,
//    at the encoders' angles (zero-phase filtered), differentiated for ċ;
//  - the centre of pressure: the point of the ground where the sensors'
//    summed wrench has no moment along the plane;
//  - the support polygon: the sole points of the feet whose sensor carries
//    more than `support_fraction` of the weight.
// Margins are frame independent, so they are scored directly against the
// simulator's (truth.csv); positions are reported in the stance frame.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "suitsim/rigid/balance.h"
#include "suitsim/rigid/dcm.h"
#include "suitsim/eval/identification.h"
#include "suitsim/eval/streams.h"

namespace suitsim::eval {

struct BalanceEstimateOptions {
  double cutoff_hz = 8.0;          ///< zero-phase Butterworth (4th order) on encoders and force sensors
  double support_fraction = 0.02;  ///< a foot supports while its sensor carries more than this share of the weight
  /// The summary (min, mean) and the scoring skip this much at each end: the
  /// filter's and the differences' edges, and the robot settling on its feet.
  double trim_s = 0.3;
};

struct BalanceEstimate {
  std::string trial, motion, suit;  ///< set by the caller (evaluateStreams: the trial's)
  std::string device = "none";      ///< the device worn in the trial (set likewise), "none" without
  std::string purpose = "evaluation";  ///< the trial's purpose (set likewise): "evaluation" or "identification"
  std::string stance_link;   ///< the frame the positions are in
  double mass = 0.0;         ///< weighed by the force sensors (kg)
  Eigen::Vector3d up = Eigen::Vector3d::UnitZ();  ///< ground normal, stance frame
  Eigen::VectorXd time;      ///< (N) s
  Eigen::MatrixXd com;       ///< (N x 3) stance frame (m)
  Eigen::MatrixXd cop;       ///< (N x 3) stance frame (m); NaN rows without normal force
  std::vector<DcmPoints> points;  ///< (N) omega, DCM, VRP, eCMP, margin (stance frame)
  double window_start = 0.0, window_end = 0.0;  ///< the trimmed window the summary covers (s)
  double min_margin = 0.0;   ///< smallest finite margin in the window (m)
  double mean_margin = 0.0;  ///< mean of the finite margins in the window (m)
};

/// The estimate for one trial's stream. `soles`: the robot's contact points
/// (frames of `model`). Throws std::invalid_argument when the layout has no
/// force sensor or no contact point lies on a force sensor's link, and
/// StreamError when the force sensors never carry the robot.
/// `held`: the loads the trial holds (known to the experimenter), added to
/// the model's centre of mass.
BalanceEstimate estimateBalance(const RigidModel& model, const SensorLayout& layout, const SensorStream& stream,
                                const std::vector<ContactPoint>& soles, const std::vector<HeldLoad>& held = {},
                                const BalanceEstimateOptions& options = {});

}  // namespace suitsim::eval
