// The robot's reference motions (<motion>): a CSV file of joint angles, or
// keyframes in joint space and task space (task_keyframe.h), each turned
// into a Motion over the robot's description joints (the compile puts it
// on the model's hinges).
#include "robot_reading.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

#include "suitsim/core/text_input.h"
#include "task_keyframe.h"

namespace suitsim::io {

using tinyxml2::XMLElement;

namespace {

[[noreturn]] void csvFail(const std::string& path, int line, const std::string& problem) {
  throw SceneError(path + ":" + std::to_string(line) + ": " + problem);
}

}  // namespace

MotionTable readMotionCsv(const std::string& path) {
  if (const std::string problem = regularFileProblem(path); !problem.empty()) {
    throw SceneError(path + ": cannot open file (" + problem + ")");
  }
  std::ifstream in(path);
  if (!in) throw SceneError(path + ": cannot open file");
  MotionTable table;
  std::string line;
  int line_no = 0;
  bool header = false;
  for (LineRead got; (got = readLine(in, line)) != LineRead::kEnd;) {
    ++line_no;
    if (got == LineRead::kTooLong) csvFail(path, line_no, "a line longer than " + std::to_string(kMaxLineLength) + " characters");
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.push_back("");
    if (!header) {
      header = true;
      table.header_line = line_no;
      auto strip = [](std::string s) {
        s.erase(0, s.find_first_not_of(" \t"));
        s.erase(s.find_last_not_of(" \t") + 1);
        const auto bracket = s.find('[');
        return bracket == std::string::npos ? s : s.substr(0, bracket);
      };
      if (cells.empty() || strip(cells[0]) != "time") csvFail(path, line_no, "the header must start with 'time'");
      for (std::size_t k = 1; k < cells.size(); ++k) {
        const std::string name = strip(cells[k]);
        if (name.empty()) csvFail(path, line_no, "empty joint name in column " + std::to_string(k + 1));
        if (std::find(table.joints.begin(), table.joints.end(), name) != table.joints.end()) {
          csvFail(path, line_no, "joint '" + name + "' appears twice");
        }
        table.joints.push_back(name);
      }
      if (table.joints.empty()) csvFail(path, line_no, "the header names no joint");
      continue;
    }
    if (cells.size() != table.joints.size() + 1) {
      csvFail(path, line_no,
              "expected " + std::to_string(table.joints.size() + 1) + " values, got " + std::to_string(cells.size()));
    }
    for (std::size_t k = 0; k < cells.size(); ++k) {
      double v = 0.0;
      if (!parseNumber(cells[k], &v)) {
        csvFail(path, line_no, "column " + std::to_string(k + 1) + " is not a finite number (got '" + cells[k] + "')");
      }
      if (k == 0) {
        if (!table.time.empty() && !(v > table.time.back())) {
          csvFail(path, line_no, "time must increase (got " + cells[k] + " after " + std::to_string(table.time.back()) + ")");
        }
        table.time.push_back(v);
        table.line.push_back(line_no);
      } else {
        table.angles.push_back(v);
      }
    }
  }
  if (!header) csvFail(path, std::max(1, line_no), "no header row");
  if (table.time.empty()) csvFail(path, line_no, "no samples after the header");
  return table;
}

namespace {

/// A <motion file>: the CSV's columns on the robot's joints; a
/// mimic follower's column must agree with its coupling and is dropped.
Motion motionFromCsv(const RobotReading& in, const XMLElement* m, const ElementReader& mr) {
  const std::string& scene_path = in.scene_path;
  const RobotDescription& robot = in.setup.truth;
  const RobotPose& pose = in.pose;
  const std::string file = resolve(scene_path, m, mr.text("file"));
  // A file that cannot be read at all (missing, a FIFO, /dev/zero) has
  // no line of its own to blame: the scene's line that names it is the
  // one to fix, as for a robot's urdf. Errors inside the CSV name the
  // CSV's own line.
  if (const std::string problem = regularFileProblem(file); !problem.empty()) {
    mr.failAttribute("file", "names a motion that cannot be read: " + file + ": cannot open file (" + problem + ")");
  }
  const MotionTable table = readMotionCsv(file);
  const std::size_t nc = table.joints.size();
  std::vector<int> column_joint;
  for (const std::string& name : table.joints) {
    const int j = robot.findJoint(name);
    if (j < 0 || robot.joints[j].type == JointType::kFixed) {
      throw SceneError(file + ":" + std::to_string(table.header_line) + ": column '" + name +
                       "' names no moving joint of robot '" + robot.name + "'");
    }
    column_joint.push_back(j);
  }
  // A follower's column must agree with its leader's (its column, or
  // its initial angle when the motion leaves it out) on every row; it
  // is then dropped: the coupling moves that joint.
  std::vector<int> joints;
  std::vector<std::size_t> kept;
  for (std::size_t k = 0; k < nc; ++k) {
    const int j = column_joint[k];
    const int leader = robot.mimicLeader(j);
    if (leader < 0) {
      joints.push_back(j);
      kept.push_back(k);
      continue;
    }
    const auto lc = std::find(column_joint.begin(), column_joint.end(), leader);
    for (std::size_t i = 0; i < table.time.size(); ++i) {
      const double lv = lc == column_joint.end() ? pose.joint_angles[leader] : table.angles[i * nc + (lc - column_joint.begin())];
      const double v = table.angles[i * nc + k];
      if (!agreesWithCoupling(v, robot.joints[j].mimic.multiplier * lv, robot.joints[j].mimic.offset)) {
        throw SceneError(file + ":" + std::to_string(table.line[i]) + ": column '" + table.joints[k] + "' " +
                         couplingConflict(robot, j, "angle", v, lv));
      }
    }
  }
  std::vector<double> angles;
  angles.reserve(table.time.size() * kept.size());
  for (std::size_t i = 0; i < table.time.size(); ++i) {
    for (std::size_t k : kept) angles.push_back(table.angles[i * nc + k]);
  }
  return Motion(joints, table.time, angles);
}

/// A <motion> of <keyframe>s: joints named anywhere take part, each keyframe
/// solved from the pose before it.
Motion motionFromKeyframes(RobotReading& in, const XMLElement* m) {
  const std::string& scene_path = in.scene_path;
  const RobotDescription& robot = in.setup.truth;
  const RobotPose& pose = in.pose;
  const std::vector<ContactPoint>& contacts = in.contacts;
  const RobotDescription& apriori = in.setup.apriori;
  // Keyframes: joints named anywhere take part; a keyframe that leaves a
  // joint out keeps its previous value (the initial angle at first).
  // Task-space targets (task_keyframe.h) become joint angles here, each
  // keyframe solved from the pose before it; the joints the solver moves
  // take part from then on.
  std::vector<int> joints;
  std::vector<std::vector<double>> frames;  // every description joint after each keyframe
  std::vector<double> times;
  std::vector<double> current = pose.joint_angles;
  std::optional<TaskKeyframes> tasks;
  auto takePart = [&](int j) {
    if (std::find(joints.begin(), joints.end(), j) == joints.end()) joints.push_back(j);
  };
  for (const XMLElement* k = m->FirstChildElement("keyframe"); k; k = k->NextSiblingElement("keyframe")) {
    const ElementReader kr = checkedReader(scene_path, k);
    const double t = kr.nonNegative("time", kr.number("time"));
    if (!times.empty() && !(t > times.back())) kr.failAttribute("time", "must be later than the keyframe before");
    times.push_back(t);
    std::vector<std::pair<int, double>> given =
        kr.has("angles") ? jointValues(kr, "angles", robot) : std::vector<std::pair<int, double>>{};
    for (const auto& [j, v] : given) {
      if (robot.mimicLeader(j) >= 0) continue;
      current[j] = v;
      takePart(j);
    }
    // A follower's angle is checked against its leader's in this
    // keyframe (given here or kept from before); it takes no part.
    for (const auto& [j, v] : given) {
      const int leader = robot.mimicLeader(j);
      if (leader >= 0) checkFollower(kr, "angles", robot, j, v, current[leader]);
    }
    std::erase_if(given, [&](const std::pair<int, double>& jv) { return robot.mimicLeader(jv.first) >= 0; });
    if (hasTaskTargets(kr)) {
      if (!tasks) {
        RobotDescription known = apriori;
        for (const HeldObject& h : in.held_in[m]) {
          addPayload(known.links[known.findLink(h.link)].inertial, h.mass, h.com, h.radius);
        }
        tasks.emplace(kr, known, pose, contacts);
      }
      for (int j : tasks->resolve(kr, t, given, current)) takePart(j);
    }
    frames.push_back(current);
  }
  std::vector<double> angles;
  for (const std::vector<double>& frame : frames) {
    for (int j : joints) angles.push_back(frame[j]);
  }
  return Motion::minimumJerk(joints, times, angles);
}

}  // namespace

void readMotions(RobotReading& in) {
  const std::string& scene_path = in.scene_path;
  SceneRobot& setup = in.setup;
  const auto children = [&](const char* tag) { return in.children(tag); };
  // The reference motion: a CSV file or keyframes.
  // Every motion is read (so an error in any shows whichever trial runs).
  for (const XMLElement* m : children("motion")) {
    const ElementReader mr = checkedReader(scene_path, m);
    const bool has_keyframes = m->FirstChildElement("keyframe") != nullptr;
    if (mr.has("file") == has_keyframes) mr.fail("needs either a file attribute or <keyframe> children, not both");
    if (!setup.has_servo) mr.fail("needs a <servo> to follow it");
    Motion motion = mr.has("file") ? motionFromCsv(in, m, mr) : motionFromKeyframes(in, m);
    if (m == in.selected_motion) setup.joint_motion = std::move(motion);
  }

}

}  // namespace suitsim::io
