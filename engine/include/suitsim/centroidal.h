// A whole model's centroidal motion and the balance points built on it
// (Lefevre et al., seed 003, (8)-(15)), from the simulator's own state: the
// truth that an evaluator's estimate from sensor streams (eval/dcm.h) is
// scored against, and what the Recorder's balance channels and the viewer
// show.
//
// The system is every free particle of the model (a robot with what it
// wears or holds). Its external forces are the ground's contact forces, the
// particles' constant forces and the caller's applied forces; gravity acts
// on its own. Particles held fixed or anchored are not part of it, so the
// points below describe a free-standing model.
//
// With n the ground normal, g = -gravity·n > 0 and Δz = n·c - offset:
//   omega = sqrt((g + c̈·n) / Δz)               after (11)
//   ξ     = c + ċ / omega                        (11), the 3-D DCM
//   v     = c - c̈ / (omega² - omega')            (13), the VRP
//   r     = c - F_ext / (m (omega² - omega'))    (15), the eCMP
// omega' (omega's rate) comes from the caller: a time series gives it, one
// instant does not.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "suitsim/model.h"
#include "suitsim/state.h"
#include "suitsim/core/balance_points.h"
#include "suitsim/core/support_polygon.h"

namespace suitsim {

/// The centroidal state of the model's free particles. Mass 0 (and every
/// vector 0) when every particle is fixed.
Centroidal centroidal(const Model& model, const State& state);

/// The centre of pressure of the ground's forces (world point on the ground
/// plane): the point about which their moment has no component along the
/// plane (the ZMP of the contact forces). Contact points a little below the
/// plane, and the friction forces acting there, are accounted for exactly.
/// Returns false (and leaves *cop) when the ground pushes on no contact.
bool centreOfPressure(const Model& model, const State& state, Vec3* cop);

/// The support polygon: the convex hull of the contacts the ground pushes
/// on (normal force > 0), in the ground's coordinates (tangent_u · p,
/// tangent_v · p). `scratch` is a buffer; with capacity for numContacts()
/// points (and the polygon's for twice that) it allocates nothing. Empty
/// without a ground or without support.
void supportPolygon(const Model& model, const State& state, std::vector<Eigen::Vector2d>& scratch,
                    SupportPolygon& polygon);

/// The footprint: the convex hull of every contact of the bodies that touch
/// the ground (a body with at least one contact the ground pushes on), in
/// ground coordinates. A foot rolling onto its toes keeps its whole sole in
/// the footprint, where the support polygon shrinks to the toes: the region
/// a balance controller steers back into. Buffers as for supportPolygon.
void footprintPolygon(const Model& model, const State& state, std::vector<Eigen::Vector2d>& scratch,
                      SupportPolygon& polygon);

/// Ground coordinates of a world point (its projection on the ground).
Eigen::Vector2d groundCoordinates(const GroundModel& ground, const Vec3& p);

/// The balance points of a trajectory sampled in time order: keeps omega's
/// previous value and gives (11)-(15) with omega' as the backward difference
/// over successive calls (0 at the first, and after time went back: a reset).
/// Every point is NaN without a ground, without free mass, or where omega is
/// undefined. Shared by the Recorder's channels, the balance assist and the
/// viewer, so all three show the same points.
class BalanceTracker {
 public:
  BalancePoints update(const Model& model, const Centroidal& c, double time);

 private:
  double previous_time_ = 0.0, previous_omega_ = 0.0;
  bool has_previous_ = false;
};

}  // namespace suitsim
