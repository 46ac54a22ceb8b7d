// Reading a scene's <robot> element: the orchestration of its stages
// (robot_reading.h) and the stages that make the true robot's structure:
// the URDF or inline links, the pose, initial angles, frozen and mimic
// joints, actuation, payloads, held objects, contact points and the servo.
#include "robot_reading.h"

#include "suitsim/core/inertia.h"
#include "suitsim/core/rotation.h"
#include "suitsim/core/text_input.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "suitsim/scene/urdf.h"

namespace suitsim::io {

using tinyxml2::XMLElement;

namespace {

/// A <payload> (cables, electronics the URDF leaves out) weighs at most this
/// many times the robot it is on. Far above anything carried (a robot
/// carries a fraction of its own mass), so only typos are refused.
constexpr double kMaxPayloadPerRobotMass = 1e3;

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


/// A link's mass, com and inertia="ixx iyy izz ixy ixz iyz" (about the
/// centre of mass, link axes; URDF meanings) from `lr`: for an inline
/// <link> and for <inertial>, which replaces a URDF link's.
static void readInertial(const ElementReader& lr, LinkInertial* inertial) {
  inertial->mass = lr.nonNegative("mass", lr.number("mass", 0.0));
  inertial->com = lr.vec3("com", {0.0, 0.0, 0.0});
  if (lr.has("inertia")) {
    const std::vector<std::string> v = words(lr.text("inertia"));
    if (v.size() != 6) lr.failAttribute("inertia", "must be six numbers: ixx iyy izz ixy ixz iyz");
    for (int k = 0; k < 6; ++k) {
      if (!parseNumber(v[k], &inertial->inertia[k])) lr.failAttribute("inertia", "must be six finite numbers");
    }
    const auto& i = inertial->inertia;
    if (i[0] < 0.0 || i[1] < 0.0 || i[2] < 0.0 || i[0] + i[1] < i[2] || i[1] + i[2] < i[0] || i[0] + i[2] < i[1]) {
      lr.failAttribute("inertia", "is not a physical inertia (diagonal >= 0, each at most the sum of the others)");
    }
  } else if (inertial->mass > 0.0) {
    lr.fail("missing attribute 'inertia' (a link with mass needs one)");
  }
}

/// A robot written in the scene: <link name mass com inertia="ixx iyy izz
/// ixy ixz iyz"/> (inertia about the centre of mass, link axes) and <joint
/// name type parent child xyz rpy axis lower upper effort velocity/>, with
/// the meanings and defaults of URDF.
static RobotDescription readInlineRobot(const std::string& path, const XMLElement* element) {
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
    readInertial(lr, &link.inertial);
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

std::vector<const XMLElement*> RobotReading::children(const char* tag) const {
  std::vector<const XMLElement*> out;
  for (const XMLElement* c = element->FirstChildElement(tag); c; c = c->NextSiblingElement(tag)) out.push_back(c);
  return out;
}

namespace {

// The robot (URDF or inline), its base, the compile options and the pose;
// initial angles, frozen joints and <mimic> couplings.
void readStructure(RobotReading& in) {
  const std::string& scene_path = in.scene_path;
  const XMLElement* element = in.element;
  const ElementReader& r = in.r;
  SceneRobot& setup = in.setup;
  RobotCompileOptions& options = in.setup.compile_options;
  RobotPose& pose = in.pose;
  const GroundModel& ground = in.ground;
  const auto children = [&](const char* tag) { return in.children(tag); };
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
  // <inertial link>: what the scene knows better than the robot's file (a
  // link the URDF gives as a point mass, which a particle cluster cannot
  // be). Truth and a-priori set alike: it is the robot as described.
  for (const XMLElement* c : children("inertial")) {
    const ElementReader cr = checkedReader(scene_path, c);
    const int l = robot.findLink(cr.text("link"));
    if (l < 0) cr.failAttribute("link", "names no link of the robot ('" + cr.text("link") + "')");
    LinkInertial inertial;
    readInertial(cr, &inertial);
    robot.links[l].inertial = inertial;
    robot.links[l].source = scene_path + ":" + std::to_string(c->GetLineNum());
  }
  const std::string base = r.text("base", "floating");
  if (base != "floating" && base != "fixed") r.failAttribute("base", "must be floating or fixed");
  robot.floating_base = base == "floating";

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
  pose.base_position = r.vec3("pos", {0.0, 0.0, 0.0});
  pose.base_rpy = r.vec3("rpy", {0.0, 0.0, 0.0});
  pose.joint_angles.assign(robot.joints.size(), 0.0);
  // Without an explicit height a floating robot stands on the ground.
  const bool explicit_height = r.has("pos");
  if (ground.enabled && robot.floating_base && !explicit_height) {
    pose.place_on_ground = true;
    pose.ground_normal = ground.normal;
    pose.ground_offset = ground.offset;
  }

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

}

void readActuation(RobotReading& in) {
  const std::string& scene_path = in.scene_path;
  RobotDescription& robot = in.setup.truth;
  const auto children = [&](const char* tag) { return in.children(tag); };
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

}

// Payloads, the trial's motion and the objects it holds.
void readPayloads(RobotReading& in) {
  const std::string& scene_path = in.scene_path;
  SceneRobot& setup = in.setup;
  RobotDescription& robot = in.setup.truth;
  const TrialSpec& trial = in.trial;
  const auto children = [&](const char* tag) { return in.children(tag); };
  // Payloads: mass the URDF does not know about (cables, electronics).
  // Cables and electronics weigh less than the robot: a mass a thousand
  // times the robot's (a typo, 1e308) would otherwise surface only when the
  // particle model is built, blamed on a spring of <robot>; and a radius
  // whose inertia overflows, as a flat body. Both are refused here, at the
  // payload's line (docs/scene-format.md).
  in.without_payloads = robot;
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
  in.with_payloads = robot;

  // The trial's motion (named in an experiment; otherwise the only one).
  for (const XMLElement* m : children("motion")) {
    const char* name = m->Attribute("name");
    if (trial.name.empty() || (name && trial.motion == name)) in.selected_motion = m;
  }

  // Objects held during a motion: known mass the experimenter added (A §5.1:
  // 0.5 kg per hand while bending). Every motion's are checked; the chosen
  // motion's are added to the true links and remembered for the evaluator.
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
      in.held_in[m].push_back(held);
      if (m != in.selected_motion) continue;
      addPayload(robot.links[l].inertial, held.mass, held.com, held.radius);
      setup.held.push_back(held);
    }
  }

}

void readContacts(RobotReading& in) {
  const std::string& scene_path = in.scene_path;
  SceneRobot& setup = in.setup;
  RobotDescription& robot = in.setup.truth;
  RobotPose& pose = in.pose;
  const auto children = [&](const char* tag) { return in.children(tag); };
  std::vector<ContactPoint>& contacts = in.contacts;
  // Contact points.
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
  pose.ground_normal = in.ground.normal;
  pose.ground_offset = in.ground.offset;
  setup.initial_pose = pose;

}

void readServo(RobotReading& in) {
  const std::string& scene_path = in.scene_path;
  SceneRobot& setup = in.setup;
  const RobotDescription& robot = in.setup.truth;
  const auto children = [&](const char* tag) { return in.children(tag); };
  // Servo gains per joint (the compile puts them on the hinges), and its rate.
  setup.joint_gains.assign(robot.joints.size(), ServoGains{});
  setup.joint_gain_line.assign(robot.joints.size(), 0);
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
        setup.joint_gains[j] = g;
        setup.joint_gain_line[j] = c->GetLineNum();
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
  // The leader's motor moves its followers: gains named for a follower are
  // accepted when they are its leader's (after every <servo>), refused
  // otherwise with both.
  for (const FollowerGains& fg : follower_gains) {
    const int leader = robot.mimicLeader(fg.joint);
    const ServoGains& lg = setup.joint_gains[leader];
    if (!agreesWithCoupling(fg.gains.kp, lg.kp, 0.0) || !agreesWithCoupling(fg.gains.kd, lg.kd, 0.0)) {
      std::ostringstream out;
      out.precision(12);
      out << "names joint '" << robot.joints[fg.joint].name << "', which mimics '" << robot.joints[leader].name
          << "' (URDF <mimic>): it has no motor, its leader's moves it, so its gains must be the leader's; given kp "
          << fg.gains.kp << ", kd " << fg.gains.kd << ", the leader's kp " << lg.kp << ", kd " << lg.kd;
      checkedReader(scene_path, fg.element).failAttribute("joints", out.str());
    }
  }

}

}  // namespace

SceneRobot readRobot(const std::string& scene_path, const XMLElement* element, const GroundModel& ground,
                     const TrialSpec& trial, const SimulationSettings& simulation, const SceneOverrides& overrides,
                     const Realism& realism) {
  RobotReading in{scene_path, element, checkedReader(scene_path, element), trial, simulation, overrides, realism,
                  ground};
  readStructure(in);
  readActuation(in);
  readPayloads(in);
  readContacts(in);
  readBands(in);
  drawBandRealism(in);   // the suit as worn
  drawJointRealism(in);  // gears, windings
  readDevices(in);
  readServo(in);
  readRobotSensors(in);
  drawSensorChain(in);
  readExternalForces(in);
  readApriori(in);
  readMotions(in);
  return std::move(in.setup);
}

}  // namespace suitsim::io
