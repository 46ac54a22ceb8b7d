#include "camera.h"

#include <algorithm>
#include <cmath>

namespace suitsim::viewer {

namespace {
constexpr float kDegToRad = 3.14159265358979f / 180.0f;
}

void OrbitCamera::frame(Vec3f centre, float radius, float azimuth_deg, float elevation_deg) {
  scene_radius_ = std::max(radius, 1e-3f);
  home_target_ = centre;
  home_azimuth_deg_ = azimuth_deg;
  home_elevation_deg_ = elevation_deg;
  // The distance at which the sphere just fits the vertical field of view,
  // with a margin so it does not touch the window's edges.
  home_distance_ = 1.15f * scene_radius_ / std::sin(0.5f * kFovyDeg * kDegToRad);
  reset();
}

void OrbitCamera::setHome(float azimuth_deg, float elevation_deg, float distance) {
  home_azimuth_deg_ = azimuth_deg;
  home_elevation_deg_ = elevation_deg;
  if (distance > 0.0f) home_distance_ = distance;
  reset();
}

void OrbitCamera::reset() {
  target_ = home_target_;
  azimuth_deg_ = home_azimuth_deg_;
  elevation_deg_ = home_elevation_deg_;
  distance_ = home_distance_;
}

void OrbitCamera::orbit(float dx, float dy) {
  constexpr float kDegPerPixel = 0.3f;
  azimuth_deg_ = std::fmod(azimuth_deg_ - kDegPerPixel * dx, 360.0f);
  // Short of the poles: at +-90 the view's up vector would be parallel to z.
  elevation_deg_ = std::clamp(elevation_deg_ + kDegPerPixel * dy, -89.0f, 89.0f);
}

void OrbitCamera::pan(float dx, float dy, int viewport_height) {
  const float metres_per_pixel =
      2.0f * distance_ * std::tan(0.5f * kFovyDeg * kDegToRad) / static_cast<float>(std::max(viewport_height, 1));
  const Vec3f forward = normalized(target_ - eye());
  const Vec3f right = normalized(cross(forward, {0.0f, 0.0f, 1.0f}));
  const Vec3f up = cross(right, forward);
  target_ = target_ - (metres_per_pixel * dx) * right + (metres_per_pixel * dy) * up;
}

void OrbitCamera::zoom(float steps) {
  distance_ = std::clamp(distance_ * std::pow(0.9f, steps), 0.02f * scene_radius_, 50.0f * scene_radius_);
}

Vec3f OrbitCamera::eye() const {
  const float az = azimuth_deg_ * kDegToRad, el = elevation_deg_ * kDegToRad;
  return target_ + distance_ * Vec3f{std::cos(el) * std::cos(az), std::cos(el) * std::sin(az), std::sin(el)};
}

Mat4 OrbitCamera::view() const { return lookAt(eye(), target_, {0.0f, 0.0f, 1.0f}); }

Mat4 OrbitCamera::projection(float aspect) const {
  // Near and far follow the distance so that depth precision stays where the
  // scene is, however far the user zooms.
  const float z_near = std::max(0.01f * distance_, 1e-3f);
  const float z_far = distance_ + 60.0f * scene_radius_ + 50.0f;
  return perspective(kFovyDeg * kDegToRad, aspect, z_near, z_far);
}

}  // namespace suitsim::viewer
