#include "suitsim/robot.h"

namespace suitsim {

// Linear searches: descriptions have tens of links and these lookups happen
// at set-up time, so a name index would only be something to keep in sync.
int RobotDescription::findLink(const std::string& link_name) const {
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (links[i].name == link_name) return static_cast<int>(i);
  }
  return -1;
}

int RobotDescription::findJoint(const std::string& joint_name) const {
  for (std::size_t i = 0; i < joints.size(); ++i) {
    if (joints[i].name == joint_name) return static_cast<int>(i);
  }
  return -1;
}

double RobotDescription::totalMass() const {
  double mass = 0.0;
  for (const RobotLink& link : links) mass += link.inertial.mass;
  return mass;
}

std::vector<int> RobotDescription::movableJoints() const {
  // Index order is tree order for descriptions from the URDF reader.
  std::vector<int> movable;
  for (std::size_t i = 0; i < joints.size(); ++i) {
    const JointType type = joints[i].type;
    if (type == JointType::kRevolute || type == JointType::kContinuous || type == JointType::kPrismatic) {
      movable.push_back(static_cast<int>(i));
    }
  }
  return movable;
}

}  // namespace suitsim
