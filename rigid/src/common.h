// Entry checks and the joint-rotation pass shared by the algorithm sources.
#pragma once

#include <stdexcept>
#include <string>

#include "spatial.h"
#include "suitsim/rigid/rigid_model.h"

namespace suitsim::eval::detail {

[[noreturn]] inline void sizeError(const char* function, const char* argument, long got,
                                   long expected) {
  throw std::invalid_argument(std::string(function) + ": " + argument + " has size " +
                              std::to_string(got) + ", expected " + std::to_string(expected));
}

inline void checkConfiguration(const char* function, const RigidModel& model,
                               const Configuration& q) {
  if (q.joints.size() != model.num_joints) {
    sizeError(function, "q.joints", q.joints.size(), model.num_joints);
  }
}

inline void checkVector(const char* function, const char* argument, const RigidModel& model,
                        const VectorRef& x) {
  if (x.size() != model.nv) sizeError(function, argument, x.size(), model.nv);
}

/// body_R_parent[b] = (joint frame in parent) · Rot(axis, θ): URDF's child
/// frame is the joint frame turned by θ about the axis.
inline void updateJointRotations(const RigidModel& model, RigidData& data, const Configuration& q) {
  data.body_R_parent[0].setIdentity();
  for (int b = 1; b < model.num_bodies; ++b) {
    data.body_R_parent[b] = model.body_joint_R[b] * axisAngle(model.body_axis[b], q.joints[b - 1]);
  }
}

}  // namespace suitsim::eval::detail
