// The hinge solve's linear system K lambda = rhs (hinges.cpp's design note):
// K's 6 x 6 blocks for every pair of hinges on a common body, and their
// block L D L^T elimination from the leaves toward the root, which creates
// no fill. Private to hinges.cpp (inlined into applyHinges' clones).
#pragma once

#include "hinge_rows.h"
#include "kernel_layout.h"

namespace suitsim::detail::hinge_solve {

// K blocks for every pair of hinges on a common body: K_ab += W_a M_b^-1
// W_b^T with the rows' wrenches W on that body and its rigid mobility
// M_b^-1 (G_a M^-1 G_b^T over its four particles for a body with a fixed
// particle). Only pairs with a eliminated first are formed. A hinge meets
// itself on both its bodies, so diagonal blocks start from zero.
inline void assembleBlocks(const Model& model, Workspace& ws) {
  const int nh = model.num_hinges;
  for (int h = 0; h < nh; ++h) {
    // Row by row: as a 384-byte memset GCC emits `rep stos`, whose start-up
    // cost was 3 % of the hinge solve.
    double* k = diagonalBlock(ws, h);
    for (int r = 0; r < kRows; ++r) storeRow(k + r * kStride, Row{});
  }
  for (int b = 0; b < model.num_bodies; ++b) {
    const std::vector<std::int32_t>& list = ws.solver->body_hinges[b];
    if (list.empty()) continue;
    // The body's pairs (ha, hb), ha eliminated first, in loop order.
    const std::int32_t* pair_block = ws.solver->body_pair_block.data() + ws.solver->body_pair_begin[b];
    if (movable(ws, b)) {
      for (int ha : list) {
        const int sa = model.hinge_parent_body[ha] == b ? 0 : 1;
        const double* left = mobilityOf(ws, ha, sa);
        for (int hb : list) {
          if (ws.solver->hinge_position[hb] < ws.solver->hinge_position[ha]) continue;
          const int sb = model.hinge_parent_body[hb] == b ? 0 : 1;
          double* k = blockAt(ws, *pair_block++);
          if (ha == hb) {
            productAtB<true>(left, wrenchOf(ws, hb, sb), k);
          } else {
            productAtB<false>(left, wrenchOf(ws, hb, sb), k);
          }
        }
      }
      continue;
    }
    double im[12];
    for (int k = 0; k < 4; ++k) {
      for (int d = 0; d < 3; ++d) im[3 * k + d] = model.particle_inv_mass[model.body_particle_begin[b] + k];
    }
    for (int ha : list) {
      const int sa = model.hinge_parent_body[ha] == b ? 0 : 1;
      double left[kRows][12];
      for (int r = 0; r < kRows; ++r) {
        const double* g = gradRow(ws, ha, r) + sa * 12;
        for (int q = 0; q < 12; ++q) left[r][q] = r < ws.solver->hinge_rows[ha] ? g[q] * im[q] : 0.0;
      }
      for (int hb : list) {
        if (ws.solver->hinge_position[hb] < ws.solver->hinge_position[ha]) continue;
        const int sb = model.hinge_parent_body[hb] == b ? 0 : 1;
        double* k = blockAt(ws, *pair_block++);
        for (int i = 0; i < kRows; ++i) {
          for (int j = 0; j < kRows; ++j) {
            double s = 0.0;
            if (j < ws.solver->hinge_rows[hb]) {
              const double* g = gradRow(ws, hb, j) + sb * 12;
              for (int q = 0; q < 12; ++q) s += left[i][q] * g[q];
            }
            k[i * kStride + j] = ha == hb ? k[i * kStride + j] + s : s;
          }
        }
      }
    }
  }
  for (int h = 0; h < nh; ++h) {
    double* k = diagonalBlock(ws, h);
    for (int r = ws.solver->hinge_rows[h]; r < kRows; ++r) k[r * kStride + r] = 1.0;  // inactive rows: lambda = 0
    // The rotor's row: mu / I_a joins theta'' (see the note); B for I_a on
    // a compliant gear (gear_train.h).
    if (ws.solver->hinge_rows[h] == kRows && !ws.solver->hinge_stick_row[h]) {
      k[(kRows - 1) * kStride + kRows - 1] += 1.0 / ws.solver->hinge_rotor_inertia[h];
    }
  }
}

// Eliminates hinge h, its block K_hh already factored (K_hh = L D L^T):
// Y_a = L^-1 K_ha stored over K_ha, rhs_a -= Y_a^T D^-1 L^-1 rhs_h and
// K_ca -= Y_c^T D^-1 Y_a for the hinges a, c it couples to.
inline void eliminate(const Model& model, Workspace& ws, int h) {
  const double* l = diagonalBlock(ws, h);
  double inv_d[kRows];
  for (int q = 0; q < kRows; ++q) inv_d[q] = l[q * kStride + q];
  double* z = &ws.solver->hinge_rhs[h * kStride];
  forwardSolve(l, z);  // kept for the back substitution
  double scaled[kRows];
  for (int q = 0; q < kRows; ++q) scaled[q] = z[q] * inv_d[q];
  const std::vector<std::int32_t>& coupled = model.kernel->hinge_coupled[h];
  const int num_coupled = static_cast<int>(coupled.size());
  for (int k = 0; k < num_coupled; ++k) {
    const int a = coupled[k];
    double* y = coupledBlock(ws, h, k);
    forwardSolveBlock(l, y);
    // rhs_a -= Y_a^T scaled, a block row at a time (each entry still
    // subtracts its terms in row order); right-hand sides are padded to
    // kStride like the block rows, the padding staying zero.
    double* rhs = &ws.solver->hinge_rhs[a * kStride];
    Row r = loadRow(rhs);
    for (int q = 0; q < kRows; ++q) r -= loadRow(y + q * kStride) * scaled[q];
    storeRow(rhs, r);
  }
  // The blocks K_ca it updates, listed once (Workspace::hinge_fill_block).
  // data() + offset, not &v[offset]: a robot whose hinges couple to none
  // (a chain of one) has no fill blocks at all, and v[0] of an empty vector
  // is undefined (UBSan: reference binding to a null pointer).
  const std::int32_t* fill = ws.solver->hinge_fill_block.data() + ws.solver->hinge_fill_begin[h];
  for (int kc = 0; kc < num_coupled; ++kc) {
    const int c = coupled[kc];
    const double* yc = coupledBlock(ws, h, kc);
    for (int ka = 0; ka < num_coupled; ++ka) {
      if (ws.solver->hinge_position[coupled[ka]] < ws.solver->hinge_position[c]) continue;
      subtractAtDB(yc, inv_d, coupledBlock(ws, h, ka), blockAt(ws, *fill++));
    }
  }
}

// The back substitution from the root, lambda_h = L^-T D^-1 (z_h - sum_a
// Y_a lambda_a), z = ws.solver->hinge_rhs as the forward elimination (and the
// couplings, solveCouplings) left it: ws.solver->hinge_lambda.
inline void backSubstitute(const Model& model, Workspace& ws) {
  const double* z = ws.solver->hinge_rhs.data();
  double* out = ws.solver->hinge_lambda.data();
  constexpr int stride = kRows;
  for (auto it = model.kernel->hinge_order.rbegin(); it != model.kernel->hinge_order.rend(); ++it) {
    const int h = *it;
    const double* l = diagonalBlock(ws, h);
    double x[kRows];
    for (int q = 0; q < kRows; ++q) x[q] = z[h * kStride + q];
    const std::vector<std::int32_t>& coupled = model.kernel->hinge_coupled[h];
    for (std::size_t k = 0; k < coupled.size(); ++k) {
      const int a = coupled[k];
      const double* y = coupledBlock(ws, h, static_cast<int>(k));
      const double* lambda = out + a * stride;
      for (int i = 0; i < kRows; ++i) {
        double s = 0.0;
        for (int j = 0; j < kRows; ++j) s += y[i * kStride + j] * lambda[j];
        x[i] -= s;
      }
    }
    for (int q = 0; q < kRows; ++q) x[q] *= l[q * kStride + q];
    backSolve(l, x);
    for (int q = 0; q < kRows; ++q) out[h * stride + q] = x[q];
  }
}

// Block L D L^T elimination, leaves first (see the design note): the
// factors, and the right-hand sides eliminated (z = L^-1 rhs, in
// ws.solver->hinge_rhs); backSubstitute then gives ws.solver->hinge_lambda.
inline void solveBlocks(const Model& model, Workspace& ws) {
  const int num_batches = static_cast<int>(ws.solver->hinge_batch_begin.size()) - 1;
  for (int batch = 0; batch < num_batches; ++batch) {
    // No hinge of a batch changes another's block: their factors, issued
    // back to back, overlap their chains of divisions in the processor.
    const int begin = ws.solver->hinge_batch_begin[batch], end = ws.solver->hinge_batch_begin[batch + 1];
    for (int k = begin; k < end; ++k) {
      const int h = model.kernel->hinge_order[k];
      factor(diagonalBlock(ws, h));
    }
    for (int k = begin; k < end; ++k) eliminate(model, ws, model.kernel->hinge_order[k]);
  }
}

}  // namespace suitsim::detail::hinge_solve
