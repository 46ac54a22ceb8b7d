// Reading joint angles and rates from the particles (forces.h).
#include "hinge_geometry.h"
#include "isa_clones.h"

namespace suitsim::detail {

double hingeAngle(const Model& model, const PhasePoint& x, int h, double reference) {
  HingeGeometry g;
  geometry(model, x, h, g);
  return unwrapAngle(g.theta, reference);
}

double hingeVelocity(const Model& model, const PhasePoint& x, int h) {
  HingeGeometry g;
  geometry(model, x, h, g);
  return g.theta_dot;
}

SUITSIM_HOT void hingeAngleAndVelocity(const Model& model, const PhasePoint& x, int h, double reference, double* angle,
                           double* velocity) {
  HingeGeometry g;
  geometry(model, x, h, g);
  *angle = unwrapAngle(g.theta, reference);
  *velocity = g.theta_dot;
}

}  // namespace suitsim::detail
