// The balance points of a centroidal state (Lefevre et al., seed 003,
// (8)-(15)), as pure formulas: the engine applies them to its particles'
// state (centroidal.h, the truth) and the evaluator to its estimate from the
// sensor streams (rigid/dcm.h), so both compute them alike.
//
// With n the ground normal, g = -gravity·n > 0 and Δz = n·c - offset:
//   omega = sqrt((g + c̈·n) / Δz)               after (11)
//   ξ     = c + ċ / omega                        (11), the 3-D DCM
//   v     = c - c̈ / (omega² - omega')            (13), the VRP
//   r     = c - F_ext / (m (omega² - omega'))    (15), the eCMP
#pragma once

#include "suitsim/core/vec3.h"

namespace suitsim {

/// A system's centroidal state: its mass, centre of mass and what moves it.
struct Centroidal {
  double mass = 0.0;                  ///< free particles (kg)
  Vec3 com{0.0, 0.0, 0.0};            ///< c (m)
  Vec3 com_velocity{0.0, 0.0, 0.0};   ///< ċ (m/s)
  Vec3 external_force{0.0, 0.0, 0.0};  ///< F_ext: every external force but gravity (N)
  Vec3 com_acceleration{0.0, 0.0, 0.0};  ///< c̈ = F_ext / m + gravity (m/s²)
};

/// The balance points of (11)-(15) at one instant. NaN where undefined:
/// omega needs Δz > 0 and g + c̈·n > 0 (not falling freely), v and r need
/// omega² - omega' > 0.
struct BalancePoints {
  double omega = 0.0;      ///< pendulum frequency (1/s)
  double omega_rate = 0.0; ///< the omega' the points were built with (1/s²)
  Vec3 dcm{0.0, 0.0, 0.0};   ///< ξ (m)
  Vec3 vrp{0.0, 0.0, 0.0};   ///< v (m)
  Vec3 ecmp{0.0, 0.0, 0.0};  ///< r_ecmp (m)
};

/// omega of (11) for a CoM at height `height` above the ground with normal
/// acceleration `normal_acceleration` (c̈·n) under gravity pull `g` (> 0).
double pendulumFrequency(double height, double normal_acceleration, double g);

/// The points of (11), (13) and (15) for the centroidal state `c`, the
/// ground plane (unit normal, offset), gravity and omega' = `omega_rate`.
BalancePoints balancePoints(const Centroidal& c, const Vec3& gravity, const Vec3& normal, double offset,
                            double omega_rate);

}  // namespace suitsim
