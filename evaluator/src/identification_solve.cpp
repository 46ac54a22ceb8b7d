// The robot identification's solve: the used rows weighted and reduced by
// orthogonal factorisation, A(13)-(14), regularised toward the a-priori
// values, A(15)-(20), in two passes, and the standard deviations.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <Eigen/SVD>

#include "suitsim/core/decompositions.h"
#include "suitsim/core/stop.h"
#include "suitsim/eval/least_squares.h"
#include "suitsim/eval/parameter_correlation.h"
#include "identification_problem.h"
#include "motion_samples.h"

namespace suitsim::eval::robot_fit {

namespace {

using namespace samples;  // motion_samples.h

/// The weighted rows of A(13)-(14), √w_e [Y φ + Z ξ − F]_e per used row,
/// reduced by orthogonal transformations to [M c] (least_squares.h): columns
/// x = [φ; ξ] then the right-hand side. Never forms AᵀWA.
struct ReducedRows {
  MatrixXd Mc;      // (r x P + 1)
  double rows = 0;  // rows in the least squares: a joint row left out is no observation
};

/// Rows of one equation e over all trials and samples, reduced block by
/// block. A base equation touches φ only: its triangle is (nb+1)². A joint
/// equation touches φ and its own joint's kXi ξ columns, nothing else, so
/// it is reduced with those first: the top kXi rows of its triangle
/// are final rows of M (no other equation has entries in those columns) and
/// the rest, zero in them, is an (nb+1)² triangle in φ like a base
/// equation's, merged with the others afterwards. This keeps the work near
/// 2 r nb² flops instead of 2 r (nb + 6 nj)².
struct EquationReduction {
  double rows = 0;      // rows used
  MatrixXd joint_rows;  // (kXi x kXi + nb + 1): [ξ_i | φ | F] rows (joint equations only)
  MatrixXd phi_triangle;  // (nb+1 x nb+1): [φ | F]
};

constexpr int kBlockRows = 1024;  // rows per re-factorisation: a few MB of scratch whatever the data length

EquationReduction reduceEquation(const Problem& p, int e, double weight) {
  const bool joint = e >= p.nbase;
  const int lead = joint ? kXi : 0, cols = lead + p.nb + 1;
  const double s = std::sqrt(weight);
  EquationReduction out;
  TriangularAccumulator acc(cols);
  MatrixXd block(kBlockRows, cols);
  Eigen::Index filled = 0;
  for (std::size_t k = 0; k < p.rows.size(); ++k) {
    const int n = p.trials[k]->numSamples();
    for (int t = 0; t < n; ++t) {
      const JointRow* z = joint ? &p.z[k][static_cast<std::size_t>(t) * p.nj + (e - p.nbase)] : nullptr;
      if (z && !z->used) continue;  // a joint row left out of the least squares
      auto row = block.row(filled);
      for (int a = 0; a < lead; ++a) row[a] = s * zValue(*z, a);
      row.segment(lead, p.nb) = s * p.rows[k].row(static_cast<Eigen::Index>(t) * p.nv + e);
      row[cols - 1] = s * p.F[k](t, e);
      out.rows += 1.0;
      if (++filled == kBlockRows) {
        acc.addRows(block);
        filled = 0;
      }
    }
  }
  acc.addRows(block.topRows(filled));
  const MatrixXd& T = acc.triangle();
  if (joint) out.joint_rows = T.topRows(kXi);
  out.phi_triangle = T.bottomRightCorner(p.nb + 1, p.nb + 1);
  return out;
}

/// Reduces every used row with weights `weight` per equation (nv); joints:
/// the joint rows and ξ too. Equations are reduced in parallel on `threads`
/// and merged in a fixed order: the result does not depend on the count.
ReducedRows reduceRows(const Problem& p, const VectorXd& weight, bool joints, int threads) {
  const int P = p.nb + (joints ? kXi * p.nj : 0);
  const int ne = joints ? p.nv : 6;
  std::vector<EquationReduction> parts(static_cast<std::size_t>(ne));  // base rows first, then joint rows
  {
    const EigenSingleThreaded sequential;
#pragma omp parallel for num_threads(threadCount(threads)) schedule(dynamic, 1)
    for (int e = 0; e < ne; ++e) parts[static_cast<std::size_t>(e)] = reduceEquation(p, e, weight[e]);
  }
  std::vector<MatrixXd> triangles;
  for (EquationReduction& part : parts) triangles.push_back(std::move(part.phi_triangle));
  const MatrixXd phi = mergeTriangles(std::move(triangles), p.nb + 1, threadCount(threads));
  ReducedRows out;
  const int joint_rows = joints ? kXi * p.nj : 0;
  out.Mc = MatrixXd::Zero(joint_rows + p.nb + 1, P + 1);
  for (int i = 0; joints && i < p.nj; ++i) {
    const MatrixXd& jr = parts[static_cast<std::size_t>(p.nbase + i)].joint_rows;
    for (int a = 0; a < kXi; ++a) out.Mc.middleRows(kXi * i, kXi).col(xiColumn(p, a, i)) = jr.col(a);
    out.Mc.middleRows(kXi * i, kXi).leftCols(p.nb) = jr.middleCols(kXi, p.nb);
    out.Mc.middleRows(kXi * i, kXi).col(P) = jr.col(kXi + p.nb);
  }
  out.Mc.bottomRows(p.nb + 1).leftCols(p.nb) = phi.leftCols(p.nb);
  out.Mc.bottomRows(p.nb + 1).col(P) = phi.col(p.nb);
  for (const EquationReduction& part : parts) out.rows += part.rows;
  return out;
}

}  // namespace

/// A(13)-(20): two passes (unit weights, then inverse residual variances).
Solution solveRegularised(const Problem& p, bool joints, const VectorXd& x_ref, const IdentificationOptions& o) {
  const int P = p.nb + (joints ? kXi * p.nj : 0);
  VectorXd weight = VectorXd::Ones(p.nv);
  Solution s;
  for (int pass = 0; pass < 2; ++pass) {
    // Each step below is a large factorisation or a pass over every row: a
    // stop request is seen between them.
    throwIfStopped();
    const ReducedRows red = reduceRows(p, weight, joints, o.threads);
    throwIfStopped();
    const MatrixXd M = red.Mc.leftCols(P);
    const VectorXd c = red.Mc.col(P);
    // A(16)-(20): regularisation weights normalised by the data's own scale;
    // λ_max of the φ block of AᵀWA is σ_max² of M's φ columns.
    VectorXd wreg(P);
    const double sigma_phi = Eigen::BDCSVD<MatrixXd>(M.leftCols(p.nb)).singularValues().maxCoeff();
    wreg.head(p.nb).setConstant(o.w_phi * sigma_phi * sigma_phi);
    if (joints) {
      double lambda_T = 0.0, lambda_d = 0.0, lambda_a = 0.0, lambda_g = 0.0;
      for (std::size_t k = 0; k < p.z.size(); ++k) {
        VectorXd sum_u = VectorXd::Zero(p.nj), sum_d = VectorXd::Zero(p.nj), sum_a = VectorXd::Zero(p.nj),
                 sum_g = VectorXd::Zero(p.nj);
        for (std::size_t r = 0; r < p.z[k].size(); ++r) {
          const int i = static_cast<int>(r % p.nj);
          sum_u[i] += weight[p.nbase + i] * p.z[k][r].u * p.z[k][r].u;
          sum_d[i] += weight[p.nbase + i] * p.z[k][r].qd * p.z[k][r].qd;
          sum_a[i] += weight[p.nbase + i] * p.z[k][r].qdd * p.z[k][r].qdd;
          sum_g[i] += weight[p.nbase + i] * p.z[k][r].back * p.z[k][r].back;
        }
        lambda_T += sum_u.maxCoeff();
        lambda_d += sum_d.maxCoeff();
        lambda_a += sum_a.maxCoeff();
        lambda_g += sum_g.maxCoeff();
      }
      const double wj_max = weight.tail(p.nj).maxCoeff();
      wreg.segment(p.nb, p.nj).setConstant(o.w_T * lambda_T);
      wreg.segment(p.nb + p.nj, p.nj).setConstant(o.w_d * lambda_d);
      wreg.segment(p.nb + 2 * p.nj, p.nj).setConstant(o.w_c * p.samples * wj_max);
      wreg.segment(p.nb + 3 * p.nj, p.nj).setConstant(o.w_s * p.samples * wj_max);
      wreg.segment(p.nb + 4 * p.nj, p.nj).setConstant(o.w_o * p.samples * wj_max);
      // Not fitted (Armature::Known, Ignored): the column is zero and the
      // regularisation holds the value where the a-priori set has it.
      wreg.segment(p.nb + 5 * p.nj, p.nj).setConstant(o.fitArmature() ? o.w_a * lambda_a : 1.0);
      wreg.segment(p.nb + 6 * p.nj, p.nj).setConstant(o.fitGear() ? o.w_g * lambda_g : 1.0);
      // Columns no row carries: the drive's with torque sensors (all but
      // τ_o), a known k_T. Held where x_ref has them, like the blocks above.
      for (int i = 0; i < p.nj; ++i) {
        for (int block = 0; block < kXi; ++block) {
          const bool empty = p.sensed ? block != 4 : (block == 0 && p.known_gain[static_cast<std::size_t>(i)]);
          if (empty) wreg[xiColumn(p, block, i)] = 1.0;
        }
      }
    }
    // A(15) as stacked rows under the data, solved by orthogonal factorisation.
    throwIfStopped();
    s.x = solveRegularisedLeastSquares(M, c, wreg, x_ref);
    throwIfStopped();
    VectorXd count;
    const VectorXd power = residualPower(p, s.x, joints, &count);
    throwIfStopped();
    if (pass == 0) {
      // Inverse residual variance of each equation, floored so that an
      // equation the model fits exactly cannot take all the weight.
      for (int e = 0; e < (joints ? p.nv : 6); ++e) {
        // An equation with no rows in use (a joint that never slides) has no
        // variance to invert; weight 0 keeps it out of the normalisation.
        const double var = power[e] / std::max(count[e], 1.0);
        weight[e] = count[e] > 0.0 ? 1.0 / std::max(var, 1e-12) : 0.0;
      }
      continue;
    }
    s.condition_number = scaledConditionNumber(M, &s.unexcited);
    s.row_rms = VectorXd::Zero(p.nv);
    double weighted = 0.0;
    for (int e = 0; e < (joints ? p.nv : 6); ++e) {
      s.row_rms[e] = std::sqrt(power[e] / std::max(count[e], 1.0));
      weighted += weight[e] * power[e];
    }
    // Degrees of freedom: the rows actually fitted. Counting the joint rows
    // left out (RestRows::Excluded keeps about a quarter on the JVRC-1
    // protocol) divided the used rows' residuals by 4x too many and made
    // every std 2x too small; on exact trials with correlated noise the
    // spread over draws was 1.19x the reported std, 1.01x with this count.
    const double dof = std::max(red.rows - P, 1.0);
    // The residuals are not independent from sample to sample (the filter
    // makes neighbours alike): each counts for about 1 / tau of a sample,
    // so the variance of the estimate is tau times the textbook one.
    s.correlation_samples = residualCorrelationTime(p, s.x, joints, weight);
    throwIfStopped();
    const double sigma2 = s.correlation_samples * weighted / dof;
    // The data's own covariance σ² (AᵀWA)⁻¹ from M, without A(15): its pull
    // toward the a-priori values is no measurement. Counted as information it
    // made parameters the data barely touch (a leg's inertia about hip roll
    // with both feet planted) look determined to 0.5 % while the a-priori
    // values held them 2-13 % off.
    // One covariance for the stds and the correlations (least_squares.h).
    const UnitCovariance covariance = reducedCovariance(M);
    VectorXd variance(P);
    for (int c = 0; c < P; ++c) variance[c] = covariance.variance(c) * sigma2;
    if (joints) s.correlation = correlation(covariance);
    s.relative_std.resize(P);
    for (int c = 0; c < P; ++c) {
      // Relative to the estimate; infinite for an estimate of exactly zero.
      const double sd = std::sqrt(variance[c]);
      s.relative_std[c] = s.x[c] != 0.0 ? sd / std::abs(s.x[c]) : std::numeric_limits<double>::infinity();
    }
  }
  return s;
}

}  // namespace suitsim::eval::robot_fit
