#include "suitsim/eval/dcm.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace suitsim::eval {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

std::vector<DcmPoints> dcmPoints(const std::vector<CentroidalSample>& samples, double mass,
                                 const Eigen::Vector3d& gravity, const GroundPlane& ground,
                                 const SupportPolygon& polygon) {
  if (!(mass > 0.0)) throw std::invalid_argument("dcmPoints: the mass must be > 0");
  // g > 0 is gravity's pull against the ground normal (9.81 on level ground).
  const double g = -gravity.dot(ground.normal);
  if (!(g > 0.0)) throw std::invalid_argument("dcmPoints: gravity has no component into the ground");
  const std::size_t n = samples.size();
  for (std::size_t k = 1; k < n; ++k) {
    if (!(samples[k].time > samples[k - 1].time)) {
      throw std::invalid_argument("dcmPoints: sample times must increase");
    }
  }
  std::vector<DcmPoints> out(n);
  // After (11): omega(t) = sqrt((g + c̈·n) / Δz), the frequency of the
  // pendulum from the ground to the CoM with its vertical acceleration.
  for (std::size_t k = 0; k < n; ++k) {
    const CentroidalSample& s = samples[k];
    const double dz = heightAboveGround(ground, s.com);
    const double pull = g + s.com_acceleration.dot(ground.normal);
    out[k].omega = dz > 0.0 && pull > 0.0 ? std::sqrt(pull / dz) : kNaN;
  }
  for (std::size_t k = 0; k < n; ++k) {
    DcmPoints& p = out[k];
    const CentroidalSample& s = samples[k];
    if (n > 1) {
      const std::size_t a = k == 0 ? 0 : k - 1, b = k + 1 == n ? n - 1 : k + 1;
      p.omega_rate = (out[b].omega - out[a].omega) / (samples[b].time - samples[a].time);
    }
    // (11): the 3-D DCM.
    p.dcm = s.com + s.com_velocity / p.omega;
    // (12)-(13): the DCM diverges from v at the rate omega - omega'/omega; v
    // and the eCMP (15) share the denominator omega² - omega'.
    const double stiffness = p.omega * p.omega - p.omega_rate;
    if (stiffness > 0.0) {
      p.vrp = s.com - s.com_acceleration / stiffness;
      p.ecmp = s.com - s.contact_force / (mass * stiffness);
    } else {
      p.vrp.setConstant(kNaN);
      p.ecmp.setConstant(kNaN);
    }
    p.dcm_ground = groundCoordinates(ground, p.dcm);
    p.margin = polygon.empty() || !p.dcm.allFinite() ? kNaN : polygonMargin(polygon, p.dcm_ground);
  }
  return out;
}

}  // namespace suitsim::eval
