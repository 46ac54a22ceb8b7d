// See plain_springs.h. Nothing here is tuned: the loop is the textbook one.
#include "plain_springs.h"

#include <cmath>

#include <omp.h>

namespace suitsim::bench {

PlainScratch::PlainScratch(const Model& model, int threads_) : threads(threads_), force(threads_) {
  for (Vec3Array& f : force) f.assign(model.num_particles, 0.0);
}

void plainAcceleration(const Model& model, const State& state, PlainScratch& scratch, Vec3Array& acceleration) {
  const int np = model.num_particles;
  const int ns = model.num_springs;
  const double* px = state.position.x.data();
  const double* py = state.position.y.data();
  const double* pz = state.position.z.data();
  const double* vx = state.velocity.x.data();
  const double* vy = state.velocity.y.data();
  const double* vz = state.velocity.z.data();
  const std::int32_t* sa = model.spring_a.data();
  const std::int32_t* sb = model.spring_b.data();
  const double* k = model.spring_stiffness.data();
  const double* c = model.spring_damping.data();
  const double* l0 = model.spring_rest_length.data();
  const double* m = model.particle_mass.data();
  const double* inv_m = model.particle_inv_mass.data();
  const Vec3 g = model.gravity;
#pragma omp parallel num_threads(scratch.threads)
  {
    const int me = omp_get_thread_num();
    double* fx = scratch.force[me].x.data();
    double* fy = scratch.force[me].y.data();
    double* fz = scratch.force[me].z.data();
    // The weights go into the first buffer, the others start from zero.
    for (int i = 0; i < np; ++i) {
      fx[i] = me == 0 ? m[i] * g[0] : 0.0;
      fy[i] = me == 0 ? m[i] * g[1] : 0.0;
      fz[i] = me == 0 ? m[i] * g[2] : 0.0;
    }
#pragma omp for schedule(static)
    for (int s = 0; s < ns; ++s) {
      const int a = sa[s], b = sb[s];
      const double dx = px[b] - px[a], dy = py[b] - py[a], dz = pz[b] - pz[a];
      const double length = std::sqrt(dx * dx + dy * dy + dz * dz);
      const double inv_length = length > 0.0 ? 1.0 / length : 0.0;
      const double ux = dx * inv_length, uy = dy * inv_length, uz = dz * inv_length;
      const double rate = (vx[b] - vx[a]) * ux + (vy[b] - vy[a]) * uy + (vz[b] - vz[a]) * uz;
      const double tension = k[s] * (length - l0[s]) + c[s] * rate;
      fx[a] += tension * ux;
      fy[a] += tension * uy;
      fz[a] += tension * uz;
      fx[b] -= tension * ux;
      fy[b] -= tension * uy;
      fz[b] -= tension * uz;
    }
    // (the implicit barrier: every buffer is complete)
#pragma omp for schedule(static)
    for (int i = 0; i < np; ++i) {
      double sx = 0.0, sy = 0.0, sz = 0.0;
      for (int t = 0; t < scratch.threads; ++t) {
        sx += scratch.force[t].x[i];
        sy += scratch.force[t].y[i];
        sz += scratch.force[t].z[i];
      }
      acceleration.x[i] = sx * inv_m[i];
      acceleration.y[i] = sy * inv_m[i];
      acceleration.z[i] = sz * inv_m[i];
    }
  }
}

}  // namespace suitsim::bench
