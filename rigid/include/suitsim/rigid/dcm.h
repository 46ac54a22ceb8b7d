// The divergent component of motion (DCM) and its companion points, from a
// robot's centroidal motion (Lefevre et al., seed 003, equations (4)-(15)).
//
// For the pendulum formed by the centre of mass c and the ground, with a
// height that may change, the seed defines (ground normal n, g > 0 the
// gravity along -n, Δz the CoM's height above the ground):
//   omega(t) = sqrt((g + c̈·n) / Δz)                 after (11)
//   ξ = c + ċ / omega                                (11): 3-D DCM
//   v = c - c̈ / (omega² - omega')                    (13): virtual repellent point (VRP)
//   r_ecmp = c - F_ext / (m (omega² - omega'))       (15): extended centroidal moment pivot
// and the DCM diverges from the VRP, ξ' = (omega - omega'/omega)(ξ - v) (12).
// F_ext is the sum of the contact forces; with c̈ = F_ext/m + gravity,
// v = r_ecmp + g n / (omega² - omega') (14). At constant height omega' = 0 and
// these are the classical points: ξ's ground projection is the capture point,
// and a robot without angular momentum has its eCMP at the centre of pressure.
//
// The balance margin is the signed distance (positive inside) from the DCM's
// ground projection to the support polygon's edge (balance.h): a DCM outside
// the polygon means the CoM cannot be brought to rest over the feet without
// a step or a contact force pulling it back.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "suitsim/rigid/balance.h"

namespace suitsim::eval {

/// The centroidal motion at one instant, world frame. The caller chooses the
/// source: the simulator's truth, or the sensor streams (CoM from joint
/// encoders and a model, F_ext from force sensors, c̈ = F_ext/m + gravity).
struct CentroidalSample {
  double time = 0.0;                                         ///< (s)
  Eigen::Vector3d com = Eigen::Vector3d::Zero();              ///< c (m)
  Eigen::Vector3d com_velocity = Eigen::Vector3d::Zero();     ///< ċ (m/s)
  Eigen::Vector3d com_acceleration = Eigen::Vector3d::Zero(); ///< c̈ (m/s²)
  Eigen::Vector3d contact_force = Eigen::Vector3d::Zero();    ///< F_ext: sum of contact forces on the robot (N)
};

/// The points of (11)-(15) at one instant. A point is NaN where it is not
/// defined: omega needs g + c̈·n > 0 and Δz > 0 (not airborne, CoM above the
/// ground), the VRP and eCMP need omega² - omega' > 0.
struct DcmPoints {
  double omega = 0.0;       ///< pendulum frequency omega(t) (1/s)
  double omega_rate = 0.0;  ///< omega' by central differences over the samples (1/s²)
  Eigen::Vector3d dcm = Eigen::Vector3d::Zero();   ///< ξ, (11) (m)
  Eigen::Vector3d vrp = Eigen::Vector3d::Zero();   ///< v, (13) (m)
  Eigen::Vector3d ecmp = Eigen::Vector3d::Zero();  ///< r_ecmp, (15) (m)
  Eigen::Vector2d dcm_ground = Eigen::Vector2d::Zero();  ///< ξ projected on the ground, ground coordinates (m)
  double margin = 0.0;      ///< polygonMargin of dcm_ground (m); NaN without a polygon or a DCM
};

/// The points for a time series (times strictly increasing). omega' is the
/// central difference of omega (one-sided at the ends; 0 for one sample).
/// `gravity` is the world gravity vector (m/s²), `mass` the robot's (kg).
/// Throws std::invalid_argument for mass <= 0, non-increasing times, or a
/// gravity with no component against the ground normal.
std::vector<DcmPoints> dcmPoints(const std::vector<CentroidalSample>& samples, double mass,
                                 const Eigen::Vector3d& gravity, const GroundPlane& ground,
                                 const SupportPolygon& polygon);

}  // namespace suitsim::eval
