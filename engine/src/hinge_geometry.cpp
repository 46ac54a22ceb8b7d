// Reading joint angles and rates from the particles (forces.h).
#include <cstdint>
#include <cstring>

#include "hinge_geometry.h"
#include "isa_clones.h"

namespace suitsim::detail {

SUITSIM_HOT void hingeAngleAndVelocity(const Model& model, const PhasePoint& x, int h, double reference, double* angle,
                           double* velocity) {
  HingeGeometry g;
  geometry(model, x, h, g);
  *angle = unwrapAngle(g.theta, reference);
  *velocity = g.theta_dot;
}

namespace {

constexpr int kFrameValues = 24;  // a body's four frame particles: positions, then velocities

// The six coordinate arrays a hinge's geometry reads (hingePoints), in HingeReading's order.
inline void frameArrays(const PhasePoint& x, const double* arrays[6]) {
  arrays[0] = x.px;
  arrays[1] = x.py;
  arrays[2] = x.pz;
  arrays[3] = x.vx;
  arrays[4] = x.vy;
  arrays[5] = x.vz;
}

// Whether body b's frame particles are, bit for bit, those its reading was taken from.
inline bool sameFrame(const Model& model, const PhasePoint& x, const double* kept, int b) {
  const double* arrays[6];
  frameArrays(x, arrays);
  const int first = model.body_particle_begin[b];
  const double* at = kept + static_cast<std::size_t>(b) * kFrameValues;
  // Bits, not values (-0.0 and 0.0 differ), compared all at once: no early
  // exit, so the compiler keeps it to a few vector compares.
  std::uint64_t differ = 0;
  for (int c = 0; c < 6; ++c) {
    for (int k = 0; k < 4; ++k) {
      std::uint64_t now, then;
      std::memcpy(&now, arrays[c] + first + k, sizeof now);
      std::memcpy(&then, at + 4 * c + k, sizeof then);
      differ |= now ^ then;
    }
  }
  return differ == 0;
}

}  // namespace

void keepHingeReading(const Model& model, const PhasePoint& x, State& state) {
  HingeReading& r = state.hinge_reading;
  const double* arrays[6];
  frameArrays(x, arrays);
  for (int b = 0; b < model.num_bodies; ++b) {
    const int first = model.body_particle_begin[b];
    double* at = r.body_particles.data() + static_cast<std::size_t>(b) * kFrameValues;
    for (int c = 0; c < 6; ++c) std::memcpy(at + 4 * c, arrays[c] + first, 4 * sizeof(double));
  }
  r.filled = true;
}

SUITSIM_HOT void readHinge(const Model& model, const State& state, int h, double* angle, double* velocity) {
  const HingeReading& r = state.hinge_reading;
  const PhasePoint x = phasePoint(state.position, state.velocity);
  if (r.filled && sameFrame(model, x, r.body_particles.data(), model.hinge_parent_body[h]) &&
      sameFrame(model, x, r.body_particles.data(), model.hinge_child_body[h])) {
    *angle = unwrapAngle(r.wrapped_angle[h], state.hinge_angle[h]);
    *velocity = r.rate[h];
    return;
  }
  hingeAngleAndVelocity(model, x, h, state.hinge_angle[h], angle, velocity);
}

}  // namespace suitsim::detail
