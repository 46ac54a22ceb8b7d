// Scoring an evaluation against the simulator's truth: the only place where
// an estimate meets the true value it estimates.
#pragma once

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
  std::vector<double> natural_length;   ///< true l0 per band (m), SuitFit::routes order
  /// Per method (kSupportMethods order), per group: (estimate − truth) / truth; NaN without an estimate.
  std::vector<std::vector<double>> relative_error;
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

struct Score {
  double total_mass = 0.0;           ///< true (kg)
  std::vector<SuitScore> suits;      ///< EvaluationResult::suits order
  std::vector<CurveScore> curves;    ///< EvaluationResult::curves order
  std::vector<BalanceScore> balance;  ///< EvaluationResult::balance order
};

/// Scores `result` against `truth`. Throws std::invalid_argument when the
/// truth lacks a band or trial the result names.
Score scoreEvaluation(const eval::EvaluationResult& result, const Truth& truth);

}  // namespace suitsim::report
