// Single-precision vectors and 4 x 4 matrices for drawing. The engine works
// in double; the GPU wants float, and a few millimetres of a 2 m scene are
// far above float's resolution, so the viewer converts at the boundary.
#pragma once

#include <array>
#include <cmath>

#include "suitsim/model.h"

namespace suitsim::viewer {

struct Vec3f {
  float x = 0.0f, y = 0.0f, z = 0.0f;
};

inline Vec3f toVec3f(const Vec3& v) {
  return {static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2])};
}
inline Vec3f operator+(Vec3f a, Vec3f b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline Vec3f operator-(Vec3f a, Vec3f b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline Vec3f operator*(float s, Vec3f a) { return {s * a.x, s * a.y, s * a.z}; }
inline float dot(Vec3f a, Vec3f b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline Vec3f cross(Vec3f a, Vec3f b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
inline float norm(Vec3f a) { return std::sqrt(dot(a, a)); }
inline Vec3f normalized(Vec3f a) {
  const float n = norm(a);
  return n > 0.0f ? (1.0f / n) * a : Vec3f{0.0f, 0.0f, 1.0f};
}
/// Any unit vector perpendicular to the unit vector `a`.
inline Vec3f anyPerpendicular(Vec3f a) {
  // Cross with the axis a is least aligned with, so the result never degenerates.
  const Vec3f helper = std::fabs(a.x) < 0.6f ? Vec3f{1.0f, 0.0f, 0.0f} : Vec3f{0.0f, 1.0f, 0.0f};
  return normalized(cross(a, helper));
}

/// Column-major, as OpenGL reads it: m[4 * column + row].
struct Mat4 {
  std::array<float, 16> m{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  float& at(int row, int col) { return m[4 * col + row]; }
  float at(int row, int col) const { return m[4 * col + row]; }
};

inline Mat4 operator*(const Mat4& a, const Mat4& b) {
  Mat4 r;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      float s = 0.0f;
      for (int k = 0; k < 4; ++k) s += a.at(i, k) * b.at(k, j);
      r.at(i, j) = s;
    }
  }
  return r;
}

/// The affine map x -> c0 x.x + c1 x.y + c2 x.z + t.
inline Mat4 affine(Vec3f c0, Vec3f c1, Vec3f c2, Vec3f t) {
  Mat4 r;
  const Vec3f cols[4] = {c0, c1, c2, t};
  for (int c = 0; c < 4; ++c) {
    r.at(0, c) = cols[c].x;
    r.at(1, c) = cols[c].y;
    r.at(2, c) = cols[c].z;
  }
  return r;
}

inline Mat4 perspective(float fovy_rad, float aspect, float z_near, float z_far) {
  Mat4 r;
  const float f = 1.0f / std::tan(0.5f * fovy_rad);
  r.m.fill(0.0f);
  r.at(0, 0) = f / aspect;
  r.at(1, 1) = f;
  r.at(2, 2) = (z_far + z_near) / (z_near - z_far);
  r.at(2, 3) = 2.0f * z_far * z_near / (z_near - z_far);
  r.at(3, 2) = -1.0f;
  return r;
}

inline Mat4 lookAt(Vec3f eye, Vec3f target, Vec3f up) {
  const Vec3f f = normalized(target - eye);
  const Vec3f s = normalized(cross(f, up));
  const Vec3f u = cross(s, f);
  Mat4 r;
  r.at(0, 0) = s.x, r.at(0, 1) = s.y, r.at(0, 2) = s.z, r.at(0, 3) = -dot(s, eye);
  r.at(1, 0) = u.x, r.at(1, 1) = u.y, r.at(1, 2) = u.z, r.at(1, 3) = -dot(u, eye);
  r.at(2, 0) = -f.x, r.at(2, 1) = -f.y, r.at(2, 2) = -f.z, r.at(2, 3) = dot(f, eye);
  return r;
}

/// An RGBA colour, components 0..1.
struct Colour {
  float r = 1.0f, g = 1.0f, b = 1.0f, a = 1.0f;
};

}  // namespace suitsim::viewer
