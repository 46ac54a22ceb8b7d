// Scoring an evaluation against the simulator's truth: the only place where
// an estimate meets the true value it estimates.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "suitsim/eval/evaluation.h"
#include "suitsim/report/truth.h"

namespace suitsim::report {

/// One suit's truth, in the order of the evaluation's groups and bands.
struct SuitScore {
  std::string suit;
  std::vector<double> group_stiffness;  ///< true k per group (N/m), SuitFit::group_order
  /// The band as worn per group (mean over its bands), its straps in series (wornStiffness; k
  /// without <realism><attachments>): what the wearer's joints feel (N/m).
  std::vector<double> group_worn_stiffness;
  std::vector<double> natural_length;   ///< true l0 per band (m), SuitFit::routes order
  /// Per method (kSupportMethods order), per group: (estimate − truth) / truth; NaN without an estimate.
  std::vector<std::vector<double>> relative_error;
  /// Per method, per group: the Cramér-Rao bound of k's std under the
  /// sensors' declared noise (N/m, cramer_rao.h), for the fit that decided
  /// the group; NaN where no fit had it or the noise is unknown.
  std::vector<std::vector<double>> crb_std;
};

/// The supporting torque the true bands give on the measured angles of one
/// curve set ("SSL simulation" in A Fig. 12), and each method's RMSE to it.
struct CurveScore {
  Eigen::MatrixXd model;             ///< (N x num_joints) A(21) with the true bands, N m
  std::string joint;                 ///< the figure joint of the motion
  std::vector<double> rmse;          ///< per method at `joint`, every sample (N m)
  std::vector<double> moving_rmse;   ///< per method at `joint`, where it does not rest (N m)
  double model_rms = 0.0;            ///< RMS of the model curve there (N m)
};

/// The wearer's balance in one trial: the evaluator's estimate (from the
/// sensor streams) against the simulator's margin, over the estimate's times.
struct BalanceScore {
  std::string trial;
  bool has_truth = false;
  double true_min_margin = 0.0;   ///< (m)
  double true_mean_margin = 0.0;  ///< (m)
  double margin_rmse = 0.0;       ///< estimate − truth, where both are defined (m)
  int compared = 0;               ///< samples compared
};

/// A powered device's evaluation against the truth: each method's
/// supporting torque against the straps' true moments on the joints they act
/// on (eval::DeviceEvaluation::joints), and the identified controller
/// settings against the scene's.
struct DeviceScore {
  std::string device;
  /// Per curve (DeviceEvaluation::curves order): the true supporting torque
  /// at the curve's samples (N x num_joints, N m; zero off the device's joints).
  std::vector<Eigen::MatrixXd> truth;
  double truth_rms = 0.0;  ///< RMS of the truth over every curve, sample and device joint (N m)
  /// Per method (kSupportMethods order): RMSE over the same / truth_rms, and
  /// RMSE / RMS of the truth over the (sample, joint) pairs where the joint
  /// moves (rests in neither trial: at rest no method sees the torque).
  std::vector<double> relative_rmse, relative_rmse_moving;
  /// The same as relative_rmse_moving against the truth low-passed as the
  /// evaluator's channels are (DeviceEvaluation::band_hz, zero phase, at the
  /// truth's own rate): what the evaluator can see at all. The difference
  /// from relative_rmse_moving is the device's motion faster than that (a
  /// cuff ringing on its straps).
  std::vector<double> relative_rmse_moving_in_band;
  /// Per device joint (DeviceEvaluation::joints order): sums behind the
  /// above, for a per-joint breakdown (squares of the truth and, per
  /// method, of the error while moving; sample counts).
  std::vector<std::string> joints;
  std::vector<double> joint_truth_sq, joint_moving_truth_sq;
  std::vector<int> joint_samples, joint_moving_samples;
  std::vector<std::vector<double>> joint_moving_error_sq;
  std::vector<double> joint_moving_band_truth_sq;               ///< in the evaluator's band
  std::vector<std::vector<double>> joint_moving_band_error_sq;  ///< per method, in the band
  /// Per device hinge (DeviceEvaluation::impedance order), per setting: the
  /// scene's value, and (estimate - truth) / truth (NaN without an estimate
  /// or where the truth is 0: then see absolute_error).
  std::vector<std::array<double, eval::kImpedanceParameters>> impedance_truth, impedance_relative_error,
      impedance_absolute_error;
};

struct Score {
  double total_mass = 0.0;           ///< true (kg)
  std::vector<SuitScore> suits;      ///< EvaluationResult::suits order
  std::vector<CurveScore> curves;    ///< EvaluationResult::curves order
  std::vector<BalanceScore> balance;  ///< EvaluationResult::balance order
  std::vector<DeviceScore> devices;   ///< EvaluationResult::devices order
};

/// Scores `result` against `truth`. Throws std::invalid_argument when the
/// truth lacks a band or trial the result names.
Score scoreEvaluation(const eval::EvaluationResult& result, const Truth& truth);

}  // namespace suitsim::report
