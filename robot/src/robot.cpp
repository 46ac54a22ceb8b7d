#include "suitsim/robot/robot.h"

#include <algorithm>
#include <stdexcept>

namespace suitsim {

const char* jointTypeName(JointType type) {
  switch (type) {
    case JointType::kRevolute: return "revolute";
    case JointType::kContinuous: return "continuous";
    case JointType::kPrismatic: return "prismatic";
    case JointType::kFixed: return "fixed";
    case JointType::kFloating: return "floating";
    case JointType::kPlanar: return "planar";
  }
  return "unknown";
}

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

int RobotDescription::mimicLeader(int j) const {
  const RobotJoint& joint = joints[j];
  if (joint.mimic.joint.empty()) return -1;
  if (joint.type != JointType::kRevolute && joint.type != JointType::kContinuous &&
      joint.type != JointType::kPrismatic) {
    return -1;
  }
  return findJoint(joint.mimic.joint);
}

void orderTree(RobotDescription& robot) {
  const int nl = static_cast<int>(robot.links.size());
  const int nj = static_cast<int>(robot.joints.size());
  std::vector<int> parent_joint(nl, -1);
  std::vector<std::vector<int>> children(nl);
  for (int j = 0; j < nj; ++j) {
    const RobotJoint& joint = robot.joints[j];
    if (joint.parent_link < 0 || joint.parent_link >= nl || joint.child_link < 0 || joint.child_link >= nl) {
      throw std::invalid_argument("joint '" + joint.name + "' names a link that does not exist");
    }
    if (joint.parent_link == joint.child_link) {
      throw std::invalid_argument("joint '" + joint.name + "' joins link '" + robot.links[joint.child_link].name +
                                  "' to itself");
    }
    if (parent_joint[joint.child_link] >= 0) {
      throw std::invalid_argument("link '" + robot.links[joint.child_link].name + "' is the child of two joints ('" +
                                  robot.joints[parent_joint[joint.child_link]].name + "' and '" + joint.name + "')");
    }
    parent_joint[joint.child_link] = j;
    children[joint.parent_link].push_back(j);
  }
  int root = -1;
  for (int l = 0; l < nl; ++l) {
    if (parent_joint[l] >= 0) continue;
    if (root >= 0) {
      throw std::invalid_argument("links '" + robot.links[root].name + "' and '" + robot.links[l].name +
                                  "' are both roots: a robot is one tree");
    }
    root = l;
  }
  if (root < 0) throw std::invalid_argument("every link has a parent: the joints form a cycle");
  // Depth first from the root, children in joint order.
  std::vector<int> link_order{root}, joint_order;
  std::vector<int> stack(children[root].rbegin(), children[root].rend());
  while (!stack.empty()) {
    const int j = stack.back();
    stack.pop_back();
    joint_order.push_back(j);
    const int child = robot.joints[j].child_link;
    link_order.push_back(child);
    stack.insert(stack.end(), children[child].rbegin(), children[child].rend());
  }
  if (static_cast<int>(link_order.size()) != nl) {
    for (int l = 0; l < nl; ++l) {
      if (std::find(link_order.begin(), link_order.end(), l) == link_order.end()) {
        throw std::invalid_argument("link '" + robot.links[l].name + "' is not connected to the root '" +
                                    robot.links[root].name + "' (a cycle)");
      }
    }
  }
  std::vector<int> new_link(nl);
  for (int k = 0; k < nl; ++k) new_link[link_order[k]] = k;
  RobotDescription out = robot;
  out.links.clear();
  out.joints.clear();
  for (int l : link_order) out.links.push_back(robot.links[l]);
  for (int j : joint_order) {
    RobotJoint joint = robot.joints[j];
    joint.parent_link = new_link[joint.parent_link];
    joint.child_link = new_link[joint.child_link];
    out.joints.push_back(joint);
  }
  for (std::size_t k = 0; k < out.links.size(); ++k) out.links[k].parent_joint = -1;
  for (std::size_t j = 0; j < out.joints.size(); ++j) out.links[out.joints[j].child_link].parent_joint = static_cast<int>(j);
  out.root_link = 0;
  robot = std::move(out);
}

}  // namespace suitsim
