#include "scene_schema.h"

#include <span>
#include <vector>

#include "suitsim/scene/scene.h"

namespace suitsim::io {

namespace {

using tinyxml2::XMLElement;

// The format as a table. loadScene checks a file in passes over it so that
// the first error reported is the most basic one (STYLE.md, Errors): unknown
// elements and attributes, then missing ones, then wrong counts and
// malformed values, and only then references and physical checks. A typo
// such as `stifness` is thus reported as itself, never as "missing
// stiffness" or as a complaint about some later element.
enum class ValueKind { kText, kNumber, kInteger, kBoolean, kVec3, kInt2, kInt3 };

struct AttributeRule {
  const char* name;
  ValueKind kind;
  bool required;
};

struct ElementRule {
  const char* tag;
  std::span<const AttributeRule> attributes;
  bool single;                             // may appear at most once
  std::span<const ElementRule> children;  // allowed child elements (none: a leaf)
};

constexpr AttributeRule kSimulationAttributes[] = {
    {"integrator", ValueKind::kText, true},    {"dt", ValueKind::kNumber, true},
    {"duration", ValueKind::kNumber, true},    {"output_rate", ValueKind::kNumber, false},
    {"threads", ValueKind::kInteger, false},    {"arithmetic", ValueKind::kText, false},
};
constexpr AttributeRule kWorldAttributes[] = {{"gravity", ValueKind::kVec3, false}};
constexpr AttributeRule kGroundAttributes[] = {
    {"normal", ValueKind::kVec3, false},
    {"height", ValueKind::kNumber, false},
    {"stiffness", ValueKind::kNumber, true},
    {"damping", ValueKind::kNumber, false},
    {"mu_static", ValueKind::kNumber, false},
    {"mu_kinetic", ValueKind::kNumber, false},
    {"friction_stiffness", ValueKind::kNumber, false},
    {"friction_damping", ValueKind::kNumber, false},
    {"stick_speed", ValueKind::kNumber, false},
};
constexpr AttributeRule kParticleAttributes[] = {
    {"name", ValueKind::kText, true},      {"pos", ValueKind::kVec3, true},       {"vel", ValueKind::kVec3, false},
    {"mass", ValueKind::kNumber, true},    {"fixed", ValueKind::kBoolean, false}, {"contact", ValueKind::kBoolean, false},
    {"force", ValueKind::kVec3, false},
};
constexpr AttributeRule kSpringAttributes[] = {
    {"name", ValueKind::kText, false},     {"a", ValueKind::kText, true},          {"b", ValueKind::kText, true},
    {"stiffness", ValueKind::kNumber, true}, {"damping", ValueKind::kNumber, false},
    {"rest_length", ValueKind::kNumber, false},
};
constexpr AttributeRule kClothAttributes[] = {
    {"name", ValueKind::kText, true},         {"origin", ValueKind::kVec3, true},
    {"u", ValueKind::kVec3, false},           {"v", ValueKind::kVec3, false},
    {"count", ValueKind::kInt2, true},        {"spacing", ValueKind::kNumber, true},
    {"mass", ValueKind::kNumber, true},       {"stiffness", ValueKind::kNumber, true},
    {"bend_stiffness", ValueKind::kNumber, false}, {"damping", ValueKind::kNumber, false},
    {"pin", ValueKind::kText, false},         {"contact", ValueKind::kBoolean, false},
};
constexpr AttributeRule kBlockAttributes[] = {
    {"name", ValueKind::kText, true},     {"origin", ValueKind::kVec3, true},    {"count", ValueKind::kInt3, true},
    {"spacing", ValueKind::kNumber, true}, {"mass", ValueKind::kNumber, true},    {"stiffness", ValueKind::kNumber, true},
    {"damping", ValueKind::kNumber, false}, {"vel", ValueKind::kVec3, false},     {"contact", ValueKind::kBoolean, false},
};
constexpr AttributeRule kRecordAttributes[] = {
    {"particle", ValueKind::kText, false},
    {"spring", ValueKind::kText, false},
    {"body", ValueKind::kText, false},
    {"quantity", ValueKind::kText, true},
};

// <robot> and what it holds (see robot_scene.cpp for their meaning).
constexpr AttributeRule kRobotAttributes[] = {
    {"name", ValueKind::kText, false},           {"urdf", ValueKind::kText, false},
    {"base", ValueKind::kText, false},           {"pos", ValueKind::kVec3, false},
    {"rpy", ValueKind::kVec3, false},            {"link_frequency", ValueKind::kNumber, false},
    {"link_damping_ratio", ValueKind::kNumber, false}, {"constraint_frequency", ValueKind::kNumber, false},
    {"limit_stiffness", ValueKind::kNumber, false},    {"limit_damping", ValueKind::kNumber, false},
    {"link_model", ValueKind::kText, false},
};
constexpr AttributeRule kInitialAttributes[] = {{"angles", ValueKind::kText, true}};
constexpr AttributeRule kFreezeAttributes[] = {{"joints", ValueKind::kText, true}};
constexpr AttributeRule kActuationAttributes[] = {
    {"joints", ValueKind::kText, false},          {"motor_constant", ValueKind::kNumber, false},
    {"torque_offset", ValueKind::kNumber, false}, {"viscous", ValueKind::kNumber, false},
    {"coulomb", ValueKind::kNumber, false},       {"static", ValueKind::kNumber, false},
    {"stribeck_velocity", ValueKind::kNumber, false}, {"armature", ValueKind::kNumber, false},
};
constexpr AttributeRule kContactAttributes[] = {{"link", ValueKind::kText, true}, {"points", ValueKind::kText, true}};
constexpr AttributeRule kServoAttributes[] = {
    {"joints", ValueKind::kText, false}, {"kp", ValueKind::kNumber, true}, {"kd", ValueKind::kNumber, true},
    {"rate", ValueKind::kNumber, false},
};
constexpr AttributeRule kPushAttributes[] = {
    {"link", ValueKind::kText, true},       {"point", ValueKind::kVec3, false}, {"force", ValueKind::kVec3, true},
    {"start", ValueKind::kNumber, true},    {"duration", ValueKind::kNumber, true},
};
constexpr AttributeRule kAssistAttributes[] = {
    {"link", ValueKind::kText, true},          {"point", ValueKind::kVec3, false},
    {"law", ValueKind::kText, false},          {"kp", ValueKind::kNumber, true},
    {"max_force", ValueKind::kNumber, true},   {"bandwidth", ValueKind::kNumber, true},
    {"rate", ValueKind::kNumber, true},        {"margin", ValueKind::kNumber, false},
};
constexpr AttributeRule kPayloadAttributes[] = {
    {"link", ValueKind::kText, true}, {"mass", ValueKind::kNumber, true}, {"com", ValueKind::kVec3, false},
    {"radius", ValueKind::kNumber, false},
};
constexpr AttributeRule kAprioriAttributes[] = {
    {"payloads", ValueKind::kBoolean, false},     {"friction", ValueKind::kBoolean, false},
    {"motor_constant_scale", ValueKind::kNumber, false}, {"torque_offset", ValueKind::kBoolean, false},
    {"com_shift", ValueKind::kNumber, false},     {"seed", ValueKind::kInteger, false},
    {"inertial_spread", ValueKind::kNumber, false},
    {"armature", ValueKind::kBoolean, false},      {"magnet_coefficient", ValueKind::kNumber, false},
    {"gear_stiffness_per_effort", ValueKind::kNumber, false},
    {"attachment_stiffness", ValueKind::kNumber, false}, {"known_motor_constants", ValueKind::kText, false},
};
constexpr AttributeRule kBandAttributes[] = {
    {"name", ValueKind::kText, true},   {"stiffness", ValueKind::kNumber, true},
    {"natural_length", ValueKind::kText, false},  // "auto" (default) or metres
    {"damping", ValueKind::kNumber, false}, {"links", ValueKind::kText, true},
    {"points", ValueKind::kText, true},
    {"group", ValueKind::kText, false},  // stiffness group; default: the band's own name
};
constexpr AttributeRule kMotionAttributes[] = {
    {"name", ValueKind::kText, false}, {"file", ValueKind::kText, false}, {"fit_joints", ValueKind::kText, false}};
// <keyframe>: joint angles and/or task-space targets (task_keyframe.h).
constexpr AttributeRule kKeyframeAttributes[] = {
    {"time", ValueKind::kNumber, true},  {"angles", ValueKind::kText, false},     {"link", ValueKind::kText, false},
    {"rpy", ValueKind::kVec3, false},    {"height", ValueKind::kNumber, false},   {"height_link", ValueKind::kText, false},
    {"feet", ValueKind::kText, false},   {"com", ValueKind::kText, false},        {"com_margin", ValueKind::kNumber, false},
};
// <hold>: an object held during the motion (0.5 kg per hand in A §5.1).
constexpr AttributeRule kHoldAttributes[] = {
    {"link", ValueKind::kText, true}, {"mass", ValueKind::kNumber, true}, {"com", ValueKind::kVec3, false},
    {"radius", ValueKind::kNumber, false},
};
constexpr ElementRule kMotionChildren[] = {{"keyframe", kKeyframeAttributes, false, {}},
                                           {"hold", kHoldAttributes, false, {}}};
constexpr ElementRule kSuitChildren[] = {{"band", kBandAttributes, false, {}}};
constexpr AttributeRule kSuitAttributes[] = {{"name", ValueKind::kText, true}};
// A robot described in the scene itself instead of a URDF file.
constexpr AttributeRule kLinkAttributes[] = {
    {"name", ValueKind::kText, true}, {"mass", ValueKind::kNumber, false}, {"com", ValueKind::kVec3, false},
    {"inertia", ValueKind::kText, false},
};
constexpr AttributeRule kInertialAttributes[] = {
    {"link", ValueKind::kText, true}, {"mass", ValueKind::kNumber, true}, {"com", ValueKind::kVec3, false},
    {"inertia", ValueKind::kText, true},
};
constexpr AttributeRule kJointAttributes[] = {
    {"name", ValueKind::kText, true},    {"type", ValueKind::kText, true},    {"parent", ValueKind::kText, true},
    {"child", ValueKind::kText, true},   {"xyz", ValueKind::kVec3, false},    {"rpy", ValueKind::kVec3, false},
    {"axis", ValueKind::kVec3, false},   {"lower", ValueKind::kNumber, false}, {"upper", ValueKind::kNumber, false},
    {"effort", ValueKind::kNumber, false}, {"velocity", ValueKind::kNumber, false},
};
// <sensors> inside <robot>: what the robot measures (robot_scene.cpp, sensors.h).
constexpr AttributeRule kSensorsAttributes[] = {
    {"rate", ValueKind::kNumber, false}, {"seed", ValueKind::kInteger, false}, {"noise", ValueKind::kText, false},
    {"anti_alias", ValueKind::kText, false},
};
constexpr AttributeRule kEncodersAttributes[] = {{"joints", ValueKind::kText, false},
                                                 {"resolution", ValueKind::kNumber, false}};
constexpr AttributeRule kImuAttributes[] = {
    {"name", ValueKind::kText, false},        {"link", ValueKind::kText, true},
    {"xyz", ValueKind::kVec3, false},         {"rpy", ValueKind::kVec3, false},
    {"gyro_noise", ValueKind::kNumber, false}, {"gyro_bias", ValueKind::kVec3, false},
    {"accel_noise", ValueKind::kNumber, false}, {"accel_bias", ValueKind::kVec3, false},
};
constexpr AttributeRule kForceSensorAttributes[] = {
    {"name", ValueKind::kText, true},          {"link", ValueKind::kText, true},
    {"xyz", ValueKind::kVec3, false},          {"rpy", ValueKind::kVec3, false},
    {"force_noise", ValueKind::kNumber, false}, {"torque_noise", ValueKind::kNumber, false},
    {"force_resolution", ValueKind::kNumber, false}, {"torque_resolution", ValueKind::kNumber, false},
};
constexpr AttributeRule kCurrentsAttributes[] = {{"joints", ValueKind::kText, false},
                                                 {"noise", ValueKind::kNumber, false}};
constexpr AttributeRule kWindingTemperaturesAttributes[] = {{"joints", ValueKind::kText, false},
                                                            {"ambient", ValueKind::kNumber, false},
                                                            {"noise", ValueKind::kNumber, false},
                                                            {"resolution", ValueKind::kNumber, false}};
constexpr AttributeRule kJointTorquesAttributes[] = {{"joints", ValueKind::kText, false},
                                                    {"noise", ValueKind::kNumber, false},
                                                    {"bias", ValueKind::kNumber, false},
                                                    {"resolution", ValueKind::kNumber, false}};
constexpr AttributeRule kBandLengthsAttributes[] = {{"noise", ValueKind::kNumber, false},
                                                   {"bias", ValueKind::kNumber, false},
                                                   {"resolution", ValueKind::kNumber, false}};
constexpr ElementRule kSensorsChildren[] = {
    {"encoders", kEncodersAttributes, true, {}},
    {"imu", kImuAttributes, true, {}},
    {"force_sensor", kForceSensorAttributes, false, {}},
    {"currents", kCurrentsAttributes, true, {}},
    {"winding_temperatures", kWindingTemperaturesAttributes, true, {}},
    {"joint_torques", kJointTorquesAttributes, true, {}},
    {"band_lengths", kBandLengthsAttributes, true, {}},
};
// <exoskeleton> inside <robot>: a powered device (exoskeleton.h).
constexpr AttributeRule kExoskeletonAttributes[] = {
    {"name", ValueKind::kText, true}, {"rate", ValueKind::kNumber, true},
    {"acceleration_cutoff", ValueKind::kNumber, false}, {"coulomb_velocity", ValueKind::kNumber, false},
};
constexpr AttributeRule kSegmentAttributes[] = {
    {"name", ValueKind::kText, true},          {"link", ValueKind::kText, true},
    {"parent", ValueKind::kText, false},       {"joint", ValueKind::kText, false},
    {"mass", ValueKind::kNumber, true},        {"com", ValueKind::kVec3, false},
    {"inertia", ValueKind::kText, true},       {"motor_constant", ValueKind::kNumber, false},
    {"torque_offset", ValueKind::kNumber, false}, {"viscous", ValueKind::kNumber, false},
    {"coulomb", ValueKind::kNumber, false},    {"static", ValueKind::kNumber, false},
    {"armature", ValueKind::kNumber, false},   {"effort", ValueKind::kNumber, false},
    {"virtual_inertia", ValueKind::kNumber, false}, {"virtual_viscous", ValueKind::kNumber, false},
    {"virtual_gravity", ValueKind::kNumber, false}, {"virtual_coulomb", ValueKind::kNumber, false},
    {"assist", ValueKind::kNumber, false},
};
constexpr AttributeRule kStrapAttributes[] = {
    {"segment", ValueKind::kText, true}, {"points", ValueKind::kText, true},
    {"stiffness", ValueKind::kNumber, true}, {"damping", ValueKind::kNumber, false},
};
constexpr ElementRule kExoskeletonChildren[] = {{"segment", kSegmentAttributes, false, {}},
                                                {"strap", kStrapAttributes, false, {}}};
constexpr ElementRule kRobotChildren[] = {
    {"initial", kInitialAttributes, true, {}},     {"freeze", kFreezeAttributes, false, {}},
    {"actuation", kActuationAttributes, false, {}}, {"contact", kContactAttributes, false, {}},
    {"servo", kServoAttributes, false, {}},         {"payload", kPayloadAttributes, false, {}},
    {"apriori", kAprioriAttributes, true, {}},      {"motion", kMotionAttributes, false, kMotionChildren},
    {"suit", kSuitAttributes, false, kSuitChildren},
    {"link", kLinkAttributes, false, {}},           {"joint", kJointAttributes, false, {}},
    {"inertial", kInertialAttributes, false, {}},
    {"band", kBandAttributes, false, {}},           {"sensors", kSensorsAttributes, true, kSensorsChildren},
    {"push", kPushAttributes, false, {}},           {"assist", kAssistAttributes, true, {}},
    {"exoskeleton", kExoskeletonAttributes, false, kExoskeletonChildren},
};
constexpr AttributeRule kRobotRecordAttributes[] = {{"joint", ValueKind::kText, false},
                                                    {"band", ValueKind::kText, false}};

// <experiment>: the trials of A §5 (motion x suit, identification motions).
constexpr AttributeRule kTrialAttributes[] = {
    {"name", ValueKind::kText, true}, {"motion", ValueKind::kText, true}, {"suit", ValueKind::kText, false},
    {"purpose", ValueKind::kText, false}, {"device", ValueKind::kText, false},
};
// <evaluation>: what the evaluator validates on (optional; derived otherwise).
constexpr AttributeRule kEvaluationAttributes[] = {{"validation_joints", ValueKind::kText, false}};
constexpr ElementRule kExperimentChildren[] = {{"trial", kTrialAttributes, false, {}},
                                               {"evaluation", kEvaluationAttributes, true, {}}};
constexpr AttributeRule kNoAttributes[] = {{"name", ValueKind::kText, false}};
// <realism>: error sources of a real evaluation (docs/realism.md).
constexpr AttributeRule kRealismAttributes[] = {{"seed", ValueKind::kInteger, false},
                                                {"preset", ValueKind::kText, false},
                                                {"sources", ValueKind::kText, false}};
constexpr AttributeRule kViaPointsAttributes[] = {{"offset", ValueKind::kNumber, true}};
constexpr AttributeRule kGearAttributes[] = {{"efficiency", ValueKind::kNumber, true},
                                             {"backdrive_efficiency", ValueKind::kNumber, true},
                                             {"transition_velocity", ValueKind::kNumber, false}};
constexpr AttributeRule kMotorHeatingAttributes[] = {{"rise_at_effort", ValueKind::kNumber, true},
                                                     {"time_constant", ValueKind::kNumber, true},
                                                     {"magnet_coefficient", ValueKind::kNumber, true},
                                                     {"initial_rise", ValueKind::kNumber, false}};
constexpr AttributeRule kSensorChainAttributes[] = {{"imu_cutoff", ValueKind::kNumber, false},
                                                    {"force_cutoff", ValueKind::kNumber, false},
                                                    {"current_cutoff", ValueKind::kNumber, false},
                                                    {"jitter", ValueKind::kNumber, false},
                                                    {"gyro_bias_walk", ValueKind::kNumber, false},
                                                    {"accel_bias_walk", ValueKind::kNumber, false},
                                                    {"force_crosstalk", ValueKind::kNumber, false},
                                                    {"force_gain", ValueKind::kNumber, false}};
constexpr AttributeRule kAttachmentsAttributes[] = {{"stiffness", ValueKind::kNumber, true},
                                                    {"spread", ValueKind::kNumber, false}};
constexpr AttributeRule kHysteresisAttributes[] = {{"relaxing_fraction", ValueKind::kNumber, true},
                                                   {"relaxation_time", ValueKind::kNumber, true}};
constexpr AttributeRule kComplianceAttributes[] = {{"stiffness_per_effort", ValueKind::kNumber, true},
                                                  {"backlash", ValueKind::kNumber, false},
                                                  {"damping_ratio", ValueKind::kNumber, false},
                                                  {"spread", ValueKind::kNumber, false},
                                                  {"encoder", ValueKind::kText, false}};
constexpr AttributeRule kCapstanAttributes[] = {{"friction", ValueKind::kNumber, true}};
constexpr ElementRule kRealismChildren[] = {{"via_points", kViaPointsAttributes, true, {}},
                                            {"gear", kGearAttributes, true, {}},
                                            {"motor_heating", kMotorHeatingAttributes, true, {}},
                                            {"sensor_chain", kSensorChainAttributes, true, {}},
                                            {"attachments", kAttachmentsAttributes, true, {}},
                                            {"hysteresis", kHysteresisAttributes, true, {}},
                                            {"capstan", kCapstanAttributes, true, {}},
                                            {"compliance", kComplianceAttributes, true, {}}};

constexpr ElementRule kElementRules[] = {
    {"experiment", kNoAttributes, true, kExperimentChildren},
    {"realism", kRealismAttributes, true, kRealismChildren},
    {"simulation", kSimulationAttributes, true, {}}, {"world", kWorldAttributes, true, {}},
    {"ground", kGroundAttributes, true, {}},         {"particle", kParticleAttributes, false, {}},
    {"spring", kSpringAttributes, false, {}},        {"cloth", kClothAttributes, false, {}},
    {"block", kBlockAttributes, false, {}},          {"record", kRecordAttributes, false, {}},
    {"robot", kRobotAttributes, true, kRobotChildren},
};

/// The rule for element `e` among `rules`; the caller has already rejected unknown tags.
const ElementRule& ruleFor(const XMLElement* e, std::span<const ElementRule> rules = kElementRules) {
  for (const ElementRule& rule : rules) {
    if (std::string(rule.tag) == e->Name()) return rule;
  }
  return rules[0];  // unreachable after the unknown-element pass
}

ElementReader readerFor(const std::string& path, const XMLElement* e, const ElementRule& rule) {
  std::vector<const char*> allowed;
  for (const AttributeRule& a : rule.attributes) allowed.push_back(a.name);
  // <record> also takes `joint` (a robot's joint channels).
  if (std::string(rule.tag) == "record") {
    for (const AttributeRule& a : kRobotRecordAttributes) allowed.push_back(a.name);
  }
  return ElementReader(path, e, allowed);
}


std::vector<const char*> childTags(const ElementRule& rule) {
  std::vector<const char*> tags;
  for (const ElementRule& c : rule.children) tags.push_back(c.tag);
  return tags;
}

// The passes below walk the rule tree: each element is checked against its
// rule, and its children against the rule's children.
void checkNames(const std::string& path, const XMLElement* e, const ElementRule& rule) {
  readerFor(path, e, rule);
  rejectUnknownChildren(path, e, childTags(rule));
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    checkNames(path, c, ruleFor(c, rule.children));
  }
}

void checkRequired(const std::string& path, const XMLElement* e, const ElementRule& rule) {
  const ElementReader r = readerFor(path, e, rule);
  for (const AttributeRule& a : rule.attributes) {
    if (a.required) r.text(a.name);
  }
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    checkRequired(path, c, ruleFor(c, rule.children));
  }
}

void checkSingles(const std::string& path, const XMLElement* parent, std::span<const ElementRule> rules) {
  for (const ElementRule& rule : rules) {
    if (!rule.single) continue;
    const XMLElement* first = parent->FirstChildElement(rule.tag);
    if (const XMLElement* second = first ? first->NextSiblingElement(rule.tag) : nullptr) {
      throw SceneError(path + ":" + std::to_string(second->GetLineNum()) + ": <" + rule.tag +
                       "> may appear only once (first at line " + std::to_string(first->GetLineNum()) + ")");
    }
  }
}

/// Parses every attribute that is present for its syntax only (numbers, counts
/// of numbers, booleans); the values are read again, checked, by the readers.
void checkSyntax(const std::string& path, const XMLElement* e, const ElementRule& rule);
void checkSyntax(const ElementReader& r, const ElementRule& rule) {
  for (const AttributeRule& a : rule.attributes) {
    if (!r.has(a.name)) continue;
    switch (a.kind) {
      case ValueKind::kText: break;
      case ValueKind::kNumber: r.number(a.name); break;
      case ValueKind::kInteger: r.integer(a.name); break;
      case ValueKind::kBoolean: r.boolean(a.name, false); break;
      case ValueKind::kVec3: r.vec3(a.name); break;
      case ValueKind::kInt2: r.integers(a.name, 2); break;
      case ValueKind::kInt3: r.integers(a.name, 3); break;
    }
  }
}

void checkSyntax(const std::string& path, const XMLElement* e, const ElementRule& rule) {
  checkSyntax(readerFor(path, e, rule), rule);
  checkSingles(path, e, rule.children);
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    checkSyntax(path, c, ruleFor(c, rule.children));
  }
}

}  // namespace

ElementReader readerFor(const std::string& path, const XMLElement* e) { return readerFor(path, e, ruleFor(e)); }

// Passes 1-3 over the whole file (see the rule table above).
const XMLElement* checkScene(const std::string& path, tinyxml2::XMLDocument& doc) {
  loadXml(path, doc);
  const XMLElement* root = doc.RootElement();
  if (std::string(root->Name()) != "scene") {
    throw SceneError(path + ":" + std::to_string(root->GetLineNum()) + ": <" + root->Name() +
                     "> the root element must be <scene>");
  }
  const std::string root_location = path + ":" + std::to_string(root->GetLineNum()) + ": <scene>";

  // Pass 1: unknown elements and attributes, anywhere in the file.
  const ElementReader root_reader(path, root, {"name", "relative_to"});
  rejectUnknownChildren(path, root, {"simulation", "world", "ground", "particle", "spring", "cloth", "block", "record",
                                     "robot", "experiment", "realism"});
  for (const XMLElement* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) {
    checkNames(path, e, ruleFor(e));
  }

  // Pass 2: missing elements, then missing attributes.
  if (!root->FirstChildElement("simulation")) {
    throw SceneError(root_location + " missing required element <simulation>");
  }
  if (!root->FirstChildElement("particle") && !root->FirstChildElement("cloth") && !root->FirstChildElement("block") &&
      !root->FirstChildElement("robot")) {
    throw SceneError(root_location + " has no particles (add <particle>, <cloth>, <block> or <robot>)");
  }
  for (const XMLElement* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) {
    checkRequired(path, e, ruleFor(e));
  }

  // Pass 3: wrong counts (elements that may appear once; numbers per
  // attribute) and values that are not what their attribute takes.
  checkSingles(path, root, kElementRules);
  for (const XMLElement* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) {
    checkSyntax(path, e, ruleFor(e));
  }
  return root;
}

ElementReader realismChildReader(const std::string& path, const XMLElement* e) {
  return readerFor(path, e, ruleFor(e, kRealismChildren));
}

void checkRealismNames(const std::string& path, const XMLElement* root) { checkNames(path, root, ruleFor(root)); }

}  // namespace suitsim::io
