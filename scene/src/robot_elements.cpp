// The attribute forms a <robot>'s elements share (robot_reading.h): point
// lists, joint lists and joint:value pairs, mimic followers' values, and
// files named relative to the scene.
#include "robot_reading.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "suitsim/core/text_input.h"

namespace suitsim::io {

using tinyxml2::XMLElement;

/// Points "x y z; x y z; ..." from attribute `attr` (empty items skipped).
std::vector<Vec3> pointList(const ElementReader& r, const char* attr) {
  std::vector<Vec3> points;
  std::stringstream ss(r.text(attr));
  std::string triple;
  while (std::getline(ss, triple, ';')) {
    const std::vector<std::string> v = words(triple);
    if (v.empty()) continue;
    Vec3 p{};
    if (v.size() != 3 || !parseNumber(v[0], &p[0]) || !parseNumber(v[1], &p[1]) || !parseNumber(v[2], &p[2])) {
      r.failAttribute(attr, "must be points 'x y z' separated by ';' (bad point '" + triple + "')");
    }
    points.push_back(p);
  }
  return points;
}

/// A joint of the robot named in attribute `attr`; it must be movable.
int movableJoint(const ElementReader& r, const char* attr, const RobotDescription& robot, const std::string& name) {
  const int j = robot.findJoint(name);
  if (j < 0) r.failAttribute(attr, "names no joint of the robot ('" + name + "')");
  const JointType t = robot.joints[j].type;
  if (t != JointType::kRevolute && t != JointType::kContinuous) {
    r.failAttribute(attr, "names joint '" + name + "', which does not move (fixed or frozen)");
  }
  return j;
}

/// A value given for a coupled <mimic> follower q_f must agree with its
/// coupling q_f = m q_l + c (URDF <mimic>) to within this, relative to the
/// larger of |given|, |m q_l|, |c| and 1 rad. m q_l + c in double is exact to
/// about 1e-16; a value written out with 10 significant digits is exact to
/// 5e-10: both agree. 1e-9 rad is far below any angle a joint resolves
/// (encoders: ~1e-4 rad), so a value outside it is a different pose.
constexpr double kFollowerTolerance = 1e-9;

bool agreesWithCoupling(double given, double scaled_leader, double offset) {
  const double scale = std::max({1.0, std::abs(given), std::abs(scaled_leader), std::abs(offset)});
  return std::abs(given - (scaled_leader + offset)) <= kFollowerTolerance * scale;
}

/// The text naming a contradiction between a follower's given value and its
/// coupling's, for the error messages.
std::string couplingConflict(const RobotDescription& robot, int j, const std::string& what, double given,
                             double leader_value) {
  const RobotJoint& f = robot.joints[j];
  const int leader = robot.mimicLeader(j);
  std::ostringstream out;
  out.precision(12);
  out << "names joint '" << f.name << "', which mimics '" << robot.joints[leader].name << "' (URDF <mimic>: "
      << f.name << " = " << f.mimic.multiplier << " * " << robot.joints[leader].name << " + " << f.mimic.offset
      << "); the " << what << " given, " << given << ", contradicts the coupling's "
      << f.mimic.multiplier * leader_value + f.mimic.offset << " (" << robot.joints[leader].name << " = "
      << leader_value << ") beyond the tolerance " << kFollowerTolerance << " (relative)";
  return out.str();
}

/// A coupled <mimic> follower has no motor and no motion of its own: a value
/// given for it is accepted (and left to the coupling) when it agrees with
/// its leader's, and an error naming both values otherwise. Returns whether
/// j is a coupled follower.
bool checkFollower(const ElementReader& r, const char* attr, const RobotDescription& robot, int j, double given,
                   double leader_value) {
  const int leader = robot.mimicLeader(j);
  if (leader < 0) return false;
  const RobotJoint& f = robot.joints[j];
  if (!agreesWithCoupling(given, f.mimic.multiplier * leader_value, f.mimic.offset)) {
    r.failAttribute(attr, couplingConflict(robot, j, "angle", given, leader_value));
  }
  return true;
}

/// The joints an element applies to: its `joints` list, or every movable one.
std::vector<int> jointList(const ElementReader& r, const RobotDescription& robot) {
  std::vector<int> out;
  if (r.has("joints")) {
    for (const std::string& name : words(r.text("joints"))) out.push_back(movableJoint(r, "joints", robot, name));
    if (out.empty()) r.failAttribute("joints", "lists no joint");
  } else {
    out = robot.movableJoints();
  }
  return out;
}

/// "NAME:value NAME:value ..." into (joint, value) pairs.
std::vector<std::pair<int, double>> jointValues(const ElementReader& r, const char* attr,
                                                const RobotDescription& robot) {
  std::vector<std::pair<int, double>> out;
  for (const std::string& item : words(r.text(attr))) {
    const auto colon = item.find(':');
    double value = 0.0;
    if (colon == std::string::npos || !parseNumber(item.substr(colon + 1), &value)) {
      r.failAttribute(attr, "must be a list of joint:angle pairs (bad item '" + item + "')");
    }
    out.emplace_back(movableJoint(r, attr, robot, item.substr(0, colon)), value);
  }
  return out;
}


// A file the scene names, relative to the scene's folder, or to the folder
// its root's relative_to gives (itself relative to the scene's folder when
// not absolute): a sweep writes each point's scene elsewhere and keeps the
// base scene's file names meaning what they meant (docs/scene-format.md).
std::string resolve(const std::string& scene_path, const XMLElement* element, const std::string& file) {
  const std::filesystem::path p(file);
  if (p.is_absolute()) return file;
  std::filesystem::path base = std::filesystem::path(scene_path).parent_path();
  if (const char* relative_to = element->GetDocument()->RootElement()->Attribute("relative_to")) base /= relative_to;
  return (base / p).lexically_normal().string();
}

}  // namespace suitsim::io
