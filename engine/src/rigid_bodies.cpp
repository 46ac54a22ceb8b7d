// Hinged bodies as rigid bodies: forces on a body's particles become the
// body's force and moment, given back to the particles as the rigid-body
// acceleration field (hinges.cpp's design note).
#include "rigid_bodies.h"

#include "forces.h"
#include "hinge_math.h"
#include "isa_clones.h"

namespace suitsim::detail {

namespace {

void rigidBodyData(const Model& m, const PhasePoint& x, int b, double* out) {
  if (out[kMovable] == 0.0) return;
  // Scalar code doing Eigen's operations in Eigen's order (it replaced
  // Eigen's Vector3d and Matrix3d here: the same bits, fewer shuffles).
  const int first = m.body_particle_begin[b];
  double c[3] = {0.0, 0.0, 0.0};
  for (int k = 0; k < 4; ++k) {
    const int i = first + k;
    const double p[3] = {x.px[i], x.py[i], x.pz[i]};
    for (int d = 0; d < 3; ++d) c[d] += m.particle_mass[i] * p[d];
  }
  for (int d = 0; d < 3; ++d) c[d] /= out[kMass];
  double inertia[3][3] = {};
  for (int k = 0; k < 4; ++k) {
    const int i = first + k;
    const double r[3] = {x.px[i] - c[0], x.py[i] - c[1], x.pz[i] - c[2]};
    for (int d = 0; d < 3; ++d) out[kOffset + 3 * k + d] = r[d];
    const double s = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    for (int row = 0; row < 3; ++row) {
      for (int col = 0; col < 3; ++col) {
        inertia[row][col] += m.particle_mass[i] * ((row == col ? s : 0.0) - r[row] * r[col]);
      }
    }
  }
  for (int d = 0; d < 3; ++d) out[kCentre + d] = c[d];
  for (int row = 0; row < 3; ++row) {
    for (int col = 0; col < 3; ++col) out[kInertia + 3 * row + col] = inertia[row][col];
  }
  // Inverse by cofactors, as Eigen's 3 x 3 inverse: (I^-1)_ij = C_ji / det,
  // det along the first column.
  auto cofactor = [&inertia](int i, int j) {
    const int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
    return inertia[i1][j1] * inertia[i2][j2] - inertia[i1][j2] * inertia[i2][j1];
  };
  const double det = cofactor(0, 0) * inertia[0][0] + cofactor(1, 0) * inertia[1][0] + cofactor(2, 0) * inertia[2][0];
  const double inv_det = 1.0 / det;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) out[kInvInertia + 3 * i + j] = cofactor(j, i) * inv_det;
  }
}

// Body b as a rigid body: every force its particles carry so far (gravity,
// caller-applied and constant forces, ground contacts, bands) is summed
// into a force F and a moment M about the centre of mass c, and particle k
// is given the acceleration a rigid body's particle has,
//
//   a_k = F/m + alpha x r_k + omega x (omega x r_k),
//   alpha = I^-1 (M - omega x I omega),                 r_k = x_k - c,
//
// Euler's equations for the body and the rigid acceleration field they
// give. omega = I^-1 L, L = sum m_k r_k x v_k, is the body's spin from its
// particles' velocities (sum m_k r_k = 0, so their mean drops out). The last term is the centripetal acceleration the
// stiff link springs used to supply: with it the tetrahedron turns without
// being held, so the springs only take out what the integrator lets drift
// (they are added after this and act on the tetrahedron's strain alone:
// each spring's pair of forces has no net force or moment), and their
// stiffness no longer sets the time step. Net force and moment are F and
// c x F + M for any omega (the spin terms add m_k r_k over the body, zero,
// and a moment omega x I omega that alpha takes back), so momentum is
// conserved as before.
void spreadBodyForces(const Model& m, const PhasePoint& x, Workspace& ws, int b) {
  double* data = &ws.solver->hinge_body[b * kBodyData];
  rigidBodyData(m, x, b, data);
  if (data[kMovable] == 0.0) return;
  const int first = m.body_particle_begin[b];
  V3 force = V3::Zero(), moment = V3::Zero(), spin = V3::Zero();
  for (int k = 0; k < 4; ++k) {
    const int i = first + k;
    const V3 r = vec(data + kOffset + 3 * k);
    const V3 f(ws.force.x[i], ws.force.y[i], ws.force.z[i]);
    force = force + f;
    moment = moment + r.cross(f);
    spin = spin + m.particle_mass[i] * r.cross(V3(x.vx[i], x.vy[i], x.vz[i]));
  }
  const V3 omega = times(data + kInvInertia, spin);
  const V3 alpha = times(data + kInvInertia, moment - omega.cross(times(data + kInertia, omega)));
  const V3 a = data[kInvMass] * force;
  for (int k = 0; k < 4; ++k) {
    const int i = first + k;
    const V3 r = vec(data + kOffset + 3 * k);
    const V3 f = m.particle_mass[i] * (a + alpha.cross(r) + omega.cross(omega.cross(r)));
    ws.force.x[i] = f.x();
    ws.force.y[i] = f.y();
    ws.force.z[i] = f.z();
  }
}

}  // namespace

SUITSIM_HOT void flushBodyWrenches(const Model& m, Workspace& ws) {
  for (int b = 0; b < m.num_bodies; ++b) {
    if (ws.solver->body_hinges[b].empty() || !movable(ws, b)) continue;
    double* w = &ws.solver->hinge_body_wrench[b * 6];
    const double* body = bodyData(ws, b);
    const V3 a = body[kInvMass] * V3(w[0], w[1], w[2]);
    const V3 moment(w[3], w[4], w[5]);
    const double* inv_inertia = body + kInvInertia;
    const V3 alpha(vec(inv_inertia).dot(moment), vec(inv_inertia + 3).dot(moment), vec(inv_inertia + 6).dot(moment));
    const int first = m.body_particle_begin[b];
    for (int k = 0; k < 4; ++k) {
      const int i = first + k;
      const V3 f = m.particle_mass[i] * (a + alpha.cross(vec(body + kOffset + 3 * k)));
      ws.force.x[i] += f.x();
      ws.force.y[i] += f.y();
      ws.force.z[i] += f.z();
    }
    for (int c = 0; c < 6; ++c) w[c] = 0.0;
  }
}

SUITSIM_HOT_FLAT void spreadBodyForcesRigidly(const Model& model, const PhasePoint& x, Workspace& ws) {
  if (model.num_hinges == 0) return;
  // A body's particles take its forces together: one thread, body by body
  // (a few dozen bodies, less than a parallel loop's barrier costs).
#pragma omp single
  for (int b = 0; b < model.num_bodies; ++b) {
    if (!ws.solver->body_hinges[b].empty()) spreadBodyForces(model, x, ws, b);
  }
}

}  // namespace suitsim::detail
