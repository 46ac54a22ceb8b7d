#include <cmath>

#include "forces.h"

namespace suitsim::detail {

void addSpringForces(const Model& model, const PhasePoint& x, Vec3Array& force) {
  const std::int32_t* sa = model.spring_a.data();
  const std::int32_t* sb = model.spring_b.data();
  const double* k = model.spring_stiffness.data();
  const double* c = model.spring_damping.data();
  const double* l0 = model.spring_rest_length.data();
  double* fx = force.x.data();
  double* fy = force.y.data();
  double* fz = force.z.data();
  const int num_colours = model.numSpringColours();
  for (int colour = 0; colour < num_colours; ++colour) {
    const int begin = model.spring_colour_begin[colour];
    const int end = model.spring_colour_begin[colour + 1];
    // Within a colour no particle appears twice, so the scatter below has no
    // write conflicts: safe for threads and for SIMD lanes alike.
#pragma omp for simd schedule(static)
    for (int s = begin; s < end; ++s) {
      const int a = sa[s];
      const int b = sb[s];
      const double dx = x.px[b] - x.px[a];
      const double dy = x.py[b] - x.py[a];
      const double dz = x.pz[b] - x.pz[a];
      const double length = std::sqrt(dx * dx + dy * dy + dz * dz);
      // T(7)'s singular point (coincident particles): no direction, no force.
      const double inv_length = length > 0.0 ? 1.0 / length : 0.0;
      const double ux = dx * inv_length;
      const double uy = dy * inv_length;
      const double uz = dz * inv_length;
      const double stretch_rate =
          (x.vx[b] - x.vx[a]) * ux + (x.vy[b] - x.vy[a]) * uy + (x.vz[b] - x.vz[a]) * uz;
      const double tension = k[s] * (length - l0[s]) + c[s] * stretch_rate;
      const double tx = tension * ux;
      const double ty = tension * uy;
      const double tz = tension * uz;
      fx[a] += tx;
      fy[a] += ty;
      fz[a] += tz;
      fx[b] -= tx;
      fy[b] -= ty;
      fz[b] -= tz;
    }
  }
}

double springPotentialEnergy(const Model& model, const State& state) {
  double energy = 0.0;
  for (int s = 0; s < model.num_springs; ++s) {
    const Vec3 pa = state.position.get(model.spring_a[s]);
    const Vec3 pb = state.position.get(model.spring_b[s]);
    const double dx = pb[0] - pa[0], dy = pb[1] - pa[1], dz = pb[2] - pa[2];
    const double stretch = std::sqrt(dx * dx + dy * dy + dz * dz) - model.spring_rest_length[s];
    energy += 0.5 * model.spring_stiffness[s] * stretch * stretch;
  }
  return energy;
}

}  // namespace suitsim::detail
