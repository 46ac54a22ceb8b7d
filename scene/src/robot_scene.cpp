#include "robot_scene.h"

#include "suitsim/core/inertia.h"
#include "suitsim/core/rotation.h"
#include "suitsim/core/random.h"
#include "suitsim/core/text_input.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <functional>
#include <random>
#include <sstream>

#include "suitsim/exoskeleton.h"
#include "suitsim/scene/urdf.h"
#include "task_keyframe.h"
#include "suitsim/scene/xml_reader.h"

namespace suitsim::io {

namespace {

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

/// A <payload> (cables, electronics the URDF leaves out) weighs at most this
/// many times the robot it is on. Far above anything carried (a robot
/// carries a fraction of its own mass), so only typos are refused.
constexpr double kMaxPayloadPerRobotMass = 1e3;

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


}  // namespace

/// Adds a point-like mass (a solid sphere of `radius`) to a link's inertial.
void addPayload(LinkInertial& in, double mass, const Vec3& com, double radius) {
  const double m0 = in.mass, m1 = mass, m = m0 + m1;
  const Eigen::Vector3d c0(in.com[0], in.com[1], in.com[2]), c1(com[0], com[1], com[2]);
  const Eigen::Vector3d c = (m0 * c0 + m1 * c1) / m;
  const Eigen::Matrix3d I0 = inertiaMatrix(in.inertia);
  auto shift = [](double mass_k, const Eigen::Vector3d& d) {
    return mass_k * (d.squaredNorm() * Eigen::Matrix3d::Identity() - d * d.transpose());
  };
  const Eigen::Matrix3d I =
      I0 + shift(m0, c0 - c) + 0.4 * m1 * radius * radius * Eigen::Matrix3d::Identity() + shift(m1, c1 - c);
  in.mass = m;
  in.com = {c.x(), c.y(), c.z()};
  in.inertia = inertiaVector(I);
}


namespace {

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

[[noreturn]] void csvFail(const std::string& path, int line, const std::string& problem) {
  throw SceneError(path + ":" + std::to_string(line) + ": " + problem);
}

/// A robot written in the scene: <link name mass com inertia="ixx iyy izz
/// ixy ixz iyz"/> (inertia about the centre of mass, link axes) and <joint
/// name type parent child xyz rpy axis lower upper effort velocity/>, with
/// the meanings and defaults of URDF.
RobotDescription readInlineRobot(const std::string& path, const XMLElement* element) {
  RobotDescription robot;
  robot.name = checkedReader(path, element).text("name", "robot");
  std::map<std::string, int> link_index;
  for (const XMLElement* e = element->FirstChildElement("link"); e; e = e->NextSiblingElement("link")) {
    const ElementReader lr = checkedReader(path, e);
    RobotLink link;
    link.name = lr.text("name");
    link.source = path + ":" + std::to_string(e->GetLineNum());
    if (link.name.empty()) lr.failAttribute("name", "must not be empty");
    if (!link_index.emplace(link.name, static_cast<int>(robot.links.size())).second) {
      lr.failAttribute("name", "repeats an earlier link name");
    }
    link.inertial.mass = lr.nonNegative("mass", lr.number("mass", 0.0));
    link.inertial.com = lr.vec3("com", {0.0, 0.0, 0.0});
    if (lr.has("inertia")) {
      const std::vector<std::string> v = words(lr.text("inertia"));
      if (v.size() != 6) lr.failAttribute("inertia", "must be six numbers: ixx iyy izz ixy ixz iyz");
      for (int k = 0; k < 6; ++k) {
        if (!parseNumber(v[k], &link.inertial.inertia[k])) lr.failAttribute("inertia", "must be six finite numbers");
      }
      const auto& i = link.inertial.inertia;
      if (i[0] < 0.0 || i[1] < 0.0 || i[2] < 0.0 || i[0] + i[1] < i[2] || i[1] + i[2] < i[0] || i[0] + i[2] < i[1]) {
        lr.failAttribute("inertia", "is not a physical inertia (diagonal >= 0, each at most the sum of the others)");
      }
    } else if (link.inertial.mass > 0.0) {
      lr.fail("missing attribute 'inertia' (a link with mass needs one)");
    }
    robot.links.push_back(link);
  }
  for (const XMLElement* e = element->FirstChildElement("joint"); e; e = e->NextSiblingElement("joint")) {
    const ElementReader jr = checkedReader(path, e);
    RobotJoint joint;
    joint.name = jr.text("name");
    joint.source = path + ":" + std::to_string(e->GetLineNum());
    if (robot.findJoint(joint.name) >= 0) jr.failAttribute("name", "repeats an earlier joint name");
    const std::string type = jr.text("type");
    if (type == "revolute") joint.type = JointType::kRevolute;
    else if (type == "continuous") joint.type = JointType::kContinuous;
    else if (type == "fixed") joint.type = JointType::kFixed;
    else jr.failAttribute("type", "must be revolute, continuous or fixed");
    for (const char* side : {"parent", "child"}) {
      const auto it = link_index.find(jr.text(side));
      if (it == link_index.end()) jr.failAttribute(side, "names no link of the robot");
      (std::string(side) == "parent" ? joint.parent_link : joint.child_link) = it->second;
    }
    joint.origin_xyz = jr.vec3("xyz", {0.0, 0.0, 0.0});
    joint.origin_rpy = jr.vec3("rpy", {0.0, 0.0, 0.0});
    joint.axis = jr.vec3("axis", {1.0, 0.0, 0.0});
    if (joint.axis[0] == 0.0 && joint.axis[1] == 0.0 && joint.axis[2] == 0.0) jr.failAttribute("axis", "must be non-zero");
    const double norm = std::hypot(joint.axis[0], joint.axis[1], joint.axis[2]);
    for (double& c : joint.axis) c /= norm;
    if (joint.type == JointType::kRevolute) {
      joint.lower = jr.number("lower", 0.0);
      joint.upper = jr.number("upper", 0.0);
      if (joint.lower > joint.upper) jr.failAttribute("upper", "must not be below lower");
    }
    joint.effort_limit = jr.positive("effort", jr.number("effort", joint.effort_limit));
    joint.velocity_limit = jr.positive("velocity", jr.number("velocity", joint.velocity_limit));
    robot.joints.push_back(joint);
  }
  try {
    orderTree(robot);
  } catch (const std::invalid_argument& e) {
    checkedReader(path, element).fail(e.what());
  }
  return robot;
}

/// A name that becomes a CSV column prefix ("rfsensor.force.z[N]").
void checkColumnName(const ElementReader& r, const char* attr, const std::string& name) {
  if (name.empty()) r.failAttribute(attr, "must not be empty");
  for (const unsigned char ch : name) {
    if (std::isspace(ch) || std::iscntrl(ch) || ch == ',' || ch == '"' || ch == '\'') {
      r.failAttribute(attr, "must not contain spaces, commas or quotes (it becomes a column name)");
    }
  }
}

/// A sensor's frame on the body that carries its link: the link's frame in
/// the body composed with xyz, rpy given in the link frame.
Pose sensorFrame(const ElementReader& r, const RobotSetup& setup, int link, int* body) {
  *body = setup.compiled.link_body[link];
  if (*body < 0) r.failAttribute("link", "is not part of a simulated body");
  const Pose& lb = setup.compiled.link_in_body[link];
  Eigen::Matrix3d R_lb;
  R_lb << lb.R[0], lb.R[1], lb.R[2], lb.R[3], lb.R[4], lb.R[5], lb.R[6], lb.R[7], lb.R[8];
  const Vec3 xyz = r.vec3("xyz", {0.0, 0.0, 0.0});
  const Eigen::Matrix3d R = R_lb * rotationFromRpy(r.vec3("rpy", {0.0, 0.0, 0.0}));
  const Eigen::Vector3d p = R_lb * Eigen::Vector3d(xyz[0], xyz[1], xyz[2]) + Eigen::Vector3d(lb.p[0], lb.p[1], lb.p[2]);
  Pose out;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) out.R[3 * i + j] = R(i, j);
    out.p[i] = p[i];
  }
  return out;
}

/// Hinges and names of the joints an element lists (all movable ones by default).
void sensorJoints(const ElementReader& r, const RobotSetup& setup, std::vector<int>* hinges,
                  std::vector<std::string>* names) {
  for (int j : jointList(r, setup.truth)) {
    hinges->push_back(setup.compiled.joint_hinge[j]);
    names->push_back(setup.truth.joints[j].name);
  }
}

/// <sensors rate seed noise anti_alias> with <encoders>, <imu>, <force_sensor>s,
/// <currents> and <winding_temperatures>. Force sensors hold builder contact-point indices until
/// finishSensors maps them into the model.
SensorSpec readSensors(const std::string& scene_path, const XMLElement* element, const RobotSetup& setup,
                       double dt, bool dt_overridden, int noise_override) {
  const ElementReader r = checkedReader(scene_path, element);
  const RobotDescription& robot = setup.truth;
  SensorSpec spec;
  spec.rate = r.positive("rate", r.number("rate", 200.0));
  const int seed = r.integer("seed", 1);
  if (seed < 0) r.failAttribute("seed", "must be >= 0");
  spec.seed = static_cast<std::uint64_t>(seed);
  const std::string noise = r.text("noise", "on");
  if (noise != "on" && noise != "off") r.failAttribute("noise", "must be on or off");
  spec.noise = noise == "on";
  if (noise_override >= 0) spec.noise = noise_override == 1;  // --noise wins over the attribute
  const std::string average = r.text("anti_alias", "on");
  if (average != "on" && average != "off") r.failAttribute("anti_alias", "must be on or off");
  spec.anti_alias = average == "on";
  // The rate must divide the run's time step into whole steps: samples
  // then fall on steps, evenly spaced, at exactly the rate asked for. The
  // step may be --dt's; the line to change is still this one (or the option).
  if (sensorStepsPerSample(spec.rate, dt) == 0) {
    char message[200];
    std::snprintf(message, sizeof message, "must be 1/(k dt) for a whole number k of time steps (dt = %.9g s%s)", dt,
                  dt_overridden ? ", the step is --dt's" : "");
    r.failAttribute("rate", message);
  }

  std::vector<std::string> names;  // sensor names, unique: they prefix columns
  auto claim = [&](const ElementReader& cr, const char* attr, const std::string& name) {
    checkColumnName(cr, attr, name);
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      cr.failAttribute(attr, "repeats an earlier sensor name");
    }
    names.push_back(name);
  };
  auto linkOf = [&](const ElementReader& cr) {
    const int l = robot.findLink(cr.text("link"));
    if (l < 0) cr.failAttribute("link", "names no link of the robot");
    return l;
  };
  for (const XMLElement* c = element->FirstChildElement(); c; c = c->NextSiblingElement()) {
    const ElementReader cr = checkedReader(scene_path, c);
    const std::string tag = c->Name();
    if (tag == "encoders") {
      sensorJoints(cr, setup, &spec.encoders.hinges, &spec.encoders.names);
      spec.encoders.resolution = cr.nonNegative("resolution", cr.number("resolution", 0.0));
    } else if (tag == "currents") {
      sensorJoints(cr, setup, &spec.currents.hinges, &spec.currents.names);
      spec.currents.noise = cr.nonNegative("noise", cr.number("noise", 0.0));
    } else if (tag == "winding_temperatures") {
      sensorJoints(cr, setup, &spec.winding_temperatures.hinges, &spec.winding_temperatures.names);
      spec.winding_temperatures.ambient = cr.number("ambient", spec.winding_temperatures.ambient);
      spec.winding_temperatures.noise = cr.nonNegative("noise", cr.number("noise", 0.0));
      spec.winding_temperatures.resolution = cr.nonNegative("resolution", cr.number("resolution", 0.0));
    } else if (tag == "band_lengths") {
      // A length sensor along every band the trial wears (none without a suit);
      // a scene without any band has nothing for them to measure.
      const XMLElement* robot_element = element->Parent()->ToElement();
      bool any_band = robot_element->FirstChildElement("band") != nullptr;
      for (const XMLElement* suit = robot_element->FirstChildElement("suit"); suit;
           suit = suit->NextSiblingElement("suit")) {
        any_band = any_band || suit->FirstChildElement("band") != nullptr;
      }
      if (!any_band) cr.fail("the robot wears no <band> in any suit: there is no band length to measure");
      for (std::size_t k = 0; k < setup.bands.size(); ++k) {
        spec.band_lengths.bands.push_back(setup.compiled.band[k]);
        spec.band_lengths.names.push_back(setup.bands[k].name);
      }
      spec.band_lengths.noise = cr.nonNegative("noise", cr.number("noise", 0.0));
      spec.band_lengths.bias = cr.number("bias", 0.0);
      spec.band_lengths.resolution = cr.nonNegative("resolution", cr.number("resolution", 0.0));
    } else if (tag == "imu") {
      ImuSpec imu;
      imu.name = cr.text("name", "imu");
      claim(cr, "name", imu.name);
      imu.frame = sensorFrame(cr, setup, linkOf(cr), &imu.body);
      imu.gyro_noise = cr.nonNegative("gyro_noise", cr.number("gyro_noise", 0.0));
      imu.gyro_bias = cr.vec3("gyro_bias", {0.0, 0.0, 0.0});
      imu.accel_noise = cr.nonNegative("accel_noise", cr.number("accel_noise", 0.0));
      imu.accel_bias = cr.vec3("accel_bias", {0.0, 0.0, 0.0});
      spec.imus.push_back(imu);
    } else if (tag == "force_sensor") {
      ForceSensorSpec fs;
      fs.name = cr.text("name");
      claim(cr, "name", fs.name);
      fs.frame = sensorFrame(cr, setup, linkOf(cr), &fs.body);
      fs.force_noise = cr.nonNegative("force_noise", cr.number("force_noise", 0.0));
      fs.torque_noise = cr.nonNegative("torque_noise", cr.number("torque_noise", 0.0));
      fs.force_resolution = cr.nonNegative("force_resolution", cr.number("force_resolution", 0.0));
      fs.torque_resolution = cr.nonNegative("torque_resolution", cr.number("torque_resolution", 0.0));
      // Every contact point on the sensor's body (its link and any link
      // merged with it): the sensor carries all the ground force the foot gets.
      for (std::size_t k = 0; k < setup.contact_link.size(); ++k) {
        if (setup.compiled.link_body[setup.contact_link[k]] == fs.body) fs.contacts.push_back(setup.compiled.contact_point[k]);
      }
      if (fs.contacts.empty()) cr.failAttribute("link", "has no <contact> points on its body (nothing to measure)");
      spec.force_sensors.push_back(fs);
    }
  }
  return spec;
}

}  // namespace

void finishSensors(const Model& model, RobotSetup& setup) {
  if (!setup.sensors) return;
  // The model lists single-particle contacts first, then the builder's
  // contact points in order; only the robot adds contact points. Without a
  // ground there are no contacts and the force sensors read zero.
  const int offset = model.numContacts() - static_cast<int>(setup.compiled.contact_point.size());
  for (ForceSensorSpec& fs : setup.sensors->force_sensors) {
    if (!model.ground.enabled) {
      fs.contacts.clear();
      continue;
    }
    for (int& c : fs.contacts) c += offset;
  }
  // Builder band indices become the model's (looked up by name: the model
  // may hold bands the robot did not add).
  BandLengthSpec& lengths = setup.sensors->band_lengths;
  for (std::size_t k = 0; k < lengths.names.size(); ++k) lengths.bands[k] = model.findBand(lengths.names[k]);
}

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

/// An <exoskeleton> (exoskeleton.h): its segments, worn on the robot's
/// links and hinged on its joints, and its straps. Names are resolved here
/// (a missing one is an error at its element); the physics is checked by
/// addExoskeleton.
ExoskeletonSpec readExoskeleton(const std::string& path, const XMLElement* element, const RobotDescription& robot) {
  const ElementReader r = checkedReader(path, element);
  ExoskeletonSpec spec;
  spec.name = r.text("name");
  spec.source = path + ":" + std::to_string(element->GetLineNum());
  if (spec.name.empty()) r.failAttribute("name", "must not be empty");
  spec.rate_hz = r.positive("rate", r.number("rate"));
  spec.acceleration_cutoff_hz =
      r.positive("acceleration_cutoff", r.number("acceleration_cutoff", spec.acceleration_cutoff_hz));
  if (!(spec.acceleration_cutoff_hz < 0.5 * spec.rate_hz)) {
    r.failAttribute("acceleration_cutoff", "must lie below half the controller's rate (Nyquist)");
  }
  spec.coulomb_velocity = r.positive("coulomb_velocity", r.number("coulomb_velocity", spec.coulomb_velocity));
  for (const XMLElement* c = element->FirstChildElement("segment"); c; c = c->NextSiblingElement("segment")) {
    const ElementReader cr = checkedReader(path, c);
    ExoSegment seg;
    seg.name = cr.text("name");
    seg.source = path + ":" + std::to_string(c->GetLineNum());
    if (seg.name.empty() || seg.name.find_first_of(" \t,") != std::string::npos) {
      cr.failAttribute("name", "must be a non-empty name without spaces or commas (it names columns)");
    }
    for (const ExoSegment& other : spec.segments) {
      if (other.name == seg.name) cr.failAttribute("name", "repeats an earlier segment name");
    }
    seg.link = robot.findLink(cr.text("link"));
    if (seg.link < 0) cr.failAttribute("link", "names no link of the robot");
    seg.inertial.mass = cr.positive("mass", cr.number("mass"));
    seg.inertial.com = cr.vec3("com", {0.0, 0.0, 0.0});
    const std::vector<std::string> v = words(cr.text("inertia"));
    if (v.size() != 6) cr.failAttribute("inertia", "must be six numbers: ixx iyy izz ixy ixz iyz");
    for (int k = 0; k < 6; ++k) {
      if (!parseNumber(v[k], &seg.inertial.inertia[k])) cr.failAttribute("inertia", "must be six finite numbers");
    }
    const auto& i = seg.inertial.inertia;
    if (i[0] <= 0.0 || i[1] <= 0.0 || i[2] <= 0.0 || i[0] + i[1] <= i[2] || i[1] + i[2] <= i[0] || i[0] + i[2] <= i[1]) {
      cr.failAttribute("inertia", "is not the inertia of a solid (diagonal > 0, each below the sum of the others)");
    }
    const bool root = spec.segments.empty();
    const char* jointed_only[] = {"parent", "joint", "motor_constant", "torque_offset", "viscous", "coulomb", "static",
                                  "armature", "effort", "virtual_inertia", "virtual_viscous", "virtual_gravity",
                                  "virtual_coulomb", "assist"};
    if (root) {
      for (const char* a : jointed_only) {
        if (cr.has(a)) cr.failAttribute(a, "belongs to a jointed segment; the first segment is the device's root, with no joint");
      }
      spec.segments.push_back(seg);
      continue;
    }
    const std::string parent = cr.text("parent");
    for (std::size_t k = 0; k < spec.segments.size(); ++k) {
      if (spec.segments[k].name == parent) seg.parent = static_cast<int>(k);
    }
    if (seg.parent < 0) cr.failAttribute("parent", "names no earlier segment of the device");
    seg.joint = movableJoint(cr, "joint", robot, cr.text("joint"));
    for (const ExoSegment& other : spec.segments) {
      if (other.joint == seg.joint) cr.failAttribute("joint", "is the joint of segment '" + other.name + "' already");
    }
    JointActuation& a = seg.actuation;
    a.motor_constant = cr.positive("motor_constant", cr.number("motor_constant"));
    a.torque_offset = cr.number("torque_offset", 0.0);
    a.viscous = cr.nonNegative("viscous", cr.number("viscous", 0.0));
    a.coulomb = cr.nonNegative("coulomb", cr.number("coulomb", 0.0));
    a.static_max = cr.nonNegative("static", cr.number("static", a.coulomb));
    if (a.static_max < a.coulomb) cr.failAttribute("static", "must be at least coulomb");
    a.armature = cr.nonNegative("armature", cr.number("armature", 0.0));
    seg.effort_limit = cr.positive("effort", cr.number("effort", std::numeric_limits<double>::infinity()));
    VirtualImpedance& vi = seg.impedance;
    vi.inertia = cr.nonNegative("virtual_inertia", cr.number("virtual_inertia"));
    vi.viscous = cr.nonNegative("virtual_viscous", cr.number("virtual_viscous"));
    vi.gravity = cr.number("virtual_gravity");
    if (!(vi.gravity >= 0.0 && vi.gravity <= 1.0)) {
      cr.failAttribute("virtual_gravity", "must lie in [0, 1]: the share of the device's gravity moment left to the wearer");
    }
    vi.coulomb = cr.nonNegative("virtual_coulomb", cr.number("virtual_coulomb"));
    vi.assist = cr.number("assist", 0.0);
    if (!(std::abs(vi.assist) < 1.0)) cr.failAttribute("assist", "must lie within (-1, 1): a share of the wearer's own torque");
    spec.segments.push_back(seg);
  }
  if (spec.segments.size() < 2) r.fail("needs a root <segment> and at least one jointed <segment> (a device with no joint has nothing to drive)");
  for (const XMLElement* c = element->FirstChildElement("strap"); c; c = c->NextSiblingElement("strap")) {
    const ElementReader cr = checkedReader(path, c);
    int segment = -1;
    const std::string name = cr.text("segment");
    for (std::size_t k = 0; k < spec.segments.size(); ++k) {
      if (spec.segments[k].name == name) segment = static_cast<int>(k);
    }
    if (segment < 0) cr.failAttribute("segment", "names no segment of the device");
    const double k = cr.positive("stiffness", cr.number("stiffness"));
    const double d = cr.nonNegative("damping", cr.number("damping", 0.0));
    const std::vector<Vec3> points = pointList(cr, "points");
    if (points.empty()) cr.failAttribute("points", "gives no point");
    for (const Vec3& p : points) {
      spec.straps.push_back(ExoStrap{path + ":" + std::to_string(c->GetLineNum()), segment, p, k, d});
    }
  }
  // Device parts are named DEVICE.SEGMENT in the model: none may be a robot's name.
  for (std::size_t k = 0; k < spec.segments.size(); ++k) {
    const std::string part = exoPartName(spec, static_cast<int>(k));
    if (robot.findJoint(part) >= 0 || robot.findLink(part) >= 0) {
      r.failAttribute("name", "makes the part name '" + part + "', which the robot already uses");
    }
  }
  return spec;
}

RobotSetup readRobot(const std::string& scene_path, const XMLElement* element, ModelBuilder& builder,
                     const TrialSpec& trial, const SimulationSettings& simulation, const SceneOverrides& overrides,
                     const Realism& realism) {
  const ElementReader r = checkedReader(scene_path, element);
  RobotSetup setup;
  const bool inline_links = element->FirstChildElement("link") != nullptr;
  if (r.has("urdf") == inline_links) {
    r.fail("needs either a urdf attribute or <link> and <joint> children, not both");
  }
  if (r.has("urdf")) {
    const std::string urdf_path = resolve(scene_path, element, r.text("urdf"));
    try {
      setup.truth = loadUrdf(urdf_path);
    } catch (const SceneError& e) {
      r.failAttribute("urdf", std::string("names a robot that cannot be read: ") + e.what());
    }
  } else {
    setup.truth = readInlineRobot(scene_path, element);
  }
  RobotDescription& robot = setup.truth;
  if (r.has("name")) robot.name = r.text("name");
  const std::string base = r.text("base", "floating");
  if (base != "floating" && base != "fixed") r.failAttribute("base", "must be floating or fixed");
  robot.floating_base = base == "floating";

  RobotCompileOptions options;
  options.link_frequency = r.positive("link_frequency", r.number("link_frequency", options.link_frequency));
  options.link_damping_ratio =
      r.nonNegative("link_damping_ratio", r.number("link_damping_ratio", options.link_damping_ratio));
  options.hinge.constraint_frequency =
      r.positive("constraint_frequency", r.number("constraint_frequency", options.hinge.constraint_frequency));
  options.hinge.limit_stiffness = r.nonNegative("limit_stiffness", r.number("limit_stiffness", 0.0));
  options.hinge.limit_damping = r.nonNegative("limit_damping", r.number("limit_damping", 0.0));
  // The two link models (docs/engine.md): rigid clusters, or Toda and
  // Sankai's links held by their spring-dampers alone, T(1)-(10).
  const std::string link_model = r.text("link_model", "rigid");
  if (link_model != "rigid" && link_model != "springs") r.failAttribute("link_model", "must be rigid or springs");
  options.hinge.link_model = link_model == "springs" ? LinkModel::kSprings : LinkModel::kRigid;
  setup.line = element->GetLineNum();
  RobotPose pose;
  pose.base_position = r.vec3("pos", {0.0, 0.0, 0.0});
  pose.base_rpy = r.vec3("rpy", {0.0, 0.0, 0.0});
  pose.joint_angles.assign(robot.joints.size(), 0.0);
  // Without an explicit height a floating robot stands on the ground.
  const bool explicit_height = r.has("pos");
  if (builder.ground().enabled && robot.floating_base && !explicit_height) {
    pose.place_on_ground = true;
    pose.ground_normal = builder.ground().normal;
    pose.ground_offset = builder.ground().offset;
  }

  auto children = [&](const char* tag) {
    std::vector<const XMLElement*> out;
    for (const XMLElement* c = element->FirstChildElement(tag); c; c = c->NextSiblingElement(tag)) out.push_back(c);
    return out;
  };

  // Initial angles, then freezing (a frozen joint is welded at its initial angle).
  std::vector<const XMLElement*> initial_element(robot.joints.size(), nullptr);
  for (const XMLElement* c : children("initial")) {
    const ElementReader cr = checkedReader(scene_path, c);
    for (const auto& [j, angle] : jointValues(cr, "angles", robot)) {
      // A start outside the joint's limits is a typing error (degrees for
      // radians), not a pose: the limit would fling the joint back on the
      // first step. Continuous joints have no limits.
      const RobotJoint& joint = robot.joints[j];
      if (joint.type != JointType::kContinuous && !(angle >= joint.lower && angle <= joint.upper)) {
        std::ostringstream m;
        m << "puts joint '" << joint.name << "' at " << angle << ", outside its limits [" << joint.lower << ", "
          << joint.upper << "]" << (joint.type == JointType::kPrismatic ? " m" : " rad");
        if (!joint.source.empty()) m << " (" << joint.source << ")";
        cr.failAttribute("angles", m.str());
      }
      pose.joint_angles[j] = angle;
      initial_element[j] = c;
    }
  }
  // Welds joint j at `angle`: the turn goes into its origin.
  auto weld = [&](int j, double angle) {
    RobotJoint& joint = robot.joints[j];
    const Eigen::Vector3d axis = Eigen::Vector3d(joint.axis[0], joint.axis[1], joint.axis[2]).normalized();
    joint.origin_rpy = rpyFromRotation(rotationFromRpy(joint.origin_rpy) * Eigen::AngleAxisd(angle, axis).toRotationMatrix());
    joint.type = JointType::kFixed;
    pose.joint_angles[j] = 0.0;
  };
  const std::vector<double> initial_angles = pose.joint_angles;
  for (const XMLElement* c : children("freeze")) {
    const ElementReader cr = checkedReader(scene_path, c);
    for (int j : jointList(cr, robot)) weld(j, pose.joint_angles[j]);
  }
  // <mimic> joints. A follower frozen by the scene stays frozen (the
  // coupling is dropped: the scene's word wins, and `suitsim info` says
  // so). The followers of a frozen leader are frozen with it, where their
  // coupling puts them. A coupled follower's angle follows its leader's: an
  // <initial> angle for it must agree with the coupling (checkFollower).
  for (std::size_t j = 0; j < robot.joints.size(); ++j) {
    RobotJoint& joint = robot.joints[j];
    if (joint.mimic.joint.empty() || joint.type == JointType::kFixed) continue;
    const int leader = robot.findJoint(joint.mimic.joint);
    if (leader < 0) r.fail("joint '" + joint.name + "' mimics '" + joint.mimic.joint + "', which the robot lacks");
    if (initial_element[j]) {
      const ElementReader cr = checkedReader(scene_path, initial_element[j]);
      checkFollower(cr, "angles", robot, static_cast<int>(j), initial_angles[j], initial_angles[leader]);
    }
    if (robot.joints[leader].type != JointType::kFixed) continue;
    weld(static_cast<int>(j), joint.mimic.multiplier * initial_angles[leader] + joint.mimic.offset);
  }

  // Actuation and friction, A(6)-(7): later elements override earlier ones.
  for (const XMLElement* c : children("actuation")) {
    const ElementReader cr = checkedReader(scene_path, c);
    for (int j : jointList(cr, robot)) {
      JointActuation& a = robot.joints[j].actuation;
      a.motor_constant = cr.positive("motor_constant", cr.number("motor_constant", a.motor_constant));
      a.torque_offset = cr.number("torque_offset", a.torque_offset);
      a.viscous = cr.nonNegative("viscous", cr.number("viscous", a.viscous));
      a.coulomb = cr.nonNegative("coulomb", cr.number("coulomb", a.coulomb));
      // Static friction never falls below Coulomb friction; given alone,
      // Coulomb friction raises it.
      a.static_max = cr.nonNegative("static", cr.number("static", std::max(a.static_max, a.coulomb)));
      a.stribeck_velocity = cr.nonNegative("stribeck_velocity", cr.number("stribeck_velocity", a.stribeck_velocity));
      a.armature = cr.nonNegative("armature", cr.number("armature", a.armature));
      if (a.static_max < a.coulomb) {
        cr.failAttribute("static", "must be >= coulomb (" + std::to_string(a.coulomb) + ") for joint '" +
                                       robot.joints[j].name + "'");
      }
    }
  }

  // Payloads: mass the URDF does not know about (cables, electronics).
  // Cables and electronics weigh less than the robot: a mass a thousand
  // times the robot's (a typo, 1e308) would otherwise surface only when the
  // particle model is built, blamed on a spring of <robot>; and a radius
  // whose inertia overflows, as a flat body. Both are refused here, at the
  // payload's line (docs/scene-format.md).
  RobotDescription without_payloads = robot;
  double robot_mass = 0.0;
  for (const RobotLink& link : robot.links) robot_mass += link.inertial.mass;
  for (const XMLElement* c : children("payload")) {
    const ElementReader cr = checkedReader(scene_path, c);
    const int l = robot.findLink(cr.text("link"));
    if (l < 0) cr.failAttribute("link", "names no link of the robot");
    const double mass = cr.positive("mass", cr.number("mass"));
    if (robot_mass > 0.0 && mass > kMaxPayloadPerRobotMass * robot_mass) {
      char message[160];
      std::snprintf(message, sizeof message, "must be at most %.0f times the robot's own mass (%.6g kg)",
                    kMaxPayloadPerRobotMass, robot_mass);
      cr.failAttribute("mass", message);
    }
    const double radius = cr.positive("radius", cr.number("radius", 0.05));
    if (!std::isfinite(0.4 * mass * radius * radius)) {
      cr.failAttribute("radius", "is too large: the payload's moment of inertia (2/5 m r^2) is not finite");
    }
    addPayload(robot.links[l].inertial, mass, cr.vec3("com", {0.0, 0.0, 0.0}), radius);
  }

  // The a-priori set with payloads="true": the payloads, but never the held
  // objects (the evaluator adds those from `held`; in the a-priori set too
  // they would count twice).
  const RobotDescription with_payloads = robot;

  // The trial's motion (named in an experiment; otherwise the only one).
  const XMLElement* selected_motion = nullptr;
  for (const XMLElement* m : children("motion")) {
    const char* name = m->Attribute("name");
    if (trial.name.empty() || (name && trial.motion == name)) selected_motion = m;
  }

  // Objects held during a motion: known mass the experimenter added (A §5.1:
  // 0.5 kg per hand while bending). Every motion's are checked; the chosen
  // motion's are added to the true links and remembered for the evaluator.
  std::map<const XMLElement*, std::vector<HeldObject>> held_in;  // every motion's, for its task keyframes
  for (const XMLElement* m : children("motion")) {
    for (const XMLElement* c = m->FirstChildElement("hold"); c; c = c->NextSiblingElement("hold")) {
      const ElementReader cr = checkedReader(scene_path, c);
      HeldObject held;
      held.link = cr.text("link");
      const int l = robot.findLink(held.link);
      if (l < 0) cr.failAttribute("link", "names no link of the robot");
      held.mass = cr.positive("mass", cr.number("mass"));
      held.com = cr.vec3("com", {0.0, 0.0, 0.0});
      held.radius = cr.nonNegative("radius", cr.number("radius", 0.0));
      held_in[m].push_back(held);
      if (m != selected_motion) continue;
      addPayload(robot.links[l].inertial, held.mass, held.com, held.radius);
      setup.held.push_back(held);
    }
  }

  // Contact points.
  std::vector<ContactPoint> contacts;
  for (const XMLElement* c : children("contact")) {
    const ElementReader cr = checkedReader(scene_path, c);
    const std::string link = cr.text("link");
    if (robot.findLink(link) < 0) cr.failAttribute("link", "names no link of the robot");
    const std::vector<Vec3> points = pointList(cr, "points");
    for (const Vec3& p : points) {
      contacts.push_back({link, p});
      setup.contact_link.push_back(robot.findLink(link));
    }
    if (points.empty()) cr.failAttribute("points", "lists no point");
  }

  setup.contacts = contacts;
  pose.ground_normal = builder.ground().normal;
  pose.ground_offset = builder.ground().offset;
  setup.initial_pose = pose;

  // Suit bands, A(21)-(25): counts first, then link names, then physics.
  // Bands directly in <robot> are always worn; those in a <suit> only in the
  // trials that wear it. Every band is checked, worn or not.
  auto readBand = [&](const XMLElement* c, const std::vector<RobotBand>& earlier) {
    const ElementReader cr = checkedReader(scene_path, c);
    // Band and group names become column names and report keys.
    auto checkLabel = [&](const char* attribute, const std::string& value) {
      if (value.empty()) {
        cr.failAttribute(attribute, std::string("must not be empty") +
                                        (std::string(attribute) == "group" ? " (leave it out for a group of its own)" : ""));
      }
      for (const unsigned char ch : value) {
        if (std::isspace(ch) || std::iscntrl(ch) || ch == ',' || ch == '"' || ch == '\'') {
          cr.failAttribute(attribute, "must not contain spaces, commas or quotes (it becomes a column name)");
        }
      }
    };
    RobotBand band;
    band.name = cr.text("name");
    checkLabel("name", band.name);
    for (const RobotBand& other : earlier) {
      if (other.name == band.name) cr.failAttribute("name", "repeats an earlier band name");
    }
    // Stiffness group: declared, never guessed from the name. Without one
    // the band is a group of its own, named as the band; a group name may
    // therefore be a band's name only if that band is in it.
    band.group = cr.text("group", band.name);
    checkLabel("group", band.group);
    for (const RobotBand& other : earlier) {
      if (band.group != band.name && other.name == band.group && other.group != band.group) {
        cr.failAttribute("group", "is the name of band '" + other.name + "', which is in group '" + other.group +
                                      "' (a band without a group is a group of its own)");
      }
      if (other.group == band.name && band.group != band.name) {
        cr.failAttribute("name", "names group '" + other.group + "' of band '" + other.name +
                                     "' but the band is in group '" + band.group + "'");
      }
    }
    band.links = words(cr.text("links"));
    band.points = pointList(cr, "points");
    if (band.links.size() < 2) cr.failAttribute("links", "must name at least two via points (a wire needs two ends)");
    if (band.points.size() != band.links.size()) {
      cr.failAttribute("points", "must give one point per link in 'links' (" + std::to_string(band.links.size()) +
                                     " links, " + std::to_string(band.points.size()) + " points)");
    }
    for (const std::string& link : band.links) {
      if (robot.findLink(link) < 0) cr.failAttribute("links", "names no link of the robot ('" + link + "')");
    }
    band.stiffness = cr.nonNegative("stiffness", cr.number("stiffness"));
    // A group is one stiffness, A(26): the truth must agree or scoring the
    // group's estimate has no answer.
    for (const RobotBand& other : earlier) {
      if (other.group == band.group && other.stiffness != band.stiffness) {
        char k[32];
        std::snprintf(k, sizeof k, "%.17g", other.stiffness);
        cr.failAttribute("stiffness", "differs from band '" + other.name + "' of the same group '" + band.group +
                                          "' (" + k + " N/m); a group shares one stiffness");
      }
    }
    band.damping = cr.nonNegative("damping", cr.number("damping", 0.0));
    const std::string l0 = cr.text("natural_length", "auto");
    if (l0 != "auto") {
      if (!parseNumber(l0, &band.natural_length)) {
        cr.failAttribute("natural_length", "must be auto or a finite length in metres");
      }
      cr.nonNegative("natural_length", band.natural_length);
    }
    return band;
  };
  for (const XMLElement* c : children("band")) setup.bands.push_back(readBand(c, setup.bands));
  const std::vector<RobotBand> always_worn = setup.bands;
  for (const XMLElement* suit : children("suit")) {
    std::vector<RobotBand> worn = always_worn;
    for (const XMLElement* c = suit->FirstChildElement("band"); c; c = c->NextSiblingElement("band")) {
      worn.push_back(readBand(c, worn));
    }
    const char* name = suit->Attribute("name");
    if (name && trial.suit == name) setup.bands = worn;
  }
  // The suit as worn (docs/realism.md): each via point moved by a random
  // vector of RMS length via_point_offset, drawn per band name and via
  // point so that a band sits the same in every trial that wears it.
  for (RobotBand& band : setup.bands) {
    // Compliant attachments (docs/realism.md): the straps at the band's two
    // ends, each departing from the nominal by a spread drawn per band (so
    // that a band sits the same in every trial that wears it); the band
    // feels their series, 2 / k_a = 1 / k_1 + 1 / k_2.
    band.attachment_stiffness = realism.attachment_stiffness;
    if (realism.attachment_stiffness > 0.0 && realism.attachment_spread > 0.0) {
      RandomStream rng({static_cast<std::uint64_t>(realism.seed), std::uint64_t{0x7374726170ull}, nameHash64(band.name)});
      const double k1 = realism.attachment_stiffness * std::max(0.5, 1.0 + realism.attachment_spread * rng.normal());
      const double k2 = realism.attachment_stiffness * std::max(0.5, 1.0 + realism.attachment_spread * rng.normal());
      band.attachment_stiffness = 2.0 / (1.0 / k1 + 1.0 / k2);
    }
    // Hysteresis (docs/realism.md): a Maxwell arm in the band's material.
    band.relaxing_stiffness = realism.hysteresis_fraction * band.stiffness;
    band.relaxation_time = realism.hysteresis_relaxation_time;
    // Capstan friction (docs/realism.md): the band over the body at its via points.
    band.capstan_friction = realism.capstan_friction;
    setup.band_designed_points.push_back(band.points);
    if (!(realism.via_point_offset > 0.0)) continue;
    RandomStream rng({static_cast<std::uint64_t>(realism.seed), nameHash64(band.name)});
    const double sigma = realism.via_point_offset / std::sqrt(3.0);  // per axis
    for (Vec3& p : band.points) {
      for (double& x : p) x += sigma * rng.normal();
    }
  }

  // The gear trains (docs/realism.md): every joint of the truth; the
  // a-priori set was copied before and keeps ideal gears.
  for (RobotJoint& joint : robot.joints) {
    joint.actuation.gear_efficiency = realism.gear_efficiency;
    joint.actuation.backdrive_efficiency = realism.backdrive_efficiency;
    joint.actuation.gear_transition_velocity = realism.gear_transition_velocity;
  }
  // The windings' heating (docs/realism.md): km from the rise the winding
  // would reach holding the joint's effort limit, R_th = 1 K/W; the rise at
  // the trial's start drawn per trial and joint.
  if (realism.heating_rise_at_effort > 0.0) {
    for (RobotJoint& joint : robot.joints) {
      if (!joint.mimic.joint.empty() || joint.type == JointType::kFixed) continue;  // no motor of its own
      if (!std::isfinite(joint.effort_limit)) {
        r.fail("<realism><motor_heating> needs every motorised joint's effort limit; joint '" + joint.name +
               "' has none (URDF <limit effort>)");
      }
      JointActuation& a = joint.actuation;
      a.thermal_resistance = 1.0;
      a.km = joint.effort_limit * std::sqrt(a.thermal_resistance / realism.heating_rise_at_effort);
      a.thermal_time_constant = realism.heating_time_constant;
      a.magnet_coefficient = realism.heating_magnet_coefficient;
      RandomStream rng({static_cast<std::uint64_t>(realism.seed), nameHash64(trial.name), nameHash64(joint.name)});
      a.initial_winding_rise = rng.uniform(0.0, realism.heating_initial_rise);
    }
  }

  // The gear trains' compliance (docs/realism.md): every motorised joint of
  // the truth; k from its effort limit, the damper from its rotor.
  if (realism.compliance_stiffness_per_effort > 0.0) {
    for (RobotJoint& joint : robot.joints) {
      if (!joint.mimic.joint.empty() || joint.type == JointType::kFixed) continue;  // no motor of its own
      if (!std::isfinite(joint.effort_limit) || !(joint.effort_limit > 0.0)) {
        r.fail("<realism><compliance> needs every motorised joint's effort limit; joint '" + joint.name +
               "' has none (URDF <limit effort>)");
      }
      JointActuation& a = joint.actuation;
      if (!(a.armature > 0.0)) {
        r.fail("<realism><compliance> needs every motorised joint's rotor inertia; joint '" + joint.name +
               "' has none (<actuation armature>): a compliant gear's rotor is a degree of freedom of its own");
      }
      // The datasheet's stiffness (the a-priori set's, below) and this
      // unit's: catalogues give typical values, each unit departs from them
      // by a relative spread drawn per joint.
      RandomStream rng({static_cast<std::uint64_t>(realism.seed), std::uint64_t{0x6765617273ull}, nameHash64(joint.name)});
      const double draw = rng.normal();
      a.gear_stiffness = realism.compliance_stiffness_per_effort * joint.effort_limit *
                         std::max(0.5, 1.0 + realism.compliance_spread * draw);
      a.gear_backlash = realism.compliance_backlash;
      a.gear_damping = 2.0 * realism.compliance_damping_ratio * std::sqrt(a.gear_stiffness * a.armature);
      a.encoder_on_motor = realism.compliance_encoder_on_motor;
    }
  }

  // Compile the true robot into particles.
  try {
    setup.compiled = addRobot(builder, robot, pose, contacts, options, setup.bands);
    for (std::size_t k = 0; k < setup.bands.size(); ++k) {
      setup.bands[k].natural_length = setup.compiled.band_natural_length[k];
    }
  } catch (const ModelError& e) {
    r.fail(e.what());
  }

  // Powered devices (exoskeleton.h): every <exoskeleton> is read and built
  // (into a copy, so an error shows whichever trial runs); the one the trial
  // wears (outside an experiment: the scene's only one) into the model.
  {
    const std::vector<const XMLElement*> devices = children("exoskeleton");
    std::vector<std::string> names;
    for (const XMLElement* c : devices) {
      ExoskeletonSpec spec = readExoskeleton(scene_path, c, robot);
      const ElementReader cr = checkedReader(scene_path, c);
      if (std::find(names.begin(), names.end(), spec.name) != names.end()) cr.failAttribute("name", "repeats an earlier device name");
      names.push_back(spec.name);
      const bool worn = trial.name.empty() ? true : trial.device == spec.name;
      if (trial.name.empty() && devices.size() > 1) {
        cr.fail("is one of several devices: outside an <experiment> a scene wears its only device (list trials that name one)");
      }
      try {
        if (worn) {
          setup.exoskeleton_compiled = addExoskeleton(builder, robot, setup.compiled, pose, spec, options);
          setup.exoskeleton = spec;
        } else {
          ModelBuilder scratch = builder;
          addExoskeleton(scratch, robot, setup.compiled, pose, spec, options);
        }
      } catch (const ModelError& e) {
        // A segment's or strap's fault names its own line already.
        const std::string message = e.what();
        if (message.rfind(scene_path + ":", 0) == 0) throw SceneError(message);
        cr.fail(message);
      }
    }
  }

  // Servo gains per hinge, and its rate.
  const int first_hinge = builder.numHinges() - static_cast<int>(robot.movableJoints().size());
  setup.gains.assign(builder.numHinges(), ServoGains{});
  setup.gain_line.assign(builder.numHinges(), 0);
  bool rate_given = false;
  struct FollowerGains {
    int joint;
    ServoGains gains;
    const XMLElement* element;
  };
  std::vector<FollowerGains> follower_gains;
  for (const XMLElement* c : children("servo")) {
    const ElementReader cr = checkedReader(scene_path, c);
    const ServoGains g{cr.nonNegative("kp", cr.number("kp")), cr.nonNegative("kd", cr.number("kd"))};
    for (int j : jointList(cr, robot)) {
      // A coupled <mimic> follower has no motor: named, its gains must be
      // its leader's (checked below, once every <servo> is read); by
      // default (all joints) it is left out.
      if (cr.has("joints") && robot.mimicLeader(j) >= 0) follower_gains.push_back({j, g, c});
      if (robot.mimicLeader(j) < 0) {
        setup.gains[setup.compiled.joint_hinge[j]] = g;
        setup.gain_line[setup.compiled.joint_hinge[j]] = c->GetLineNum();
      }
    }
    if (cr.has("rate")) {
      const double rate = cr.positive("rate", cr.number("rate"));
      if (rate_given && rate != setup.servo_rate) cr.failAttribute("rate", "differs from an earlier <servo> rate");
      setup.servo_rate = rate;
      rate_given = true;
    }
    setup.has_servo = true;
  }
  (void)first_hinge;
  // The leader's motor moves its followers: gains named for a follower are
  // accepted when they are its leader's (after every <servo>), refused
  // otherwise with both.
  for (const FollowerGains& fg : follower_gains) {
    const int leader = robot.mimicLeader(fg.joint);
    const ServoGains& lg = setup.gains[setup.compiled.joint_hinge[leader]];
    if (!agreesWithCoupling(fg.gains.kp, lg.kp, 0.0) || !agreesWithCoupling(fg.gains.kd, lg.kd, 0.0)) {
      std::ostringstream out;
      out.precision(12);
      out << "names joint '" << robot.joints[fg.joint].name << "', which mimics '" << robot.joints[leader].name
          << "' (URDF <mimic>): it has no motor, its leader's moves it, so its gains must be the leader's; given kp "
          << fg.gains.kp << ", kd " << fg.gains.kd << ", the leader's kp " << lg.kp << ", kd " << lg.kd;
      checkedReader(scene_path, fg.element).failAttribute("joints", out.str());
    }
  }

  if (const XMLElement* e = element->FirstChildElement("sensors")) {
    setup.sensors = readSensors(scene_path, e, setup, simulation.dt, overrides.dt > 0.0, overrides.noise);
    setup.sensors_line = e->GetLineNum();
  }
  // The causal sensor chain (docs/realism.md): the logger's filters, timing
  // and IMU bias walk, and each force sensor's calibration crosstalk drawn
  // per sensor name (the same hardware in every trial).
  if (realism.sensor_chain) {
    if (!setup.sensors) r.fail("<realism><sensor_chain> needs the robot's <sensors>: there is no logger to make causal");
    SensorSpec& spec = *setup.sensors;
    spec.chain.causal = true;
    spec.chain.imu_cutoff = realism.chain_imu_cutoff;
    spec.chain.force_cutoff = realism.chain_force_cutoff;
    spec.chain.current_cutoff = realism.chain_current_cutoff;
    spec.chain.jitter = realism.chain_jitter;
    spec.chain.gyro_bias_walk = realism.chain_gyro_bias_walk;
    spec.chain.accel_bias_walk = realism.chain_accel_bias_walk;
    const XMLElement* sim = element->Parent()->FirstChildElement("simulation");
    const double dt = checkedReader(scene_path, sim).number("dt");
    const double nyquist = 0.45 / dt;
    for (const auto& [name, cutoff] : {std::pair<const char*, double>{"imu_cutoff", spec.chain.imu_cutoff},
                                       {"force_cutoff", spec.chain.force_cutoff},
                                       {"current_cutoff", spec.chain.current_cutoff}}) {
      if (cutoff >= nyquist) {
        char message[200];
        std::snprintf(message, sizeof message,
                      "<realism><sensor_chain> %s %.9g Hz must be below 0.45 / dt = %.9g Hz: the filter runs at the "
                      "simulation's step",
                      name, cutoff, nyquist);
        checkedReader(scene_path, element->FirstChildElement("sensors")).fail(message);
      }
    }
    for (ForceSensorSpec& fs : spec.force_sensors) {
      RandomStream rng(streamSeed(realism.seed, "crosstalk." + fs.name));
      const auto unit = [](RandomStream& stream) { return stream.normal(); };
      for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 6; ++j) {
          // Forces couple into forces and moments into moments; the
          // diagonal is each axis's gain (below).
          if (i != j && (i < 3) == (j < 3)) fs.crosstalk[static_cast<std::size_t>(6 * i + j)] = realism.chain_force_crosstalk * unit(rng);
        }
      }
      // The gains, drawn after the crosstalk so that a gain error leaves
      // the crosstalk's draws as they were.
      if (realism.chain_force_gain > 0.0) {
        for (int i = 0; i < 6; ++i) fs.crosstalk[static_cast<std::size_t>(7 * i)] = 1.0 + realism.chain_force_gain * unit(rng);
      }
    }
  }
  // A worn device logs its own joints like the robot's (exoskeleton.h): its
  // encoders and current sensors are the robot's kind, with their settings;
  // with its encoders, the attitude its controller reads (its root
  // segment's: the gravity vector in that segment's frame).
  if (setup.sensors && setup.exoskeleton) {
    if (!setup.sensors->encoders.hinges.empty()) {
      const CompiledExoskeleton& device = setup.exoskeleton_compiled;
      AttitudeSpec attitude;
      attitude.name = exoPartName(*setup.exoskeleton, 0);
      attitude.body = device.compiled.link_body[device.segment_link[0]];
      attitude.frame = device.compiled.link_in_body[device.segment_link[0]];  // the segment's own frame
      setup.sensors->attitudes.push_back(attitude);
    }
    for (int s = 1; s < static_cast<int>(setup.exoskeleton->segments.size()); ++s) {
      const std::string part = exoPartName(*setup.exoskeleton, s);
      const int h = setup.exoskeleton_compiled.compiled.joint_hinge[setup.exoskeleton_compiled.description.findJoint(part)];
      if (!setup.sensors->encoders.hinges.empty()) {
        setup.sensors->encoders.hinges.push_back(h);
        setup.sensors->encoders.names.push_back(part);
      }
      if (!setup.sensors->currents.hinges.empty()) {
        setup.sensors->currents.hinges.push_back(h);
        setup.sensors->currents.names.push_back(part);
      }
    }
  }

  // Forces from outside (balance_assist.h), each at a point of a link.
  const auto linkPoint = [&](const ElementReader& cr, const XMLElement* c) {
    RobotSetup::LinkPoint at;
    at.link = robot.findLink(cr.text("link"));
    if (at.link < 0) cr.failAttribute("link", "names no link of the robot");
    at.point = cr.vec3("point", {0.0, 0.0, 0.0});
    at.line = c->GetLineNum();
    return at;
  };
  for (const XMLElement* c : children("push")) {
    const ElementReader cr = checkedReader(scene_path, c);
    PushSpec p;
    p.force = cr.vec3("force");
    p.start = cr.nonNegative("start", cr.number("start"));
    p.duration = cr.positive("duration", cr.number("duration"));
    setup.pushes.emplace_back(linkPoint(cr, c), p);
  }
  for (const XMLElement* c : children("assist")) {
    const ElementReader cr = checkedReader(scene_path, c);
    BalanceAssistSpec a;
    const std::string law = cr.has("law") ? cr.text("law") : "force";
    if (law == "force") a.law = BalanceAssistSpec::Law::kForce;
    else if (law == "acceleration") a.law = BalanceAssistSpec::Law::kAcceleration;
    else cr.failAttribute("law", "must be force (seed 003 (19)) or acceleration ((20))");
    a.kp = cr.positive("kp", cr.number("kp"));
    a.max_force = cr.positive("max_force", cr.number("max_force"));
    a.bandwidth_hz = cr.positive("bandwidth", cr.number("bandwidth"));
    a.rate_hz = cr.positive("rate", cr.number("rate"));
    a.margin = cr.nonNegative("margin", cr.number("margin", 0.0));
    if (!builder.ground().enabled) cr.fail("needs a <ground>: the balance region is the support polygon on it");
    setup.assist.emplace(linkPoint(cr, c), a);
  }

  // The a-priori ("CAD") set: by default the URDF as it is (no payloads), no
  // friction, no torque offset, the true motor constants, and the true
  // armature (rotor inertia and gear ratio are datasheet values).
  RobotDescription& apriori = setup.apriori;
  apriori = without_payloads;
  bool keep_payloads = false, keep_friction = false, keep_offset = false, keep_armature = true;
  double kt_scale = 1.0, com_shift = 0.0, magnet_coefficient = 0.0, gear_stiffness_per_effort = 0.0;
  int seed = 1;
  if (const XMLElement* a = element->FirstChildElement("apriori")) {
    const ElementReader ar = checkedReader(scene_path, a);
    keep_payloads = ar.boolean("payloads", false);
    keep_friction = ar.boolean("friction", false);
    keep_offset = ar.boolean("torque_offset", false);
    keep_armature = ar.boolean("armature", true);
    kt_scale = ar.positive("motor_constant_scale", ar.number("motor_constant_scale", 1.0));
    com_shift = ar.nonNegative("com_shift", ar.number("com_shift", 0.0));
    seed = ar.integer("seed", 1);
    // The straps at the bands' ends from a tensile test of them: what an
    // evaluation that reads the band behind them uses.
    setup.apriori_attachment_stiffness =
        ar.nonNegative("attachment_stiffness", ar.number("attachment_stiffness", 0.0));
    // The magnets' temperature coefficient from the motors' datasheets: what
    // an evaluation that corrects for the windings' heating reads.
    magnet_coefficient = ar.number("magnet_coefficient", 0.0);
    if (!(std::abs(magnet_coefficient) < 0.01)) {
      ar.failAttribute("magnet_coefficient", "must lie within +-0.01 1/K (NdFeB magnets: about -0.0012)");
    }
    // The gears' torsional stiffness from their datasheets, per N m of a
    // joint's effort limit (N m/rad per N m): what the twist is read with.
    gear_stiffness_per_effort =
        ar.nonNegative("gear_stiffness_per_effort", ar.number("gear_stiffness_per_effort", 0.0));
    if (gear_stiffness_per_effort > 0.0) {
      for (const RobotJoint& j : apriori.joints) {
        if (!j.mimic.joint.empty() || j.type == JointType::kFixed) continue;
        if (!std::isfinite(j.effort_limit) || !(j.effort_limit > 0.0)) {
          ar.failAttribute("gear_stiffness_per_effort", "needs every motorised joint's effort limit; joint '" +
                                                            j.name + "' has none (URDF <limit effort>)");
        }
      }
    }
  }
  if (keep_payloads) apriori = with_payloads;
  BasicRandomStream<std::mt19937> rng(static_cast<std::mt19937::result_type>(seed));
  const auto normal = [](BasicRandomStream<std::mt19937>& stream) { return stream.normal(); };
  for (RobotJoint& j : apriori.joints) {
    if (!keep_friction) {
      j.actuation.viscous = j.actuation.coulomb = j.actuation.static_max = j.actuation.stribeck_velocity = 0.0;
    }
    if (!keep_offset) j.actuation.torque_offset = 0.0;
    if (!keep_armature) j.actuation.armature = 0.0;
    j.actuation.motor_constant *= kt_scale;
    // The gears' datasheet stiffness, never a unit's: what an evaluation
    // that compensates the twist reads (the a-priori set is never
    // simulated, so its gears are otherwise rigid).
    if (gear_stiffness_per_effort > 0.0 && j.mimic.joint.empty() && j.type != JointType::kFixed) {
      j.actuation.gear_stiffness = gear_stiffness_per_effort * j.effort_limit;
    }
    // The a-priori set has no windings (km 0: no heating in any model the
    // evaluator builds); the coefficient is the datasheet's, never the truth's.
    j.actuation.km = 0.0;
    j.actuation.magnet_coefficient = magnet_coefficient;
  }
  for (RobotLink& l : apriori.links) {
    if (com_shift <= 0.0 || l.inertial.mass <= 0.0) continue;
    // One draw per statement: the order of a call's arguments is the
    // compiler's to choose (GCC takes the last first, as here; clang the first).
    const double dz = normal(rng), dy = normal(rng), dx = normal(rng);
    Eigen::Vector3d d(dx, dy, dz);
    d = com_shift * d.normalized();
    for (int k = 0; k < 3; ++k) l.inertial.com[k] += d[k];
  }

  // The reference motion: a CSV file or keyframes.
  // Every motion is read (so an error in any shows whichever trial runs).
  for (const XMLElement* m : children("motion")) {
    Motion motion;
    const ElementReader mr = checkedReader(scene_path, m);
    const bool has_keyframes = m->FirstChildElement("keyframe") != nullptr;
    if (mr.has("file") == has_keyframes) mr.fail("needs either a file attribute or <keyframe> children, not both");
    if (!setup.has_servo) mr.fail("needs a <servo> to follow it");
    if (mr.has("file")) {
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
        if (j < 0 || setup.compiled.joint_hinge[j] < 0) {
          throw SceneError(file + ":" + std::to_string(table.header_line) + ": column '" + name +
                           "' names no moving joint of robot '" + robot.name + "'");
        }
        column_joint.push_back(j);
      }
      // A follower's column must agree with its leader's (its column, or
      // its initial angle when the motion leaves it out) on every row; it
      // is then dropped: the coupling moves that joint.
      std::vector<int> hinges;
      std::vector<std::size_t> kept;
      for (std::size_t k = 0; k < nc; ++k) {
        const int j = column_joint[k];
        const int leader = robot.mimicLeader(j);
        if (leader < 0) {
          hinges.push_back(setup.compiled.joint_hinge[j]);
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
      motion = Motion(hinges, table.time, angles);
    } else {
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
            for (const HeldObject& h : held_in[m]) {
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
      std::vector<int> hinges;
      for (int j : joints) hinges.push_back(setup.compiled.joint_hinge[j]);
      motion = Motion::minimumJerk(hinges, times, angles);
    }
    if (m == selected_motion) setup.motion = std::move(motion);
  }

  return setup;
}

BodyForcePoint robotForcePoint(const Model& model, const RobotSetup& robot, const RobotSetup::LinkPoint& at) {
  const int body = robot.compiled.link_body[at.link];
  return bodyForcePoint(model, body, robot.compiled.link_in_body[at.link].apply(at.point));
}

}  // namespace suitsim::io
