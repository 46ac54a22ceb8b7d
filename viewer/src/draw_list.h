// What one frame shows, as shapes: filled by the scene drawing from the
// engine's state, consumed by the renderer. Keeping the two apart means the
// renderer knows nothing of the engine and the scene drawing nothing of GL.
#pragma once

#include <vector>

#include "math3d.h"
#include "meshes.h"

namespace suitsim::viewer {

struct LineVertex {
  Vec3f position;
  Colour colour;
};

/// The plane {p : normal . p = offset}, as the engine's GroundModel has it.
struct GroundPlane {
  bool visible = false;
  Vec3f normal{0.0f, 0.0f, 1.0f};  ///< unit
  Vec3f tangent_u{1.0f, 0.0f, 0.0f}, tangent_v{0.0f, 1.0f, 0.0f};
  float offset = 0.0f;             ///< (m)
  Vec3f centre{0.0f, 0.0f, 0.0f};  ///< where the checkerboard is centred, on the plane
  float extent = 10.0f;            ///< radius of the drawn part (m)
  float square = 0.25f;            ///< checker square (m)
};

class DrawList {
 public:
  void clear();
  void sphere(Vec3f centre, float radius, Colour colour);
  /// A solid round rod from a to b.
  void cylinder(Vec3f a, Vec3f b, float radius, Colour colour);
  /// A rod with round ends: how links are drawn between their joints.
  void capsule(Vec3f a, Vec3f b, float radius, Colour colour);
  /// A shaft and a cone head from `tail` to `head`.
  void arrow(Vec3f tail, Vec3f head, float radius, Colour colour);
  /// A box given its centre and three half-axis vectors (m).
  void box(Vec3f centre, Vec3f half_x, Vec3f half_y, Vec3f half_z, Colour colour);
  /// A flat disc of `radius` lying on the plane through `centre` with `normal`.
  void disc(Vec3f centre, Vec3f normal, float radius, float thickness, Colour colour);
  void line(Vec3f a, Vec3f b, Colour colour);

  std::vector<Instance> spheres, cylinders, cones, boxes;
  std::vector<LineVertex> lines;  ///< pairs
};

}  // namespace suitsim::viewer
