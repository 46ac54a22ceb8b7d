// Which parameters of a least-squares fit trade with which: the correlation
// matrix of the estimate, r_ij = C_ij / sqrt(C_ii C_jj), from the very
// covariance C the fit's standard deviations come from (docs/method.md), so
// the two never disagree about what is determined:
//
//   the band fits (A(26), band_identification.h, the capstan fit):
//     C ∝ (GᵀG)⁺, G = ∂r/∂θ at the estimate, the pseudo-inverse of
//     parameterStd (unit-norm columns, SVD, directions below 1e-9 s_max
//     unseen);
//   the robot fit (A(13)-(20), identification.h):
//     C ∝ (AᵀWA)⁻¹ from its orthogonal reduction M, by unitVariance's rule
//     (directions below kUnseenSingularValue s_max unseen).
//
// The noise scale σ² c cancels in r, so the correlations need no noise
// model. A parameter with no finite std (a zero column, or a share in an
// unseen direction) has no correlation either: its row and column are NaN.
//
// Also here: what the Cramér-Rao bound of a band fit needs from the
// evaluator without any noise level, the fit's Fisher information per unit
// noise variance, split by the joint each row is about (the rows of one fit
// stack several joints, whose torque channels may differ in noise). The
// scoring side (report/, which may read the sensors' true noise) weighs
// each joint's part by 1 / σ_j² and inverts.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

namespace suitsim::eval {

struct UnitCovariance;  // least_squares.h

/// Correlation matrix (P x P) of a covariance: r_ij = C_ij / sqrt(C_ii
/// C_jj); NaN rows and columns for parameters without a finite variance,
/// 1 on the others' diagonal.
Eigen::MatrixXd correlation(const UnitCovariance& c);

/// Correlation matrix (P x P) of a fit whose residual has Jacobian `G`
/// (rows x P), from (GᵀG)⁺ as parameterStd computes it. NaN rows and
/// columns for parameters without a finite std; 1 on the others' diagonal.
Eigen::MatrixXd parameterCorrelation(const Eigen::MatrixXd& G);

/// Correlation matrix (P x P) from an orthogonal reduction `M` of a
/// regressor (MᵀM = AᵀWA, least_squares.h), by unitVariance's rule for
/// unseen directions; NaN rows and columns where unitVariance is infinite.
Eigen::MatrixXd reducedCorrelation(const Eigen::MatrixXd& M);

/// One parameter another correlates with.
struct ParameterCorrelation {
  std::string parameter;  ///< its name, e.g. "l0:A_R" or "k:B"
  double r = 0.0;         ///< correlation coefficient, [-1, 1]
};

/// The parameters other than `row` that parameter `row` correlates with
/// most: at most `count`, each with |r| >= min_abs, strongest first (ties:
/// the lower index). `names` (P) names the columns. Empty when `row` has
/// no finite std.
std::vector<ParameterCorrelation> strongestCorrelations(const Eigen::MatrixXd& correlation, int row,
                                                        const std::vector<std::string>& names,
                                                        double min_abs = 0.5, int count = 3);

/// Two columns of a fit that trade with each other.
struct CorrelatedPair {
  int a = -1, b = -1;  ///< column indices, a < b
  double r = 0.0;      ///< their correlation
};

/// The pairs among `columns` (indices into `correlation`) with |r| >=
/// min_abs, strongest first (ties: lower a, then lower b), at most `count`;
/// `total` (may be null) gets how many pairs passed before the cut.
std::vector<CorrelatedPair> correlatedPairs(const Eigen::MatrixXd& correlation, const std::vector<int>& columns,
                                            double min_abs, int count, int* total = nullptr);

/// A band fit's Fisher information per unit noise variance, by joint:
/// for the rows r about joint j, Σ_r g_r g_rᵀ = T_jᵀ T_j with g_r the row of
/// the residual's Jacobian G at the estimate (the fit's model, A(21)-(25)).
/// Kept as the triangles T_j so that a weighted stack [w_1 T_1; ...] can go
/// through parameterStd, the reported std's own pseudo-inverse.
struct UnitInformation {
  std::vector<std::string> parameter;    ///< column names (P); empty: no fit
  int stiffness = -1;                    ///< the column of the group's k
  std::vector<std::string> joint;        ///< the joints the fit's rows are about (J)
  std::vector<Eigen::MatrixXd> factor;   ///< T_j per joint, (P x P) upper triangular
  std::vector<int> rows;                 ///< the fit's rows about each joint (J)
  double row_interval = 0.0;             ///< time between the samples the rows are taken at (s)
  /// The force sensors whose noise reaches the rows through the ground's
  /// share F_j (A(10)), and per joint (J) and sensor the least force and
  /// moment gain (MotionData::force_gain) over the joint's rows: the
  /// smallest share of each sensor's noise variance any row of the joint
  /// carries. Empty without force sensors.
  std::vector<std::string> force_sensor;
  std::vector<std::vector<double>> force_gain, moment_gain;
};

/// UnitInformation of Jacobian `G` (rows x P) whose row r is about joint
/// row_joint[r] (an index into `joint_names`).
UnitInformation unitInformation(const Eigen::MatrixXd& G, const std::vector<int>& row_joint,
                                const std::vector<std::string>& joint_names, std::vector<std::string> parameter,
                                int stiffness, double row_interval);

}  // namespace suitsim::eval
