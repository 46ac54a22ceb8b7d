// Small dense math for the hinge solver (hinges.cpp): a scalar 3-vector
// that gives Eigen's bits, and six values padded to one vector of eight.
#pragma once

#include <cmath>
#include <cstring>

namespace suitsim::detail {

// A plain 3-vector for the per-hinge geometry. Eigen's Vector3d came out
// as two lanes plus one, and the shuffles joining them cost more than the
// arithmetic in these short chains; this one is scalar code the compiler
// schedules freely. Every operation is the one Eigen did, in Eigen's order
// (dot and squared norm sum x, y, z left to right; division divides), so
// the results are the same bits as with Eigen.
struct V3 {
  double v[3];
  V3() = default;
  V3(double x, double y, double z) : v{x, y, z} {}
  static V3 Zero() { return V3(0.0, 0.0, 0.0); }
  double x() const { return v[0]; }
  double y() const { return v[1]; }
  double z() const { return v[2]; }
  double operator[](int d) const { return v[d]; }
  double& operator[](int d) { return v[d]; }
  double dot(const V3& o) const { return v[0] * o.v[0] + v[1] * o.v[1] + v[2] * o.v[2]; }
  double squaredNorm() const { return dot(*this); }
  double norm() const { return std::sqrt(squaredNorm()); }
  V3 cross(const V3& o) const {
    return V3(v[1] * o.v[2] - v[2] * o.v[1], v[2] * o.v[0] - v[0] * o.v[2], v[0] * o.v[1] - v[1] * o.v[0]);
  }
};
inline V3 operator+(const V3& a, const V3& b) { return V3(a[0] + b[0], a[1] + b[1], a[2] + b[2]); }
inline V3 operator-(const V3& a, const V3& b) { return V3(a[0] - b[0], a[1] - b[1], a[2] - b[2]); }
inline V3 operator-(const V3& a) { return V3(-a[0], -a[1], -a[2]); }
inline V3 operator*(double s, const V3& a) { return V3(s * a[0], s * a[1], s * a[2]); }
inline V3 operator*(const V3& a, double s) { return V3(a[0] * s, a[1] * s, a[2] * s); }
inline V3 operator/(const V3& a, double s) { return V3(a[0] / s, a[1] / s, a[2] / s); }

inline V3 vec(const double* a) { return V3(a[0], a[1], a[2]); }
inline void put(const V3& a, double* out) {
  out[0] = a.x();
  out[1] = a.y();
  out[2] = a.z();
}

// A 3 x 3 row-major matrix times a vector.
inline V3 times(const double* a, const V3& v) { return V3(vec(a).dot(v), vec(a + 3).dot(v), vec(a + 6).dot(v)); }

constexpr int kStride = 8;  // a block row: six values, two zeros

// Six values padded to kStride doubles (a block row, a right-hand side, a
// particle's position and velocity): one vector of the GCC/Clang vector
// extension, with AVX-512 one register, with AVX2 two.
typedef double Row __attribute__((vector_size(kStride * sizeof(double))));

// Always inlined: a Row returned by value is passed in a register where
// AVX-512 is on and in memory where it is not, so an out-of-line copy would
// not be callable from both the baseline and the cloned functions
// (isa_clones.h). Inlined everywhere, the difference GCC notes (-Wpsabi,
// silenced in engine/CMakeLists.txt) does not arise.
__attribute__((always_inline)) inline Row loadRow(const double* p) {
  Row r;
  std::memcpy(&r, p, sizeof r);
  return r;
}
inline void storeRow(double* p, const Row& r) { std::memcpy(p, &r, sizeof r); }

}  // namespace suitsim::detail
