// The 6 x 6 block kernels of the hinge solve: products, the L D L^T factor
// of a block and its triangular solves (hinges.cpp's design note).
#pragma once

#include "hinge_math.h"

namespace suitsim::detail {

constexpr int kRows = 6;                 // ball (3), plane (2), stick (1)
constexpr int kBlock = kRows * kStride;  // one 6 x 6 block, rows padded to kStride

// ---- 6 x 6 kernels ------------------------------------------------------------
// Blocks are row-major with rows padded to kStride doubles (the padding
// stays zero), so a block row is one Row: the products below are a few
// dozen vector operations instead of hundreds of scalar ones (Eigen's fixed
// 6 x 6 products on mapped blocks stayed scalar). Each entry still sums its
// terms in index order, as the scalar loops would.

// C = A^T B (assign) or C += A^T B for A the mobility of one hinge's rows
// and B the wrench of another's (or the same hinge's) on a common body.
// Their force components (0-2) are zero but for the ball rows, where row d
// has only component d (prepareHinge: +-e_d, times 1/m in A), so entry
// (i, j) takes at most one force term, k = i = j, and the skipped terms are
// exact zeros: the sum is the same, in the same order, with 21 vector
// products instead of 36.
template <bool kAccumulate>
inline void productAtB(const double* __restrict a, const double* __restrict b, double* __restrict c) {
  Row rows_b[kRows];
  for (int k = 0; k < kRows; ++k) rows_b[k] = loadRow(b + k * kStride);
  for (int i = 0; i < kRows; ++i) {
    Row out = kAccumulate ? loadRow(c + i * kStride) : Row{};
    if (i < 3) out += a[i * kStride + i] * rows_b[i];
    for (int k = 3; k < kRows; ++k) out += a[k * kStride + i] * rows_b[k];
    storeRow(c + i * kStride, out);
  }
}

// C -= A^T D^-1 B, D^-1 = diag(inv_d). (Scaling A once per block and
// sharing it across the blocks it meets measured no faster.)
inline void subtractAtDB(const double* __restrict a, const double* inv_d, const double* __restrict b,
                         double* __restrict c) {
  Row rows_b[kRows];
  for (int k = 0; k < kRows; ++k) rows_b[k] = loadRow(b + k * kStride);
  for (int i = 0; i < kRows; ++i) {
    Row sum = (a[i] * inv_d[0]) * rows_b[0];
    for (int k = 1; k < kRows; ++k) sum += (a[k * kStride + i] * inv_d[k]) * rows_b[k];
    storeRow(c + i * kStride, loadRow(c + i * kStride) - sum);
  }
}

// L D L^T factor of a symmetric positive definite block (both triangles
// formed), in place: the strict lower triangle holds the unit lower L, the
// diagonal 1 / D_ii, the upper triangle what the elimination left (unused;
// the padding stays zero). Eliminating by whole rows keeps every update a vector
// operation, and without square roots the dependency chain from one pivot
// to the next is a single division (the chains of sqrt and division of a
// Cholesky factor were a tenth of a humanoid step).
inline void factor(double* k) {
  Row rows[kRows];
  for (int i = 0; i < kRows; ++i) rows[i] = loadRow(k + i * kStride);
  double lower[kRows][kRows];
  double inv_d[kRows];
  for (int j = 0; j < kRows; ++j) {
    inv_d[j] = 1.0 / rows[j][j];
    for (int i = j + 1; i < kRows; ++i) {
      lower[i][j] = rows[i][j] * inv_d[j];
      rows[i] -= lower[i][j] * rows[j];
    }
  }
  // Whole rows go back (the upper triangle of a factored block is never
  // read): stored entry by entry, the varying row lengths were turned into
  // a `rep movs` copy per row, slower than the elimination itself.
#pragma GCC unroll 6
  for (int i = 0; i < kRows; ++i) {
    Row out = rows[i];
#pragma GCC unroll 6
    for (int j = 0; j < i; ++j) out[j] = lower[i][j];
    out[i] = inv_d[i];
    storeRow(k + i * kStride, out);
  }
}

// X = L^-1 X for a block X and the unit lower L of a factor, by rows.
inline void forwardSolveBlock(const double* __restrict l, double* __restrict x) {
  Row rows[kRows];
  for (int i = 0; i < kRows; ++i) {
    Row xi = loadRow(x + i * kStride);
    for (int q = 0; q < i; ++q) xi -= l[i * kStride + q] * rows[q];
    rows[i] = xi;
    storeRow(x + i * kStride, xi);
  }
}

// z = L^-1 z (unit lower L).
inline void forwardSolve(const double* l, double* z) {
  for (int i = 1; i < kRows; ++i) {
    double s = z[i];
    for (int q = 0; q < i; ++q) s -= l[i * kStride + q] * z[q];
    z[i] = s;
  }
}

// z = L^-T z (unit lower L).
inline void backSolve(const double* l, double* z) {
  for (int i = kRows - 2; i >= 0; --i) {
    double s = z[i];
    for (int q = i + 1; q < kRows; ++q) s -= l[q * kStride + i] * z[q];
    z[i] = s;
  }
}

}  // namespace suitsim::detail
