// Straps: a device's cuffs held on the robot's links by spring-dampers.
//
// Design note. A strap's two ends are points of two bodies, each an affine
// combination of its body's four particles like a band's via point, so a
// force there reaches the particles by the same weights with its moment
// about the body's centre, and no Jacobian is formed (T §2: external
// effects enter as particle forces). The spring is isotropic with zero rest
// length, f = k (p_a - p_b) + c (v_a - v_b) on the worn-on end b and -f on
// the device's end a: an internal pair between device and robot, so whatever
// the device does to the robot (its weight, its motors' torques, its
// inertia) passes through the straps and nowhere else. A real cuff is stiff
// along the limb and soft across it; one stiffness for all three directions
// is the simplest model that keeps the device on, named so in docs/devices.md.
//
// Straps are few (a device has a handful), so the pass runs on one thread
// in strap order: bit-identical for any thread count, and it allocates nothing.
#include "straps.h"

namespace suitsim {

int Model::findStrap(const std::string& name) const {
  for (int s = 0; s < num_straps; ++s) {
    if (strap_name[s] == name) return s;
  }
  return -1;
}

}  // namespace suitsim

namespace suitsim::detail {

namespace {

inline void bodyPoint(const Model& m, const PhasePoint& x, int body, const std::array<double, 4>& w, double p[3],
                      double v[3]) {
  affinePoint(x, m.body_particle_begin[body], w, p, v);
}

}  // namespace

Vec3 strapForce(const Model& model, const PhasePoint& x, int s) {
  double pa[3], va[3], pb[3], vb[3];
  bodyPoint(model, x, model.strap_body_a[s], model.strap_weight_a[s], pa, va);
  bodyPoint(model, x, model.strap_body_b[s], model.strap_weight_b[s], pb, vb);
  const double k = model.strap_stiffness[s], c = model.strap_damping[s];
  return {k * (pa[0] - pb[0]) + c * (va[0] - vb[0]), k * (pa[1] - pb[1]) + c * (va[1] - vb[1]),
          k * (pa[2] - pb[2]) + c * (va[2] - vb[2])};
}

void addStrapForces(const Model& model, const PhasePoint& x, Workspace& ws) {
  if (model.num_straps == 0) return;
#pragma omp single
  for (int s = 0; s < model.num_straps; ++s) {
    const Vec3 fv = strapForce(model, x, s);
    const double f[3] = {fv[0], fv[1], fv[2]};
    const double g[3] = {-f[0], -f[1], -f[2]};
    addAtAffinePoint(model.body_particle_begin[model.strap_body_b[s]], model.strap_weight_b[s], f, ws.force);
    addAtAffinePoint(model.body_particle_begin[model.strap_body_a[s]], model.strap_weight_a[s], g, ws.force);
    ws.strap_force.x[s] = f[0];
    ws.strap_force.y[s] = f[1];
    ws.strap_force.z[s] = f[2];
  }
}

double strapPotentialEnergy(const Model& model, const State& state) {
  double energy = 0.0;
  const PhasePoint x = phasePoint(state.position, state.velocity);
  for (int s = 0; s < model.num_straps; ++s) {
    double pa[3], va[3], pb[3], vb[3];
    bodyPoint(model, x, model.strap_body_a[s], model.strap_weight_a[s], pa, va);
    bodyPoint(model, x, model.strap_body_b[s], model.strap_weight_b[s], pb, vb);
    const double d2 = (pa[0] - pb[0]) * (pa[0] - pb[0]) + (pa[1] - pb[1]) * (pa[1] - pb[1]) +
                      (pa[2] - pb[2]) * (pa[2] - pb[2]);
    energy += 0.5 * model.strap_stiffness[s] * d2;
  }
  return energy;
}

}  // namespace suitsim::detail
