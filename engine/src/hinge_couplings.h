// URDF <mimic> couplings in the hinge solve (hinges.cpp's design note): each
// coupling's row (the follower's angle row minus m times the leader's) and
// its multiplier, solved through the factors the tree solver left (a Schur
// complement over the couplings). Private to hinges.cpp (inlined into
// applyHinges' clones).
#pragma once

#include "hinge_tree_solver.h"

namespace suitsim::detail::hinge_solve {

// ---- couplings (URDF <mimic>), see the design note ---------------------------

// Forward substitution through the factors solveBlocks left, in place on v
// (num_hinges x kStride): v = L^-1 v, the same elimination solveBlocks does
// on the right-hand side, so that K^-1 v = L^-T D^-1 (this). A hinge whose
// entries are all zero passes nothing on: a coupling's column, nonzero on
// the few hinges at its bodies, touches only their paths to the root.
// The hinges it reached are listed in `reached`, their number returned.
inline int forwardSubstitute(const Model& model, Workspace& ws, double* v, std::int32_t* reached) {
  const int nh = model.num_hinges;
  int count = 0;
  for (int k = 0; k < nh; ++k) {
    const int h = model.kernel->hinge_order[k];
    double* z = v + h * kStride;
    bool nonzero = false;
    for (int q = 0; q < kRows; ++q) nonzero = nonzero || z[q] != 0.0;
    if (!nonzero) continue;
    reached[count++] = h;
    const double* l = diagonalBlock(ws, h);
    forwardSolve(l, z);
    double scaled[kRows];
    for (int q = 0; q < kRows; ++q) scaled[q] = z[q] * l[q * kStride + q];
    const std::vector<std::int32_t>& coupled = model.kernel->hinge_coupled[h];
    for (std::size_t k = 0; k < coupled.size(); ++k) {
      const int a = coupled[k];
      const double* y = coupledBlock(ws, h, static_cast<int>(k));
      double* rhs = v + a * kStride;
      for (int q = 0; q < kRows; ++q) {
        for (int i = 0; i < kRows; ++i) rhs[i] -= y[q * kStride + i] * scaled[q];
      }
    }
  }
  return count;
}

// Adds scale times coupling c's column of B (each hinge row's e'' per unit
// mu, by symmetry the row's acceleration under the coupling's moments) to
// v (num_hinges x kStride).
inline void addCouplingColumn(const Model& model, Workspace& ws, int c, double scale, double* v) {
  for (int e = 0; e < 4; ++e) {
    const int b = ws.solver->coupling_body[c * 4 + e];
    if (!movable(ws, b)) continue;  // all fixed (ModelBuilder::addCoupling): it does not move
    const V3 arm = scale * vec(&ws.solver->coupling_arm[(c * 4 + e) * 3]);
    for (int h : ws.solver->body_hinges[b]) {
      const double* mobility = mobilityOf(ws, h, model.hinge_parent_body[h] == b ? 0 : 1);
      for (int r = 0; r < kRows; ++r) {
        v[h * kStride + r] += mobility[3 * kStride + r] * arm[0] + mobility[4 * kStride + r] * arm[1] +
                              mobility[5 * kStride + r] * arm[2];
      }
    }
  }
}

// Each coupling's four moments (follower's angle row minus m times the
// leader's, on the two bodies of each) and its target e''.
inline void prepareCouplings(const Model& model, Workspace& ws) {
  const double w = model.hinge_constraint_frequency;
  for (int c = 0; c < model.num_couplings; ++c) {
    const int f = model.coupling_follower[c], l = model.coupling_leader[c];
    const double m = model.coupling_multiplier[c];
    const double* df = &ws.solver->hinge_angle_data[f * kAngleData];
    const double* dl = &ws.solver->hinge_angle_data[l * kAngleData];
    const int bodies[4] = {model.hinge_parent_body[f], model.hinge_child_body[f], model.hinge_parent_body[l],
                           model.hinge_child_body[l]};
    const double* moments[4] = {df + 3, df + 6, dl + 3, dl + 6};
    for (int e = 0; e < 4; ++e) {
      ws.solver->coupling_body[c * 4 + e] = bodies[e];
      const double scale = e < 2 ? 1.0 : -m;
      for (int d = 0; d < 3; ++d) ws.solver->coupling_arm[(c * 4 + e) * 3 + d] = scale * moments[e][d];
    }
    // e is taken modulo 2 pi: a gear train cannot tell whole turns apart,
    // and the pose may start a follower a turn away from m theta_l + c.
    const double error = std::remainder(df[0] - m * dl[0] - model.coupling_offset[c], 2.0 * std::numbers::pi);
    const double rate = df[1] - m * dl[1];
    ws.solver->coupling_target[c] = -2.0 * w * rate - w * w * error - (df[2] - m * dl[2]);
  }
}

// The couplings' multipliers mu, between the hinge solve's forward
// elimination and its back substitution (see the design note): with
// Z = L^-1 B and z = L^-1 r_h, B^T K^-1 B = Z^T D^-1 Z and B^T K^-1 r_h =
// Z^T D^-1 z; the hinges then take r_h - B mu, that is z - Z mu, into the
// back substitution. Z is nonzero only on the paths from the couplings'
// hinges to the root, so every product runs along those.
inline void solveCouplings(const Model& model, Workspace& ws) {
  const int nc = model.num_couplings, nh = model.num_hinges;
  if (nc == 0) return;
  const std::size_t column = static_cast<std::size_t>(nh) * kStride;
  for (int c = 0; c < nc; ++c) {
    double* z = &ws.solver->coupling_response[c * column];
    for (std::size_t q = 0; q < column; ++q) z[q] = 0.0;
    addCouplingColumn(model, ws, c, 1.0, z);
    ws.solver->coupling_reach[c] = forwardSubstitute(model, ws, z, &ws.solver->coupling_path[c * nh]);
  }
  // u^T D^-1 w over the hinges on coupling c's path (u is zero elsewhere).
  auto throughHinges = [&](int c, const double* u, const double* w) {
    double sum = 0.0;
    for (int k = 0; k < ws.solver->coupling_reach[c]; ++k) {
      const int h = ws.solver->coupling_path[c * nh + k];
      const double* inv_d = diagonalBlock(ws, h);
      for (int q = 0; q < kRows; ++q) sum += u[h * kStride + q] * inv_d[q * kStride + q] * w[h * kStride + q];
    }
    return sum;
  };
  // The Schur complement S = C - Z^T D^-1 Z and the right-hand side
  // r_c - Z^T D^-1 z, r_c = target - e'' under the forces so far.
  for (int c = 0; c < nc; ++c) {
    const int f = model.coupling_follower[c], l = model.coupling_leader[c];
    V3 acc[kNumPoints];
    pointAccelerations(model, ws, f, acc);
    double free = angleAcceleration(ws, f, acc);
    pointAccelerations(model, ws, l, acc);
    free -= model.coupling_multiplier[c] * angleAcceleration(ws, l, acc);
    const double* zc = &ws.solver->coupling_response[c * column];
    ws.solver->coupling_rhs[c] = ws.solver->coupling_target[c] - free - throughHinges(c, zc, ws.solver->hinge_rhs.data());
    for (int d = 0; d <= c; ++d) {
      double own = 0.0;
      for (int e = 0; e < 4; ++e) {
        const int b = ws.solver->coupling_body[c * 4 + e];
        if (!movable(ws, b)) continue;
        for (int k = 0; k < 4; ++k) {
          if (ws.solver->coupling_body[d * 4 + k] != b) continue;
          own += vec(&ws.solver->coupling_arm[(c * 4 + e) * 3])
                     .dot(times(bodyData(ws, b) + kInvInertia, vec(&ws.solver->coupling_arm[(d * 4 + k) * 3])));
        }
      }
      ws.solver->coupling_schur[c * nc + d] = own - throughHinges(c, zc, &ws.solver->coupling_response[d * column]);
    }
  }
  // S is symmetric positive definite and small: Cholesky on its lower
  // triangle, in place.
  double* s = ws.solver->coupling_schur.data();
  for (int j = 0; j < nc; ++j) {
    double diag = s[j * nc + j];
    for (int k = 0; k < j; ++k) diag -= s[j * nc + k] * s[j * nc + k];
    s[j * nc + j] = std::sqrt(diag);
    for (int i = j + 1; i < nc; ++i) {
      double v = s[i * nc + j];
      for (int k = 0; k < j; ++k) v -= s[i * nc + k] * s[j * nc + k];
      s[i * nc + j] = v / s[j * nc + j];
    }
  }
  double* mu = ws.solver->coupling_lambda.data();
  for (int i = 0; i < nc; ++i) {
    double v = ws.solver->coupling_rhs[i];
    for (int k = 0; k < i; ++k) v -= s[i * nc + k] * mu[k];
    mu[i] = v / s[i * nc + i];
  }
  for (int i = nc - 1; i >= 0; --i) {
    double v = mu[i];
    for (int k = i + 1; k < nc; ++k) v -= s[k * nc + i] * mu[k];
    mu[i] = v / s[i * nc + i];
  }
  // z -= Z mu.
  for (int c = 0; c < nc; ++c) {
    const double* zc = &ws.solver->coupling_response[c * column];
    for (int k = 0; k < ws.solver->coupling_reach[c]; ++k) {
      const int h = ws.solver->coupling_path[c * nh + k];
      for (int q = 0; q < kRows; ++q) ws.solver->hinge_rhs[h * kStride + q] -= zc[h * kStride + q] * mu[c];
    }
  }
}

}  // namespace suitsim::detail::hinge_solve
