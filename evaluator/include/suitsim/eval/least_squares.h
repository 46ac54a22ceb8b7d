// Weighted, regularised linear least squares by orthogonal factorisation,
// for the robot identification A(13)-(20) (identification.h).
//
// The normal equations AᵀA x = Aᵀb square the condition number: with κ(A)
// near 1e8 they keep no correct digit. Here the tall system [A b] is reduced
// by Householder QR to a square matrix [M c] with
//   [A b] = Q [M c; 0],  Q orthogonal,
// so MᵀM = AᵀA, Mᵀc = Aᵀb and |A x − b| = |M x − c| for every x. M need not
// be triangular: any orthogonal reduction will do, which lets the caller
// reduce groups of rows that touch few columns on their own (the joint rows
// of the identification) and merge what is left. The rows are reduced block
// by block (the triangle so far stacked on the next block and re-factored),
// so only one block of the tall system is ever held.
//
// The solve then works on M alone (at most (P+1) x P): columns scaled to
// unit norm, the regularisation toward x_ref stacked under it as extra rows,
// and a complete orthogonal decomposition. The condition number reported is
// the ratio of extreme singular values of A with unit-norm columns, computed
// from M (same singular values), not the square root of an eigenvalue ratio
// of AᵀA.
#pragma once

#include <vector>

#include <Eigen/Core>

namespace suitsim::eval {

/// Householder reduction of a tall matrix, one block of rows at a time:
/// after any sequence of addRows, triangle() T (cols x cols, upper) holds
/// TᵀT = BᵀB for B all rows added so far (stacked in order).
class TriangularAccumulator {
 public:
  explicit TriangularAccumulator(int cols);
  /// Stacks `block` (m x cols) under the triangle and re-factors.
  void addRows(const Eigen::Ref<const Eigen::MatrixXd>& block);
  /// (cols x cols) upper triangular; zero before any row.
  const Eigen::MatrixXd& triangle() const { return triangle_; }
  int cols() const { return static_cast<int>(triangle_.cols()); }

 private:
  Eigen::MatrixXd triangle_;
  Eigen::MatrixXd stacked_;  // scratch: [triangle; block]
};

/// Upper triangle (cols x cols) of the stack of all `triangles` (each
/// cols x cols), merged pairwise in a fixed binary tree over their order
/// (neighbours 0+1, 2+3, ..., then the results likewise), each level split
/// over `threads` OpenMP threads: the bits do not depend on the thread
/// count. Consumes the input. Empty input: a zero triangle needs `cols`.
Eigen::MatrixXd mergeTriangles(std::vector<Eigen::MatrixXd> triangles, int cols, int threads);

/// While alive, Eigen's own matrix products run on one thread. The callers
/// here spread independent blocks over their threads; Eigen's parallel GEMM
/// inside would follow omp_get_max_threads() rather than the thread count
/// asked for. Restores the previous setting.
class EigenSingleThreaded {
 public:
  EigenSingleThreaded();
  ~EigenSingleThreaded();
  EigenSingleThreaded(const EigenSingleThreaded&) = delete;
  EigenSingleThreaded& operator=(const EigenSingleThreaded&) = delete;

 private:
  int previous_;
};

/// Minimiser of |M x − c|² + Σ_j reg_weight_j (x_j − x_ref_j)², M (r x P)
/// any orthogonal reduction of the data rows (see the file comment), c (r),
/// reg_weight (P, >= 0), x_ref (P). The columns of the stack [M; diag(√w)]
/// are scaled to unit norm and the stack is solved by a complete orthogonal
/// decomposition (minimum-norm in the scaled variables if rank deficient,
/// which leaves a column with neither data nor weight at 0).
Eigen::VectorXd solveRegularisedLeastSquares(const Eigen::MatrixXd& M, const Eigen::VectorXd& c,
                                             const Eigen::VectorXd& reg_weight, const Eigen::VectorXd& x_ref);

/// Condition number of A with unit-norm columns, from M (MᵀM = AᵀA):
/// σ_max / σ_min over the excited columns. A column that is identically zero
/// carries no information and a column equal to an earlier one up to sign
/// (|cos| > 1 − 1e-12) adds no direction: both are left out and counted in
/// `unexcited` (may be null). Infinite if the rest is rank deficient; 0 for
/// no excited column.
double scaledConditionNumber(const Eigen::MatrixXd& M, int* unexcited);

/// A least-squares estimate's covariance per unit residual variance, kept
/// in unit-norm column scaling: the covariance of parameters i and j is
/// scaled(i, j) * unit(i) * unit(j). One rule per fit decides which
/// directions the data do not see, and both a fit's standard deviations and
/// its correlations (parameter_correlation.h) are read from this one
/// matrix, so they never disagree about what is determined.
struct UnitCovariance {
  Eigen::MatrixXd scaled;    ///< (P x P) Σ_k v_k v_kᵀ / s_k² over the seen directions
  Eigen::VectorXd unit;      ///< (P) each column's scaling to unit norm, 0 for a zero column
  std::vector<bool> finite;  ///< (P) false: a zero column, or a share in an unseen direction
  /// Parameter j's variance per unit residual variance; +inf where not finite.
  double variance(Eigen::Index j) const;
};

/// The covariance of the robot fit from its reduction M (MᵀM = AᵀA): the
/// SVD of M D (D: unit-norm column scaling). A direction with s_k at or
/// below `kUnseenSingularValue` s_max is unseen, and so is every parameter
/// with a share in one (|V_jk| > 1e-6); with fewer rows than columns, the
/// missing directions too.
UnitCovariance reducedCovariance(const Eigen::MatrixXd& M);

/// The covariance of a band fit from its residual's Jacobian G (rows x P):
/// (GᵀG)⁺ by the SVD of G with unit-norm columns, zero columns left out,
/// directions below 1e-9 s_max unseen, and a parameter whose squared weight
/// in them exceeds 1e-12 not separable.
UnitCovariance jacobianCovariance(const Eigen::MatrixXd& G);

/// diag((AᵀA)⁻¹) (P) from M, per unit residual variance: the variance the
/// data leave each parameter. Computed from the singular value decomposition
/// of M D (D: unit-norm column scaling): Σ_k V_jk² / s_k², times D_j². A
/// direction with s_k at or below `kUnseenSingularValue` s_max is one the
/// data do not see: every parameter with a share in it (|V_jk| > 1e-6) and
/// every zero column gets an infinite variance.
Eigen::VectorXd unitVariance(const Eigen::MatrixXd& M);

/// Relative singular value below which unitVariance takes a direction as
/// unseen. 3.2e-7 = √1e-13: the same directions as the eigenvalue floor of
/// 1e-13 λ_max the normal-matrix version used, so the set of parameters
/// reported as undetermined does not move with the change of method.
inline constexpr double kUnseenSingularValue = 3.1622776601683794e-7;

}  // namespace suitsim::eval
