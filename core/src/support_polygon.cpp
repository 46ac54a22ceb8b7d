// Convex polygons in ground coordinates (support_polygon.h).
#include "suitsim/core/support_polygon.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>

namespace suitsim {

using Eigen::Vector2d;

namespace {

double cross2(const Vector2d& a, const Vector2d& b) { return a.x() * b.y() - a.y() * b.x(); }

// Distance from p to the segment [a, b].
double segmentDistance(const Vector2d& a, const Vector2d& b, const Vector2d& p, Vector2d* closest) {
  const Vector2d d = b - a;
  const double len2 = d.squaredNorm();
  const double s = len2 > 0.0 ? std::clamp((p - a).dot(d) / len2, 0.0, 1.0) : 0.0;
  *closest = a + s * d;
  return (p - *closest).norm();
}

// Nearest boundary point of a polygon (any vertex count >= 1) and its distance.
double boundaryDistance(const SupportPolygon& polygon, const Vector2d& p, Vector2d* closest) {
  const auto& vs = polygon.vertices;
  const std::size_t n = vs.size();
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < n; ++k) {
    Vector2d c;
    const double d = segmentDistance(vs[k], vs[(k + 1) % n], p, &c);
    if (d < best) {
      best = d;
      *closest = c;
    }
  }
  return best;
}

// Signed distance to the line of edge k: positive on the inner (left) side.
double edgeDistance(const SupportPolygon& polygon, std::size_t k, const Vector2d& p) {
  const auto& vs = polygon.vertices;
  const Vector2d& a = vs[k];
  const Vector2d& b = vs[(k + 1) % vs.size()];
  return cross2(b - a, p - a) / (b - a).norm();
}

}  // namespace

SupportPolygon convexHull(std::vector<Vector2d> points) {
  SupportPolygon hull;
  convexHull(points, hull);
  return hull;
}

void convexHull(std::vector<Vector2d>& points, SupportPolygon& hull) {
  std::sort(points.begin(), points.end(),
            [](const Vector2d& a, const Vector2d& b) { return a.x() < b.x() || (a.x() == b.x() && a.y() < b.y()); });
  points.erase(std::unique(points.begin(), points.end()), points.end());
  std::vector<Vector2d>& h = hull.vertices;
  if (points.size() < 3) {
    h.assign(points.begin(), points.end());
    return;
  }
  // Lower then upper chain, Andrew's monotone chain in exact arithmetic.
  h.resize(2 * points.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    while (k >= 2 && cross2(h[k - 1] - h[k - 2], points[i] - h[k - 2]) <= 0.0) --k;
    h[k++] = points[i];
  }
  for (std::size_t i = points.size() - 1, lower = k + 1; i-- > 0;) {
    while (k >= lower && cross2(h[k - 1] - h[k - 2], points[i] - h[k - 2]) <= 0.0) --k;
    h[k++] = points[i];
  }
  h.resize(k - 1);
  // Then drop vertices within a nanometre of the line through their
  // neighbours: two soles' corners meant to be in line are so only to the
  // last bit, and such a vertex is no corner of the support.
  for (bool dropped = true; dropped && h.size() > 3;) {
    dropped = false;
    for (std::size_t i = 0; i < h.size() && h.size() > 3; ++i) {
      const Vector2d& prev = h[(i + h.size() - 1) % h.size()];
      const Vector2d& next = h[(i + 1) % h.size()];
      const Vector2d d = next - prev;
      if (std::abs(cross2(d, h[i] - prev)) <= 1e-9 * d.norm()) {
        h.erase(h.begin() + static_cast<std::ptrdiff_t>(i));
        dropped = true;
      }
    }
  }
}

double polygonMargin(const SupportPolygon& polygon, const Vector2d& point) {
  if (polygon.empty()) throw std::invalid_argument("polygonMargin: empty polygon");
  Vector2d closest;
  const double outside = boundaryDistance(polygon, point, &closest);
  if (polygon.vertices.size() < 3) return -outside;
  double inside = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < polygon.vertices.size(); ++k) inside = std::min(inside, edgeDistance(polygon, k, point));
  // Convex: inside every edge's half-plane is inside the polygon, and the
  // nearest edge line is then the nearest edge.
  return inside >= 0.0 ? inside : -outside;
}

Vector2d polygonCentroid(const SupportPolygon& polygon) {
  const auto& vs = polygon.vertices;
  if (vs.empty()) throw std::invalid_argument("polygonCentroid: empty polygon");
  if (vs.size() < 3) return vs.size() == 1 ? vs[0] : Vector2d(0.5 * (vs[0] + vs[1]));
  // Shoelace sums, relative to the first vertex for accuracy.
  double area2 = 0.0;
  Vector2d sum = Vector2d::Zero();
  for (std::size_t k = 1; k + 1 < vs.size(); ++k) {
    const Vector2d a = vs[k] - vs[0], b = vs[k + 1] - vs[0];
    const double w = cross2(a, b);
    area2 += w;
    sum += w * (a + b) / 3.0;
  }
  return vs[0] + sum / area2;
}

SupportPolygon shrinkPolygon(const SupportPolygon& polygon, double margin) {
  std::vector<Vector2d> work;
  SupportPolygon out;
  shrinkPolygon(polygon, margin, work, out);
  return out;
}

void shrinkPolygon(const SupportPolygon& polygon, double margin, std::vector<Vector2d>& work, SupportPolygon& out) {
  const std::size_t n = polygon.vertices.size();
  if (margin <= 0.0) {
    out.vertices.assign(polygon.vertices.begin(), polygon.vertices.end());
    return;
  }
  out.vertices.clear();
  if (n < 3) return;
  // Clip the polygon by each edge's half-plane moved inward by `margin`
  // (Sutherland-Hodgman): for a convex polygon the result is the set of
  // points at least `margin` from every edge line. `work` holds the current
  // clip, `out` the next; each edge adds at most one vertex.
  work.assign(polygon.vertices.begin(), polygon.vertices.end());
  for (std::size_t k = 0; k < n && !work.empty(); ++k) {
    std::vector<Vector2d>& next = out.vertices;
    next.clear();
    for (std::size_t i = 0; i < work.size(); ++i) {
      const Vector2d& p = work[i];
      const Vector2d& q = work[(i + 1) % work.size()];
      const double dp = edgeDistance(polygon, k, p) - margin, dq = edgeDistance(polygon, k, q) - margin;
      if (dp >= 0.0) next.push_back(p);
      if ((dp >= 0.0) != (dq >= 0.0)) next.push_back(p + dp / (dp - dq) * (q - p));
    }
    work.swap(next);
  }
  // The clip is convex by construction; the hull orders it and drops
  // repeated or collinear vertices.
  convexHull(work, out);
}

Vector2d closestPointInPolygon(const SupportPolygon& polygon, const Vector2d& point) {
  if (polygon.empty()) throw std::invalid_argument("closestPointInPolygon: empty polygon");
  if (polygon.vertices.size() >= 3 && polygonMargin(polygon, point) >= 0.0) return point;
  Vector2d closest;
  boundaryDistance(polygon, point, &closest);
  return closest;
}

}  // namespace suitsim
