// The engine's 3-vector and its structure-of-arrays form, shared by every
// layer that describes or simulates a robot (SI units wherever used).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace suitsim {

using Vec3 = std::array<double, 3>;

/// Three coordinate arrays of equal length: x[i], y[i], z[i] belong to entity i.
struct Vec3Array {
  std::vector<double> x, y, z;
  void assign(std::size_t n, double value) {
    x.assign(n, value);
    y.assign(n, value);
    z.assign(n, value);
  }
  std::size_t size() const { return x.size(); }
  Vec3 get(std::size_t i) const { return {x[i], y[i], z[i]}; }
  void set(std::size_t i, const Vec3& v) {
    x[i] = v[0];
    y[i] = v[1];
    z[i] = v[2];
  }
};

}  // namespace suitsim
