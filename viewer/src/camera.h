// The orbit camera: it circles a target point at a distance, z up (the
// engine's gravity points down z in every shipped scene). Left drag orbits,
// right or middle drag pans, the wheel zooms; reset returns to the framing
// chosen for the scene.
#pragma once

#include "math3d.h"

namespace suitsim::viewer {

class OrbitCamera {
 public:
  /// Frames a sphere (centre, radius in m) from the given direction and
  /// makes that the pose reset() returns to.
  void frame(Vec3f centre, float radius, float azimuth_deg, float elevation_deg);
  /// Overrides the home pose's direction and distance (m, > 0).
  void setHome(float azimuth_deg, float elevation_deg, float distance);
  void reset();

  /// Mouse drag by (dx, dy) pixels.
  void orbit(float dx, float dy);
  /// Moves the target in the view plane so the scene follows the cursor;
  /// `viewport_height` (pixels) sets the metres per pixel at the target.
  void pan(float dx, float dy, int viewport_height);
  /// Wheel steps; positive comes closer.
  void zoom(float steps);
  /// Moves the target (and so the eye) by d (m): following a moving scene.
  void translate(Vec3f d) { target_ = target_ + d; }

  Vec3f eye() const;
  Vec3f target() const { return target_; }
  Mat4 view() const;
  Mat4 projection(float aspect) const;
  float azimuthDeg() const { return azimuth_deg_; }
  float elevationDeg() const { return elevation_deg_; }
  float distance() const { return distance_; }

 private:
  static constexpr float kFovyDeg = 40.0f;
  Vec3f target_{0.0f, 0.0f, 0.5f};
  float azimuth_deg_ = 215.0f, elevation_deg_ = 15.0f, distance_ = 3.0f;
  Vec3f home_target_{0.0f, 0.0f, 0.5f};
  float home_azimuth_deg_ = 215.0f, home_elevation_deg_ = 15.0f, home_distance_ = 3.0f;
  float scene_radius_ = 1.0f;  // sets the clip planes
};

}  // namespace suitsim::viewer
