#include "suitsim/rigid/dcm.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "suitsim/core/balance_points.h"

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
  std::vector<Centroidal> centroidal(n);
  const auto vec3 = [](const Eigen::Vector3d& v) { return Vec3{v.x(), v.y(), v.z()}; };
  const Vec3 gravity_W = vec3(gravity), normal = vec3(ground.normal);
  for (std::size_t k = 0; k < n; ++k) {
    const CentroidalSample& s = samples[k];
    centroidal[k] = {mass, vec3(s.com), vec3(s.com_velocity), vec3(s.contact_force), vec3(s.com_acceleration)};
    out[k].omega = pendulumFrequency(heightAboveGround(ground, s.com), s.com_acceleration.dot(ground.normal), g);
  }
  for (std::size_t k = 0; k < n; ++k) {
    DcmPoints& p = out[k];
    if (n > 1) {
      const std::size_t a = k == 0 ? 0 : k - 1, b = k + 1 == n ? n - 1 : k + 1;
      p.omega_rate = (out[b].omega - out[a].omega) / (samples[b].time - samples[a].time);
    }
    // (11)-(15), as the engine computes them for the simulator's truth.
    const BalancePoints points = balancePoints(centroidal[k], gravity_W, normal, ground.offset, p.omega_rate);
    p.dcm = Eigen::Vector3d(points.dcm[0], points.dcm[1], points.dcm[2]);
    p.vrp = Eigen::Vector3d(points.vrp[0], points.vrp[1], points.vrp[2]);
    p.ecmp = Eigen::Vector3d(points.ecmp[0], points.ecmp[1], points.ecmp[2]);
    p.dcm_ground = groundCoordinates(ground, p.dcm);
    p.margin = polygon.empty() || !p.dcm.allFinite() ? kNaN : polygonMargin(polygon, p.dcm_ground);
  }
  return out;
}

}  // namespace suitsim::eval
