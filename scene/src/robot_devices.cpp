// Devices and forces from outside on the robot: powered exoskeletons
// (exoskeleton.h), pushes and the balance assist (balance_assist.h).
#include "robot_reading.h"

#include <algorithm>
#include <cmath>

#include "suitsim/core/text_input.h"

namespace suitsim::io {

using tinyxml2::XMLElement;

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

void readDevices(RobotReading& in) {
  const std::string& scene_path = in.scene_path;
  SceneRobot& setup = in.setup;
  const RobotDescription& robot = in.setup.truth;
  const TrialSpec& trial = in.trial;
  const auto children = [&](const char* tag) { return in.children(tag); };
  // Powered devices (exoskeleton.h): every <exoskeleton> is read (and the
  // compile builds each, so an error shows whichever trial runs); the one
  // the trial wears (outside an experiment: the scene's only one) is kept.
  const std::vector<const XMLElement*> devices = children("exoskeleton");
  for (const XMLElement* c : devices) {
    ExoskeletonSpec spec = readExoskeleton(scene_path, c, robot);
    const ElementReader cr = checkedReader(scene_path, c);
    for (const auto& [other, line] : setup.devices) {
      if (other.name == spec.name) cr.failAttribute("name", "repeats an earlier device name");
    }
    const bool worn = trial.name.empty() ? true : trial.device == spec.name;
    if (trial.name.empty() && devices.size() > 1) {
      cr.fail("is one of several devices: outside an <experiment> a scene wears its only device (list trials that name one)");
    }
    if (worn) setup.exoskeleton = spec;
    setup.devices.emplace_back(std::move(spec), c->GetLineNum());
  }
}

void readExternalForces(RobotReading& in) {
  const std::string& scene_path = in.scene_path;
  SceneRobot& setup = in.setup;
  const RobotDescription& robot = in.setup.truth;
  const auto children = [&](const char* tag) { return in.children(tag); };
  // Forces from outside (balance_assist.h), each at a point of a link.
  const auto linkPoint = [&](const ElementReader& cr, const XMLElement* c) {
    SceneRobot::LinkPoint at;
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
    if (!in.ground.enabled) cr.fail("needs a <ground>: the balance region is the support polygon on it");
    setup.assist.emplace(linkPoint(cr, c), a);
  }

}

BodyForcePoint robotForcePoint(const Model& model, const RobotSetup& robot, const RobotSetup::LinkPoint& at) {
  const int body = robot.compiled.link_body[at.link];
  return bodyForcePoint(model, body, robot.compiled.link_in_body[at.link].apply(at.point));
}

}  // namespace suitsim::io
