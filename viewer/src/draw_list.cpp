#include "draw_list.h"

#include <algorithm>

namespace suitsim::viewer {

namespace {

// The unit cylinder or cone (z from 0 to 1, radius 1) stretched from a to b.
Mat4 alongSegment(Vec3f a, Vec3f b, float radius) {
  const Vec3f axis = b - a;
  const Vec3f dir = normalized(axis);
  const Vec3f u = anyPerpendicular(dir);
  const Vec3f v = cross(dir, u);
  return affine(radius * u, radius * v, axis, a);
}

}  // namespace

void DrawList::clear() {
  spheres.clear();
  cylinders.clear();
  cones.clear();
  boxes.clear();
  lines.clear();
}

void DrawList::sphere(Vec3f centre, float radius, Colour colour) {
  spheres.push_back({affine({radius, 0, 0}, {0, radius, 0}, {0, 0, radius}, centre), colour});
}

void DrawList::cylinder(Vec3f a, Vec3f b, float radius, Colour colour) {
  // A zero-length rod would give a singular matrix (and NaN normals).
  if (norm(b - a) < 1e-6f) return;
  cylinders.push_back({alongSegment(a, b, radius), colour});
}

void DrawList::capsule(Vec3f a, Vec3f b, float radius, Colour colour) {
  sphere(a, radius, colour);
  sphere(b, radius, colour);
  cylinder(a, b, radius, colour);
}

void DrawList::arrow(Vec3f tail, Vec3f head, float radius, Colour colour) {
  const float length = norm(head - tail);
  if (length < 1e-6f) return;
  const Vec3f dir = (1.0f / length) * (head - tail);
  // The head keeps its shape for long arrows and shrinks for short ones.
  const float head_length = std::min(6.0f * radius, 0.4f * length);
  const Vec3f neck = head - head_length * dir;
  cylinder(tail, neck, radius, colour);
  cones.push_back({alongSegment(neck, head, 2.2f * radius), colour});
}

void DrawList::box(Vec3f centre, Vec3f half_x, Vec3f half_y, Vec3f half_z, Colour colour) {
  boxes.push_back({affine(half_x, half_y, half_z, centre), colour});
}

void DrawList::disc(Vec3f centre, Vec3f normal, float radius, float thickness, Colour colour) {
  const Vec3f n = normalized(normal);
  cylinder(centre - (0.5f * thickness) * n, centre + (0.5f * thickness) * n, radius, colour);
}

void DrawList::line(Vec3f a, Vec3f b, Colour colour) {
  lines.push_back({a, colour});
  lines.push_back({b, colour});
}

}  // namespace suitsim::viewer
