// The one rotation convention (URDF fixed-axis roll, pitch, yaw) and the
// inertia conversions, including the gimbal lock where roll and yaw share
// one axis.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <numbers>

#include "suitsim/core/inertia.h"
#include "suitsim/core/rotation.h"

namespace suitsim {
namespace {

constexpr double kPi = std::numbers::pi;

TEST(Rotation, RpyIsRollThenPitchThenYawAboutTheFixedAxes) {
  const double r = 0.3, p = -0.7, y = 1.9;
  // Closed form of Rz(y) Ry(p) Rx(r).
  const double cr = std::cos(r), sr = std::sin(r), cp = std::cos(p), sp = std::sin(p), cy = std::cos(y),
               sy = std::sin(y);
  Eigen::Matrix3d expected;
  expected << cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr, sy * cp, sy * sp * sr + cy * cr,
      sy * sp * cr - cy * sr, -sp, cp * sr, cp * cr;
  EXPECT_LT((rotationFromRpy(Vec3{r, p, y}) - expected).norm(), 1e-15);
  EXPECT_LT((rotationFromRpy(r, p, y) - expected).norm(), 1e-15);
  // A vector along x rolled does not move; along z, yawed, does not move.
  EXPECT_LT((rotationFromRpy(0.8, 0.0, 0.0) * Eigen::Vector3d::UnitX() - Eigen::Vector3d::UnitX()).norm(), 1e-15);
  EXPECT_LT((rotationFromRpy(0.0, 0.0, 0.8) * Eigen::Vector3d::UnitZ() - Eigen::Vector3d::UnitZ()).norm(), 1e-15);
}

TEST(Rotation, RpyOfAMatrixGivesItBackAwayFromAndAtTheGimbalLock) {
  for (double r : {-2.5, -0.4, 0.0, 1.1, 3.0}) {
    for (double p : {-1.2, -0.1, 0.0, 0.9, 1.5}) {
      for (double y : {-3.0, -1.0, 0.0, 0.5, 2.2}) {
        const Eigen::Matrix3d R = rotationFromRpy(r, p, y);
        const Vec3 rpy = rpyFromRotation(R);
        EXPECT_NEAR(rpy[0], r, 1e-9);
        EXPECT_NEAR(rpy[1], p, 1e-9);
        EXPECT_NEAR(rpy[2], y, 1e-9);
      }
    }
  }
  // At pitch = +-pi/2 only yaw - roll (pitch up) or yaw + roll (pitch down)
  // is defined: roll comes back 0, yaw carries the angle, the matrix is kept.
  for (double sign : {1.0, -1.0}) {
    const double r = 0.4, y = -0.9;
    const Eigen::Matrix3d R = rotationFromRpy(r, sign * kPi / 2.0, y);
    const Vec3 rpy = rpyFromRotation(R);
    EXPECT_EQ(rpy[0], 0.0);
    EXPECT_NEAR(rpy[1], sign * kPi / 2.0, 1e-7);
    EXPECT_NEAR(rpy[2], sign > 0.0 ? y - r : y + r, 1e-9);
    EXPECT_LT((rotationFromRpy(rpy) - R).norm(), 1e-9);
  }
}

TEST(Inertia, SixNumbersAndTheTensorAndItsRotation) {
  const std::array<double, 6> i{0.5, 0.7, 0.9, 0.01, -0.02, 0.03};
  const Eigen::Matrix3d I = inertiaMatrix(i);
  EXPECT_EQ(I(0, 1), 0.01);
  EXPECT_EQ(I(1, 0), 0.01);
  EXPECT_EQ(I(0, 2), -0.02);
  EXPECT_EQ(I(2, 1), 0.03);
  EXPECT_EQ(inertiaVector(I), i);
  const Eigen::Matrix3d R = rotationFromRpy(0.2, -0.5, 1.3);
  const std::array<double, 6> rotated = rotateInertia(i, R);
  const Eigen::Matrix3d expected = R * I * R.transpose();
  EXPECT_LT((inertiaMatrix(rotated) - expected).norm(), 1e-15);
  // The trace is invariant.
  EXPECT_NEAR(rotated[0] + rotated[1] + rotated[2], 2.1, 1e-15);
}

}  // namespace
}  // namespace suitsim
