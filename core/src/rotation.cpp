#include "suitsim/core/rotation.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

namespace suitsim {

Eigen::Matrix3d rotationFromRpy(double roll, double pitch, double yaw) {
  return (Eigen::AngleAxisd(yaw, Eigen::Vector3d::UnitZ()) * Eigen::AngleAxisd(pitch, Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(roll, Eigen::Vector3d::UnitX()))
      .toRotationMatrix();
}

Eigen::Matrix3d rotationFromRpy(const Vec3& rpy) { return rotationFromRpy(rpy[0], rpy[1], rpy[2]); }

Vec3 rpyFromRotation(const Eigen::Matrix3d& R) {
  // R(2,0) = -sin(pitch); R(2,1) = cos(pitch) sin(roll), R(2,2) = cos(pitch) cos(roll);
  // R(1,0) = sin(yaw) cos(pitch), R(0,0) = cos(yaw) cos(pitch).
  // atan2 of the sine and the cosine of the pitch, well conditioned at
  // +-pi/2 where asin(-R(2,0)) would lose half the digits.
  const double cos_pitch = std::hypot(R(0, 0), R(1, 0));
  const double pitch = std::atan2(-R(2, 0), cos_pitch);
  if (std::abs(R(2, 0)) < 1.0 - 1e-12) {
    return {std::atan2(R(2, 1), R(2, 2)), pitch, std::atan2(R(1, 0), R(0, 0))};
  }
  // Gimbal lock, roll = 0: then R(0,1) = -sin(yaw) and R(1,1) = cos(yaw)
  // for either sign of the pitch.
  return {0.0, pitch, std::atan2(-R(0, 1), R(1, 1))};
}

}  // namespace suitsim
