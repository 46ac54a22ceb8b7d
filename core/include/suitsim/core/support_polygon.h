// Convex polygons in a ground plane's 2-D coordinates: the support polygon
// of a robot standing on its contacts, and the signed distance of a point
// (the ZMP, the DCM's ground projection) to its edge. Shared by the engine's
// balance channels (centroidal.h, from the simulator's contacts) and the
// evaluator's (eval/balance.h, from a model and the sensor streams).
#pragma once

#include <vector>

#include <Eigen/Core>

namespace suitsim {

/// A convex polygon in ground coordinates, vertices counter-clockwise
/// (about the normal), no three collinear. One vertex: a point; two: a segment.
struct SupportPolygon {
  std::vector<Eigen::Vector2d> vertices;  ///< (m)
  bool empty() const { return vertices.empty(); }
};

/// Convex hull of `points` (Andrew's monotone chain), counter-clockwise.
SupportPolygon convexHull(std::vector<Eigen::Vector2d> points);

/// The same hull written into `hull`, sorting `points` in place: allocates
/// nothing once `hull.vertices` has capacity for 2 points.size() vertices
/// (for callers that sample every step, like the Recorder).
void convexHull(std::vector<Eigen::Vector2d>& points, SupportPolygon& hull);

/// Signed distance from `point` to the polygon's edge (m): positive inside,
/// negative outside (minus the distance to the polygon). A point or a segment
/// has no inside: the result is minus the distance to it. Throws
/// std::invalid_argument for an empty polygon.
double polygonMargin(const SupportPolygon& polygon, const Eigen::Vector2d& point);

/// Area centroid of the polygon (the middle of a segment, the point itself).
Eigen::Vector2d polygonCentroid(const SupportPolygon& polygon);

/// The polygon shrunk by `margin` (m): the points at least `margin` inside
/// every edge (for a convex polygon, the points whose polygonMargin >=
/// margin). Empty when the polygon is too small (or is a point or a segment
/// and margin > 0).
SupportPolygon shrinkPolygon(const SupportPolygon& polygon, double margin);

/// The same, written into `out` using `work` as a buffer: allocates nothing
/// once both have capacity for 4 polygon.vertices.size() points.
void shrinkPolygon(const SupportPolygon& polygon, double margin, std::vector<Eigen::Vector2d>& work,
                   SupportPolygon& out);

/// The point of the polygon nearest `point` (the point itself when inside).
Eigen::Vector2d closestPointInPolygon(const SupportPolygon& polygon, const Eigen::Vector2d& point);

}  // namespace suitsim
