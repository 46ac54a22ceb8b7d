// A rigid body's inertia tensor as URDF and the robot description store it,
// the six numbers {ixx, iyy, izz, ixy, ixz, iyz}, and as a matrix.
#pragma once

#include <array>

#include <Eigen/Core>

namespace suitsim {

/// The symmetric 3x3 tensor of {ixx, iyy, izz, ixy, ixz, iyz} (kg m^2).
Eigen::Matrix3d inertiaMatrix(const std::array<double, 6>& inertia);

/// {ixx, iyy, izz, ixy, ixz, iyz} of a (symmetric) tensor: the upper
/// triangle is read.
std::array<double, 6> inertiaVector(const Eigen::Matrix3d& I);

/// The tensor about the same point in other axes: R I R^T, R taking the
/// body's axes into the outer ones.
std::array<double, 6> rotateInertia(const std::array<double, 6>& inertia, const Eigen::Matrix3d& R);

}  // namespace suitsim
