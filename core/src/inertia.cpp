#include "suitsim/core/inertia.h"

namespace suitsim {

Eigen::Matrix3d inertiaMatrix(const std::array<double, 6>& i) {
  Eigen::Matrix3d I;
  I << i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2];
  return I;
}

std::array<double, 6> inertiaVector(const Eigen::Matrix3d& I) {
  return {I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2)};
}

std::array<double, 6> rotateInertia(const std::array<double, 6>& inertia, const Eigen::Matrix3d& R) {
  const Eigen::Matrix3d in = inertiaMatrix(inertia);
  Eigen::Matrix3d out;
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      double sum = 0.0;
      for (int k = 0; k < 3; ++k) {
        for (int l = 0; l < 3; ++l) sum += R(a, k) * in(k, l) * R(b, l);
      }
      out(a, b) = sum;
    }
  }
  // The two off-diagonal copies averaged: the result is exactly symmetric.
  return {out(0, 0), out(1, 1), out(2, 2), 0.5 * (out(0, 1) + out(1, 0)), 0.5 * (out(0, 2) + out(2, 0)),
          0.5 * (out(1, 2) + out(2, 1))};
}

}  // namespace suitsim
