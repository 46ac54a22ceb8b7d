// URDF reader. Three passes, so that errors come out in the order the style
// guide asks for (missing and malformed things first, physical checks last):
//   1. syntax: walk <link> and <joint> children of <robot>, parse every value
//      the dynamics needs, remember the elements for later messages;
//   2. the tree: resolve names, one parent per link, one root, no cycle, and
//      a depth-first order with parents before children;
//   3. physics: mass sign, inertia realisability, axes, limits, friction.
// Collision primitives are kept for excitation design's self-collision
// check (design/self_collision.h). Everything else in the file (visuals,
// <gazebo>, <transmission>, vendor attributes...) is ignored on purpose:
// URDF is extensible.
#include <tinyxml2.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "suitsim/core/inertia.h"
#include "suitsim/core/rotation.h"
#include "suitsim/scene/urdf.h"
#include "suitsim/scene/xml_reader.h"
#include "suitsim/core/number_text.h"

namespace suitsim::io {

namespace {

using tinyxml2::XMLElement;

// CAD exporters print six or so significant digits, so a thin plate's exact
// ixx + iyy = izz can come out short by up to about 2e-6 of the trace after
// rounding; this tolerance, relative to the trace, accepts that, and what it
// lets through is far below any parameter the evaluator can identify.
constexpr double kInertiaTolerance = 1e-5;

/// Located access to one element's attributes. Unlike ElementReader it does
/// not reject unknown attributes (URDF vendors add their own), but every value
/// it does read is parsed strictly, with the scene reader's message format.
class UrdfElement {
 public:
  UrdfElement(const std::string& path, const XMLElement* element) : path_(path), element_(element) {}

  [[noreturn]] void fail(const std::string& problem) const {
    std::ostringstream out;
    out << path_ << ":" << element_->GetLineNum() << ": <" << element_->Name() << "> " << problem;
    throw SceneError(out.str());
  }

  [[noreturn]] void failAttribute(const char* name, const std::string& problem) const {
    std::string message = "attribute '" + std::string(name) + "' " + problem;
    if (const char* value = element_->Attribute(name)) message += " (got '" + std::string(value) + "')";
    fail(message);
  }

  bool has(const char* name) const { return element_->Attribute(name) != nullptr; }

  std::string raw(const char* name) const {
    const char* value = element_->Attribute(name);
    return value ? value : "";
  }

  /// A required, non-empty string (names and references).
  std::string name(const char* attribute) const {
    const char* value = element_->Attribute(attribute);
    if (!value) fail("missing required attribute '" + std::string(attribute) + "'");
    if (*value == '\0') failAttribute(attribute, "must not be empty");
    return value;
  }

  double number(const char* name) const {
    if (!has(name)) fail("missing required attribute '" + std::string(name) + "'");
    double value = 0.0;
    if (!parseNumber(raw(name), &value)) failAttribute(name, "must be a finite number");
    return value;
  }

  double number(const char* name, double fallback) const { return has(name) ? number(name) : fallback; }

  Vec3 vec3(const char* name) const {
    if (!has(name)) fail("missing required attribute '" + std::string(name) + "'");
    std::istringstream in(raw(name));
    std::vector<std::string> parts;
    std::string part;
    while (in >> part) parts.push_back(part);
    Vec3 v{};
    if (parts.size() != 3) failAttribute(name, "must be three finite numbers");
    for (int k = 0; k < 3; ++k) {
      if (!parseNumber(parts[k], &v[k])) failAttribute(name, "must be three finite numbers");
    }
    return v;
  }

  Vec3 vec3(const char* name, const Vec3& fallback) const { return has(name) ? vec3(name) : fallback; }

  int line() const { return element_->GetLineNum(); }

 private:
  std::string path_;
  const XMLElement* element_;
};

/// The child <tag> of `parent`, or nullptr when absent and not required.
/// urdfdom silently takes the first of repeated elements; for elements that
/// carry dynamics that would hide a mistake, so a repeat is an error here.
const XMLElement* single(const std::string& path, const XMLElement* parent, const char* tag, bool required) {
  const XMLElement* first = parent->FirstChildElement(tag);
  if (!first) {
    if (required) UrdfElement(path, parent).fail("missing required element <" + std::string(tag) + ">");
    return nullptr;
  }
  if (const XMLElement* second = first->NextSiblingElement(tag)) {
    UrdfElement(path, second)
        .fail("may appear only once inside <" + std::string(parent->Name()) + "> (first at line " +
              std::to_string(first->GetLineNum()) + ")");
  }
  return first;
}

bool parseJointType(const std::string& s, JointType* out) {
  static const std::map<std::string, JointType> kTypes = {
      {"revolute", JointType::kRevolute}, {"continuous", JointType::kContinuous}, {"prismatic", JointType::kPrismatic},
      {"fixed", JointType::kFixed},       {"floating", JointType::kFloating},     {"planar", JointType::kPlanar}};
  const auto it = kTypes.find(s);
  if (it == kTypes.end()) return false;
  *out = it->second;
  return true;
}

bool isMovable(JointType type) {
  return type == JointType::kRevolute || type == JointType::kContinuous || type == JointType::kPrismatic;
}

/// Eigenvalues of a symmetric 3x3 matrix, ascending (closed form via the
/// characteristic cubic's trigonometric solution; ample accuracy for checks).
std::array<double, 3> symmetricEigenvalues(const Eigen::Matrix3d& a) {
  const double off = a(0, 1) * a(0, 1) + a(0, 2) * a(0, 2) + a(1, 2) * a(1, 2);
  std::array<double, 3> e{};
  if (off == 0.0) {
    e = {a(0, 0), a(1, 1), a(2, 2)};
  } else {
    const double q = (a(0, 0) + a(1, 1) + a(2, 2)) / 3.0;
    const double d0 = a(0, 0) - q, d1 = a(1, 1) - q, d2 = a(2, 2) - q;
    const double p = std::sqrt((d0 * d0 + d1 * d1 + d2 * d2 + 2.0 * off) / 6.0);
    // B = (A - qI) / p has eigenvalues 2 cos(phi + 2 pi k / 3), det(B) = 2 cos(3 phi).
    const double det = d0 * (d1 * d2 - a(1, 2) * a(1, 2)) - a(0, 1) * (a(0, 1) * d2 - a(1, 2) * a(0, 2)) +
                       a(0, 2) * (a(0, 1) * a(1, 2) - d1 * a(0, 2));
    const double r = std::clamp(det / (2.0 * p * p * p), -1.0, 1.0);
    const double phi = std::acos(r) / 3.0;
    const double largest = q + 2.0 * p * std::cos(phi);
    const double smallest = q + 2.0 * p * std::cos(phi + 2.0 * std::numbers::pi / 3.0);
    e = {smallest, 3.0 * q - largest - smallest, largest};
  }
  std::sort(e.begin(), e.end());
  return e;
}

// ---------------------------------------------------------------------------
// Pass 1 results: parsed values plus the elements to blame later.

struct LinkSource {
  RobotLink link;
  const XMLElement* element = nullptr;
  const XMLElement* mass = nullptr;            // <mass>, if the link has <inertial>
  const XMLElement* inertia = nullptr;         // <inertia>, same
  std::array<double, 6> inertia_as_written{};  // before the <origin rpy> rotation
};

struct JointSource {
  RobotJoint joint;
  const XMLElement* element = nullptr;
  const XMLElement* parent = nullptr;
  const XMLElement* child = nullptr;
  const XMLElement* axis = nullptr;
  const XMLElement* limit = nullptr;
  const XMLElement* dynamics = nullptr;
  const XMLElement* mimic = nullptr;
  std::string parent_name, child_name;
};

/// A <collision>: its origin and, for a sphere, cylinder or box, the
/// primitive's dimensions (each a finite number >= 0); anything else (a
/// mesh, a vendor's shape, no <geometry>) is kept as kOther with its name.
CollisionShape readCollision(const std::string& path, const XMLElement* e) {
  CollisionShape shape;
  if (const XMLElement* origin = single(path, e, "origin", false)) {
    const UrdfElement o(path, origin);
    shape.origin_xyz = o.vec3("xyz", {0.0, 0.0, 0.0});
    shape.origin_rpy = o.vec3("rpy", {0.0, 0.0, 0.0});
  }
  const XMLElement* geometry = single(path, e, "geometry", false);
  const XMLElement* g = geometry ? geometry->FirstChildElement() : nullptr;
  if (!g) return shape;
  shape.geometry = g->Name();
  const UrdfElement r(path, g);
  auto dimension = [&](const char* name) {
    const double v = r.number(name);
    if (v < 0.0) r.failAttribute(name, "must be >= 0");
    return v;
  };
  if (shape.geometry == "sphere") {
    shape.kind = CollisionShape::Kind::kSphere;
    shape.radius = dimension("radius");
  } else if (shape.geometry == "cylinder") {
    shape.kind = CollisionShape::Kind::kCylinder;
    shape.radius = dimension("radius");
    shape.length = dimension("length");
  } else if (shape.geometry == "box") {
    shape.kind = CollisionShape::Kind::kBox;
    shape.size = r.vec3("size");
    for (double v : shape.size) {
      if (v < 0.0) r.failAttribute("size", "must be three numbers >= 0");
    }
  }
  return shape;
}

LinkSource readLink(const std::string& path, const XMLElement* e) {
  LinkSource src;
  src.element = e;
  src.link.name = UrdfElement(path, e).name("name");
  src.link.source = path + ":" + std::to_string(e->GetLineNum());
  for (const XMLElement* c = e->FirstChildElement("collision"); c; c = c->NextSiblingElement("collision")) {
    src.link.collision.push_back(readCollision(path, c));
  }
  // No <inertial>: a massless frame link (JVRC-1's base_link is one).
  const XMLElement* inertial = single(path, e, "inertial", false);
  if (!inertial) return src;

  Vec3 rpy{0.0, 0.0, 0.0};
  if (const XMLElement* origin = single(path, inertial, "origin", false)) {
    const UrdfElement r(path, origin);
    src.link.inertial.com = r.vec3("xyz", {0.0, 0.0, 0.0});
    rpy = r.vec3("rpy", {0.0, 0.0, 0.0});
  }
  src.mass = single(path, inertial, "mass", true);
  src.link.inertial.mass = UrdfElement(path, src.mass).number("value");
  // urdfdom requires all six components; so do we.
  src.inertia = single(path, inertial, "inertia", true);
  // Inertia problems found when the link is compiled point here.
  src.link.source = path + ":" + std::to_string(src.inertia->GetLineNum());
  const UrdfElement r(path, src.inertia);
  src.inertia_as_written = {r.number("ixx"), r.number("iyy"), r.number("izz"),
                            r.number("ixy"), r.number("ixz"), r.number("iyz")};
  // <origin rpy> turns the inertia axes; fold it in so the description
  // always holds link-frame axes: I_link = R I R^T.
  src.link.inertial.inertia = rotateInertia(src.inertia_as_written, rotationFromRpy(rpy));
  return src;
}

JointSource readJoint(const std::string& path, const XMLElement* e) {
  JointSource src;
  src.element = e;
  RobotJoint& joint = src.joint;
  const UrdfElement r(path, e);
  joint.name = r.name("name");
  joint.source = path + ":" + std::to_string(e->GetLineNum());
  const std::string type = r.name("type");
  if (!parseJointType(type, &joint.type)) {
    r.failAttribute("type", "must be revolute, continuous, prismatic, fixed, floating or planar");
  }

  if (const XMLElement* origin = single(path, e, "origin", false)) {
    const UrdfElement o(path, origin);
    joint.origin_xyz = o.vec3("xyz", {0.0, 0.0, 0.0});
    joint.origin_rpy = o.vec3("rpy", {0.0, 0.0, 0.0});
  }
  src.parent = single(path, e, "parent", true);
  src.parent_name = UrdfElement(path, src.parent).name("link");
  src.child = single(path, e, "child", true);
  src.child_name = UrdfElement(path, src.child).name("link");

  // As urdfdom: fixed and floating joints have no axis, so theirs is not read.
  if (joint.type != JointType::kFixed && joint.type != JointType::kFloating) {
    src.axis = single(path, e, "axis", false);
    if (src.axis) joint.axis = UrdfElement(path, src.axis).vec3("xyz");
  }

  if (isMovable(joint.type)) {
    // The URDF spec (and urdfdom) require <limit effort velocity> for
    // revolute and prismatic joints; for continuous ones it is optional.
    const bool bounded = joint.type != JointType::kContinuous;
    src.limit = single(path, e, "limit", false);
    if (!src.limit && bounded) {
      r.fail("of type '" + type + "' requires a <limit> element with effort and velocity (URDF spec)");
    }
    if (src.limit) {
      const UrdfElement l(path, src.limit);
      joint.effort_limit = l.number("effort");
      joint.velocity_limit = l.number("velocity");
      if (bounded) {  // continuous joints ignore lower/upper, as in the spec
        joint.lower = l.number("lower", 0.0);
        joint.upper = l.number("upper", 0.0);
      }
    }
    src.dynamics = single(path, e, "dynamics", false);
    if (src.dynamics) {
      const UrdfElement d(path, src.dynamics);
      // A(7): URDF damping is the viscous k_d, friction the Coulomb tau_c;
      // URDF has no separate static level, so tau_s^max = tau_c.
      joint.actuation.viscous = d.number("damping", 0.0);
      joint.actuation.coulomb = d.number("friction", 0.0);
      joint.actuation.static_max = joint.actuation.coulomb;
    }
    src.mimic = single(path, e, "mimic", false);
    if (src.mimic) {
      // q = multiplier q_leader + offset; URDF's defaults are 1 and 0.
      const UrdfElement m(path, src.mimic);
      joint.mimic.joint = m.name("joint");
      joint.mimic.multiplier = m.number("multiplier", 1.0);
      joint.mimic.offset = m.number("offset", 0.0);
    }
  }
  return src;
}

// ---------------------------------------------------------------------------
// Pass 3: physical checks, on values already parsed.

void checkInertial(const std::string& path, const LinkSource& src) {
  if (!src.mass) return;
  const UrdfElement mass(path, src.mass);
  const double m = src.link.inertial.mass;
  if (m < 0.0) mass.failAttribute("value", "must be >= 0");
  if (m == 0.0) return;  // a massless link's inertia is never used

  const UrdfElement inertia(path, src.inertia);
  const std::array<double, 6>& i = src.inertia_as_written;
  auto got = [&] {
    return "(got ixx='" + inertia.raw("ixx") + "' iyy='" + inertia.raw("iyy") + "' izz='" + inertia.raw("izz") +
           "' ixy='" + inertia.raw("ixy") + "' ixz='" + inertia.raw("ixz") + "' iyz='" + inertia.raw("iyz") + "')";
  };
  const double scale = std::abs(i[0]) + std::abs(i[1]) + std::abs(i[2]);
  // Moments near the largest double overflow every check below (their sum is
  // infinite, so is the tolerance): no body has them.
  if (!std::isfinite(scale)) inertia.fail("has moments too large to be a body's " + got());
  const double tol = kInertiaTolerance * scale;
  // The diagonal as written first, so the message can name the attributes.
  static const char* kNames[3] = {"ixx", "iyy", "izz"};
  for (int k = 0; k < 3; ++k) {
    if (i[k] < -tol) inertia.failAttribute(kNames[k], "must be >= 0 when the mass is > 0");
  }
  for (int k = 0; k < 3; ++k) {
    const int a = (k + 1) % 3, b = (k + 2) % 3;
    if (i[a] + i[b] < i[k] - tol) {
      inertia.fail("violates the triangle inequality " + std::string(kNames[a]) + " + " + kNames[b] +
                   " >= " + kNames[k] + " " + got());
    }
  }
  // Then rotation-invariant: a real body has principal moments that are
  // non-negative and obey the triangle inequality (the diagonal check above
  // is only necessary in the written axes).
  const std::array<double, 3> p = symmetricEigenvalues(inertiaMatrix(i));
  const std::string moments =
      "principal moments " + significantText(p[0], 9) + ", " + significantText(p[1], 9) + ", " + significantText(p[2], 9);
  if (p[0] < -tol) inertia.fail("is not positive semi-definite: " + moments + " " + got());
  if (p[0] + p[1] < p[2] - tol) inertia.fail("violates the triangle inequality: " + moments + " " + got());
}

void checkJoint(const std::string& path, JointSource& src) {
  RobotJoint& joint = src.joint;
  if (src.axis) {
    // Scaled by the largest component first: the direction of (1e200, 0, 0)
    // is x, though its squared length overflows.
    const double big = std::max({std::abs(joint.axis[0]), std::abs(joint.axis[1]), std::abs(joint.axis[2])});
    if (!(big > 1e-12) || !std::isfinite(big)) {
      UrdfElement(path, src.axis).failAttribute("xyz", "must be a non-zero vector of finite length");
    }
    for (double& c : joint.axis) c /= big;
    const double n =
        std::sqrt(joint.axis[0] * joint.axis[0] + joint.axis[1] * joint.axis[1] + joint.axis[2] * joint.axis[2]);
    for (double& c : joint.axis) c /= n;
  }
  if (src.limit) {
    const UrdfElement l(path, src.limit);
    if (joint.effort_limit < 0.0) l.failAttribute("effort", "must be >= 0");
    if (joint.velocity_limit < 0.0) l.failAttribute("velocity", "must be >= 0");
    if (joint.lower > joint.upper) {
      l.fail("attribute 'lower' must not exceed 'upper' (got lower='" + l.raw("lower") + "' upper='" + l.raw("upper") +
             "')");
    }
  }
  if (src.dynamics) {
    const UrdfElement d(path, src.dynamics);
    if (joint.actuation.viscous < 0.0) d.failAttribute("damping", "must be >= 0");
    if (joint.actuation.coulomb < 0.0) d.failAttribute("friction", "must be >= 0");
  }
}

// ---------------------------------------------------------------------------

// A URDF's links and joints as read, in file order, and the tree they form.
struct UrdfParts {
  std::vector<LinkSource> links;
  std::vector<JointSource> joints;
  std::map<std::string, int> link_index, joint_index;
  std::vector<int> parent_of, child_of;  // each joint's parent and child link (file indices)
  std::vector<int> parent_joint_of;      // each link's parent joint, -1: none
  std::vector<int> roots;
  std::vector<int> link_order, joint_order;  // tree order
  int numLinks() const { return static_cast<int>(links.size()); }
  int numJoints() const { return static_cast<int>(joints.size()); }
};

// Pass 1: syntax. Only direct children count: <link>/<joint> nested in
// <gazebo>, <transmission>, <sensor> or <ros2_control> mean other things.
void readParts(const std::string& path, const XMLElement* root, UrdfParts& u) {
  for (const XMLElement* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string tag = e->Name();
    if (tag == "link") {
      u.links.push_back(readLink(path, e));
      const auto [it, inserted] = u.link_index.emplace(u.links.back().link.name, static_cast<int>(u.links.size()) - 1);
      if (!inserted) {
        UrdfElement(path, e).failAttribute("name", "repeats an earlier link name (line " +
                                                       std::to_string(u.links[it->second].element->GetLineNum()) + ")");
      }
    } else if (tag == "joint") {
      u.joints.push_back(readJoint(path, e));
      const auto [it, inserted] = u.joint_index.emplace(u.joints.back().joint.name, static_cast<int>(u.joints.size()) - 1);
      if (!inserted) {
        UrdfElement(path, e).failAttribute("name", "repeats an earlier joint name (line " +
                                                       std::to_string(u.joints[it->second].element->GetLineNum()) + ")");
      }
    }
  }
}

// Pass 2: each joint's parent and child, and its mimic's leader, named.
void connectJoints(const std::string& path, UrdfParts& u) {
  const int num_joints = u.numJoints();
  u.parent_of.resize(num_joints);
  u.child_of.resize(num_joints);
  u.parent_joint_of.assign(u.numLinks(), -1);
  for (int j = 0; j < num_joints; ++j) {
    JointSource& src = u.joints[j];
    const auto p = u.link_index.find(src.parent_name);
    if (p == u.link_index.end()) UrdfElement(path, src.parent).failAttribute("link", "names no <link> of this robot");
    const auto c = u.link_index.find(src.child_name);
    if (c == u.link_index.end()) UrdfElement(path, src.child).failAttribute("link", "names no <link> of this robot");
    if (p->second == c->second) {
      UrdfElement(path, src.element).fail("has the same link as parent and child (got '" + src.child_name + "')");
    }
    if (u.parent_joint_of[c->second] >= 0) {
      const JointSource& first = u.joints[u.parent_joint_of[c->second]];
      UrdfElement(path, src.child)
          .failAttribute("link", "is already the child of joint '" + first.joint.name + "' (line " +
                                     std::to_string(first.element->GetLineNum()) +
                                     "); a link has at most one parent joint");
    }
    u.parent_of[j] = p->second;
    u.child_of[j] = c->second;
    u.parent_joint_of[c->second] = j;
    if (src.mimic) {
      const UrdfElement m(path, src.mimic);
      if (!u.joint_index.count(src.joint.mimic.joint)) m.failAttribute("joint", "names no <joint> of this robot");
      if (src.joint.mimic.joint == src.joint.name) m.failAttribute("joint", "must name another joint");
    }
  }
}

// The leader of a mimic joint must move, and must not be a mimic itself:
// a chain would be one coupling with the multipliers combined, and saying
// so keeps every follower's torque the work of one coupling.
void checkMimicLeaders(const std::string& path, const UrdfParts& u) {
  for (const JointSource& src : u.joints) {
    if (!src.mimic) continue;
    const UrdfElement m(path, src.mimic);
    const JointSource& leader = u.joints[u.joint_index.at(src.joint.mimic.joint)];
    if (!isMovable(leader.joint.type)) {
      m.failAttribute("joint", "names a joint of type '" + std::string(jointTypeName(leader.joint.type)) +
                                   "' (line " + std::to_string(leader.element->GetLineNum()) +
                                   "); a mimic follows a revolute, continuous or prismatic joint");
    }
    if (leader.mimic) {
      m.failAttribute("joint", "names a joint that itself mimics '" + leader.joint.mimic.joint + "' (line " +
                                   std::to_string(leader.mimic->GetLineNum()) +
                                   "); chains are not supported: name '" + leader.joint.mimic.joint +
                                   "' with the multipliers combined");
    }
  }
}

// Exactly one root link: the one no joint has as its child.
void findRoot(const std::string& path, UrdfParts& u) {
  for (int l = 0; l < u.numLinks(); ++l) {
    if (u.parent_joint_of[l] < 0) u.roots.push_back(l);
  }
  if (u.roots.size() > 1) {
    const LinkSource& first = u.links[u.roots[0]];
    UrdfElement(path, u.links[u.roots[1]].element)
        .failAttribute("name", "is a second root link: no joint has it as <child>, and '" + first.link.name +
                                   "' (line " + std::to_string(first.element->GetLineNum()) +
                                   ") is a root already; a robot has exactly one root");
  }
}

// Depth-first, siblings in file order: joint k's child becomes link k + 1.
void orderTree(const std::string& path, UrdfParts& u) {
  const int num_links = u.numLinks(), num_joints = u.numJoints();
  std::vector<std::vector<int>> child_joints(num_links);
  for (int j = 0; j < num_joints; ++j) child_joints[u.parent_of[j]].push_back(j);
  if (!u.roots.empty()) {
    u.link_order.push_back(u.roots[0]);
    std::vector<int> stack(child_joints[u.roots[0]].rbegin(), child_joints[u.roots[0]].rend());
    while (!stack.empty()) {
      const int j = stack.back();
      stack.pop_back();
      u.joint_order.push_back(j);
      u.link_order.push_back(u.child_of[j]);
      stack.insert(stack.end(), child_joints[u.child_of[j]].rbegin(), child_joints[u.child_of[j]].rend());
    }
  }
  if (static_cast<int>(u.link_order.size()) < num_links) {
    // Some links are unreachable from the root: every one has a parent, so
    // walking up from one must end in a cycle. Find it and name it.
    std::vector<bool> reached(num_links, false), seen(num_links, false);
    for (int l : u.link_order) reached[l] = true;
    int l = 0;
    while (reached[l]) ++l;
    while (!seen[l]) {
      seen[l] = true;
      l = u.parent_of[u.parent_joint_of[l]];
    }
    // Collected walking up (child to parent); printed parent to child,
    // ending where it started.
    std::vector<int> cycle;
    int c = l;
    do {
      cycle.push_back(c);
      c = u.parent_of[u.parent_joint_of[c]];
    } while (c != l);
    std::string names;
    for (auto it = cycle.rbegin(); it != cycle.rend(); ++it) names += "'" + u.links[*it].link.name + "' -> ";
    names += "'" + u.links[cycle.back()].link.name + "'";
    // Blame the joint of the last arrow, the one that leads back to the start.
    const JointSource& closing = u.joints[u.parent_joint_of[cycle.back()]];
    UrdfElement(path, closing.element)
        .failAttribute("name", "closes a cycle of links " + names + "; the links must form a tree");
  }
}

// The description in tree order: joint k's child is link k + 1.
void assemble(UrdfParts& u, RobotDescription& out) {
  const int num_links = u.numLinks(), num_joints = u.numJoints();
  std::vector<int> new_link(num_links), new_joint(num_joints);
  for (int k = 0; k < num_links; ++k) new_link[u.link_order[k]] = k;
  for (int k = 0; k < num_joints; ++k) new_joint[u.joint_order[k]] = k;
  for (int l : u.link_order) {
    RobotLink link = std::move(u.links[l].link);
    link.parent_joint = u.parent_joint_of[l] < 0 ? -1 : new_joint[u.parent_joint_of[l]];
    out.links.push_back(std::move(link));
  }
  for (int j : u.joint_order) {
    RobotJoint joint = std::move(u.joints[j].joint);
    joint.parent_link = new_link[u.parent_of[j]];
    joint.child_link = new_link[u.child_of[j]];
    out.joints.push_back(std::move(joint));
  }
}

RobotDescription readRobot(const tinyxml2::XMLDocument& doc, const std::string& path) {
  const XMLElement* root = doc.RootElement();
  const UrdfElement robot(path, root);
  if (std::string(root->Name()) != "robot") {
    robot.fail("the root element must be <robot> (got '" + std::string(root->Name()) + "')");
  }
  // tinyxml2 accepts several top-level elements; XML (and URDF) has one.
  if (const XMLElement* extra = root->NextSiblingElement()) {
    UrdfElement(path, extra).fail("is a second top-level element; everything belongs inside <robot>");
  }
  RobotDescription out;
  out.name = robot.name("name");
  UrdfParts u;
  readParts(path, root, u);
  if (u.links.empty()) robot.fail("has no <link> elements");
  connectJoints(path, u);
  checkMimicLeaders(path, u);
  findRoot(path, u);
  orderTree(path, u);
  // Pass 3: physics.
  for (const LinkSource& src : u.links) checkInertial(path, src);
  for (JointSource& src : u.joints) checkJoint(path, src);
  assemble(u, out);
  out.root_link = 0;
  out.floating_base = true;  // a humanoid; the scene may weld it
  return out;
}

}  // namespace

RobotDescription loadUrdf(const std::string& path) {
  tinyxml2::XMLDocument doc;
  loadXml(path, doc);
  return readRobot(doc, path);
}

RobotDescription parseUrdf(const std::string& xml_text, const std::string& name_for_errors) {
  tinyxml2::XMLDocument doc;
  checkLineLengths(name_for_errors, xml_text);
  const tinyxml2::XMLError err = doc.Parse(xml_text.c_str(), xml_text.size());
  // The text counterpart of loadXml's checks, in the same message format.
  if (err == tinyxml2::XML_ERROR_EMPTY_DOCUMENT || (err == tinyxml2::XML_SUCCESS && !doc.RootElement())) {
    throw SceneError(name_for_errors + ":1: malformed XML: no element (expected <robot>)");
  }
  if (err != tinyxml2::XML_SUCCESS) {
    throw SceneError(name_for_errors + ":" + std::to_string(std::max(1, doc.ErrorLineNum())) + ": malformed XML (" +
                     doc.ErrorStr() + ")");
  }
  checkStrictXml(name_for_errors, doc);
  return readRobot(doc, name_for_errors);
}

}  // namespace suitsim::io
