// Rotations in the one convention suitsim uses everywhere: URDF's fixed-axis
// roll, pitch, yaw (roll about x, then pitch about y, then yaw about z, all
// about the fixed axes), R = Rz(yaw) Ry(pitch) Rx(roll).
#pragma once

#include <Eigen/Core>

#include "suitsim/core/vec3.h"

namespace suitsim {

/// R = Rz(yaw) Ry(pitch) Rx(roll), from {roll, pitch, yaw} (rad).
Eigen::Matrix3d rotationFromRpy(const Vec3& rpy);
Eigen::Matrix3d rotationFromRpy(double roll, double pitch, double yaw);

/// The {roll, pitch, yaw} of a rotation matrix, pitch in [-pi/2, pi/2].
/// At gimbal lock (|R(2,0)| within 1e-12 of 1, |pitch| = pi/2) roll and
/// yaw turn about one axis and only their sum (pitch = pi/2: yaw - roll;
/// pitch = -pi/2: yaw + roll) is defined: the whole angle is put in yaw and
/// roll is 0. rotationFromRpy(rpyFromRotation(R)) gives R back either way.
Vec3 rpyFromRotation(const Eigen::Matrix3d& R);

}  // namespace suitsim
