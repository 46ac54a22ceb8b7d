#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <span>

#include "suitsim/builder.h"
#include "suitsim/scene/scene.h"
#include "robot_scene.h"
#include "suitsim/scene/xml_reader.h"

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
    {"threads", ValueKind::kInteger, false},
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
    {"armature", ValueKind::kBoolean, false},      {"magnet_coefficient", ValueKind::kNumber, false},
    {"gear_stiffness_per_effort", ValueKind::kNumber, false},
    {"attachment_stiffness", ValueKind::kNumber, false},
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
constexpr AttributeRule kBandLengthsAttributes[] = {{"noise", ValueKind::kNumber, false},
                                                   {"bias", ValueKind::kNumber, false},
                                                   {"resolution", ValueKind::kNumber, false}};
constexpr ElementRule kSensorsChildren[] = {
    {"encoders", kEncodersAttributes, true, {}},
    {"imu", kImuAttributes, true, {}},
    {"force_sensor", kForceSensorAttributes, false, {}},
    {"currents", kCurrentsAttributes, true, {}},
    {"winding_temperatures", kWindingTemperaturesAttributes, true, {}},
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

ElementReader readerFor(const std::string& path, const XMLElement* e) { return readerFor(path, e, ruleFor(e)); }

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

/// Everything the reader has named so far: particles, springs and bodies.
struct Names {
  std::map<std::string, int> particles;
  std::map<std::string, int> springs;  // input index
  std::map<std::string, std::vector<int>> bodies;
  double lattice_bytes = 0.0;       // what `particles` and `bodies` hold for the lattices so far (estimate)
  double longest_name = 0.0;        // the longest generated particle name's length
  double lattice_contacts = 0.0;    // lattice particles that may touch the ground
};

/// How much memory this process can have, and where that figure came from.
struct MemoryLimit {
  double bytes = 0.0;  // 0: unknown
  const char* source = "";
};

// What the kernel says it can give without swapping (MemAvailable: free
// memory plus the caches it can drop), not the physical total, which other
// processes share; the physical memory (sysconf) only where /proc/meminfo
// cannot be read. An address-space limit (ulimit -v) is where std::bad_alloc
// comes from when it is lower, so it counts too.
MemoryLimit memoryLimit() {
  MemoryLimit limit;
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
      unsigned long long kib = 0;
      if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
        limit = {static_cast<double>(kib) * 1024.0, "available now, MemAvailable in /proc/meminfo"};
        break;
      }
    }
    std::fclose(f);
  }
  if (limit.bytes <= 0.0) {
    const double physical = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    if (physical > 0.0) limit = {physical, "physical memory, sysconf"};
  }
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const double address_space = static_cast<double>(as.rlim_cur);
    if (limit.bytes <= 0.0 || address_space < limit.bytes) limit = {address_space, "its address-space limit, ulimit -v"};
  }
  return limit;
}

// A lattice is refused before it is built, at its line, when the model with
// it and everything before it would need more memory than this process can
// have: otherwise the build ends in std::bad_alloc (or the OOM killer)
// minutes later with no line. The engine counts the model's bytes from its
// structures (modelPeakBytes); the reader adds its own name index: a map
// node a particle (the tree's colour and three links, the name, the index)
// and the body's member list.
void checkMemory(const ElementReader& r, const ModelBuilder& builder, Names& names, const std::string& body,
                 double particles, double springs, bool contact) {
  const double digits = std::floor(std::log10(std::max(1.0, particles - 1.0))) + 1.0;
  names.longest_name = std::max(names.longest_name, static_cast<double>(body.size()) + 1.0 + digits);
  const double name_heap = names.longest_name <= 15.0 ? 0.0 : std::ceil((names.longest_name + 9.0) / 16.0) * 16.0;
  const double map_node = std::ceil((sizeof(int) + 3.0 * sizeof(void*) + sizeof(std::pair<const std::string, int>) + 8.0) / 16.0) * 16.0;
  names.lattice_bytes += particles * (map_node + name_heap) + std::exp2(std::ceil(std::log2(particles))) * sizeof(int);
  ModelSize size;
  size.particles = builder.numParticles() + particles;
  size.springs = builder.numSprings() + springs;
  // Every particle of a lattice that may touch the ground is counted as a
  // contact, ground or not: the <ground> may come later in the file.
  names.lattice_contacts += contact ? particles : 0.0;
  size.contacts = names.lattice_contacts;
  size.name_length = names.longest_name;
  const double needed = modelPeakBytes(size) + names.lattice_bytes;
  const MemoryLimit limit = memoryLimit();
  if (limit.bytes > 0.0 && needed > limit.bytes) {
    char buf[224];
    std::snprintf(buf, sizeof buf,
                  "needs about %.3g GB of memory to build and run, with what comes before it; this process can have "
                  "%.3g GB (%s)",
                  needed / 1e9, limit.bytes / 1e9, limit.source);
    r.failAttribute("count", buf);
  }
}

bool isIndex(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// `so_far`: springs may name only particles defined above them, records any.
int particleRef(const ElementReader& r, const char* attr, const Names& names, int num_particles, bool so_far) {
  const std::string ref = r.text(attr);
  if (isIndex(ref)) {
    const long index = std::stol(ref.size() > 9 ? std::string("999999999") : ref);
    if (index >= num_particles) {
      r.failAttribute(attr, "particle index out of range (the scene has " + std::to_string(num_particles) +
                                (so_far ? " particles so far)" : " particles)"));
    }
    return static_cast<int>(index);
  }
  const auto it = names.particles.find(ref);
  if (it == names.particles.end()) {
    r.failAttribute(attr, so_far ? "names no particle defined before this line" : "names no particle");
  }
  return it->second;
}

// Names become CSV column labels ("bob.position.x[m]"), so characters that
// would split or quote a column, or break a line, are refused.
void checkName(const ElementReader& r, const char* attr, const std::string& name) {
  if (name.empty()) r.failAttribute(attr, "must not be empty");
  for (const unsigned char c : name) {
    if (std::isspace(c) || std::iscntrl(c) || c == ',' || c == '"' || c == '\'') {
      r.failAttribute(attr, "must not contain spaces, commas or quotes (it becomes a column name)");
    }
  }
}

void claimName(const ElementReader& r, std::map<std::string, int>& table, const std::string& name, int value,
               const char* what) {
  checkName(r, "name", name);
  if (isIndex(name)) r.failAttribute("name", std::string("must not be a number (numbers are ") + what + " indices)");
  if (!table.emplace(name, value).second) r.failAttribute("name", std::string("repeats an earlier ") + what + " name");
}

/// Runs a builder call; turns a builder complaint into a located scene error.
template <typename F>
auto located(const ElementReader& r, F&& f) {
  try {
    return f();
  } catch (const ModelError& e) {
    r.fail(e.what());
  }
}

std::string fmtNumber(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

// The overrides replace the scene's values before any check, so an error
// names the <simulation> line and says which value was the option's.
void readSimulation(const ElementReader& r, const SceneOverrides& overrides, SimulationSettings& sim) {
  const std::string integrator = r.text("integrator");
  if (!parseIntegrator(integrator, &sim.integrator)) {
    r.failAttribute("integrator", "must be semi_implicit_euler, velocity_verlet, rk4 or position_verlet");
  }
  sim.dt = r.positive("dt", r.number("dt"));
  sim.duration = r.positive("duration", r.number("duration"));
  sim.output_rate = r.positive("output_rate", r.number("output_rate", 100.0));
  sim.threads = r.integer("threads", 0);
  // The same bound as the --threads option: OpenMP cannot start more teams
  // than that on any machine we know of, and a huge team crashes inside it.
  if (sim.threads < 0 || sim.threads > 1024) {
    r.failAttribute("threads", "must be a whole number from 0 to 1024 (0 means one per core)");
  }
  // The scene's own rate against its own step; under a longer --dt the
  // stream is written at every step and its header says at what rate.
  if (sim.output_rate * sim.dt > 1.0 + 1e-12) {
    r.failAttribute("output_rate", "must not exceed 1/dt (one sample per step at most)");
  }
  if (overrides.dt > 0.0) sim.dt = overrides.dt;
  if (overrides.duration > 0.0) sim.duration = overrides.duration;
  if (overrides.threads > 0) sim.threads = overrides.threads;
  const auto from = [](bool overridden, const char* option) {
    return overridden ? std::string(" (") + option + "'s)" : std::string();
  };
  const std::string dt_from = from(overrides.dt > 0.0, "--dt");
  const std::string duration_from = from(overrides.duration > 0.0, "--duration");
  if (sim.dt > sim.duration) {
    r.fail("the time step is longer than the duration (dt = " + fmtNumber(sim.dt) + " s" + dt_from +
           ", duration = " + fmtNumber(sim.duration) + " s" + duration_from + ")");
  }
  if (!(sim.duration / sim.dt <= kMaxSteps)) {
    char message[200];
    std::snprintf(message, sizeof message, "duration / dt = %.3g steps; at most %.0e are allowed",
                  sim.duration / sim.dt, kMaxSteps);
    r.fail(message + dt_from + duration_from);
  }
}

void readGround(const ElementReader& r, ModelBuilder& builder) {
  GroundModel g;
  g.enabled = true;
  g.normal = r.vec3("normal", {0.0, 0.0, 1.0});
  if (g.normal[0] == 0.0 && g.normal[1] == 0.0 && g.normal[2] == 0.0) r.failAttribute("normal", "must be non-zero");
  g.offset = r.number("height", 0.0);
  g.stiffness = r.positive("stiffness", r.number("stiffness"));
  g.damping = r.nonNegative("damping", r.number("damping", 0.0));
  g.mu_static = r.nonNegative("mu_static", r.number("mu_static", 0.0));
  g.mu_kinetic = r.nonNegative("mu_kinetic", r.number("mu_kinetic", g.mu_static));
  if (g.mu_kinetic > g.mu_static) r.failAttribute("mu_kinetic", "must not exceed mu_static");
  // The anchor spring defaults to the normal stiffness: a sticking contact
  // then deflects sideways about as much as it sinks.
  g.friction_stiffness = r.nonNegative("friction_stiffness", r.number("friction_stiffness", g.stiffness));
  g.friction_damping = r.nonNegative("friction_damping", r.number("friction_damping", g.damping));
  g.stick_speed = r.positive("stick_speed", r.number("stick_speed", 1e-3));
  if (g.mu_static > 0.0 && g.friction_stiffness == 0.0) {
    r.failAttribute("friction_stiffness", "must be > 0 when mu_static > 0");
  }
  located(r, [&] { builder.setGround(g); });
}

void readParticle(const ElementReader& r, ModelBuilder& builder, Names& names) {
  ParticleSpec p;
  p.name = r.text("name");
  p.position = r.vec3("pos");
  p.velocity = r.vec3("vel", {0.0, 0.0, 0.0});
  p.mass = r.positive("mass", r.number("mass"));
  p.fixed = r.boolean("fixed", false);
  p.contact = r.boolean("contact", true);
  p.force = r.vec3("force", {0.0, 0.0, 0.0});
  claimName(r, names.particles, p.name, builder.numParticles(), "particle");
  located(r, [&] { return builder.addParticle(p); });
}

void readSpring(const ElementReader& r, ModelBuilder& builder, Names& names) {
  SpringSpec s;
  s.a = particleRef(r, "a", names, builder.numParticles(), true);
  s.b = particleRef(r, "b", names, builder.numParticles(), true);
  s.stiffness = r.positive("stiffness", r.number("stiffness"));
  s.damping = r.nonNegative("damping", r.number("damping", 0.0));
  s.rest_length = r.has("rest_length") ? r.nonNegative("rest_length", r.number("rest_length")) : -1.0;
  if (s.a == s.b) r.failAttribute("b", "is the same particle as 'a': a spring needs two particles");
  if (r.has("name")) claimName(r, names.springs, r.text("name"), builder.numSprings(), "spring");
  located(r, [&] { return builder.addSpring(s); });
}

void claimBody(const ElementReader& r, ModelBuilder& builder, Names& names, const std::string& name, int first) {
  std::vector<int>& members = names.bodies[name];
  for (int i = first; i < builder.numParticles(); ++i) {
    members.push_back(i);
    if (!names.particles.emplace(builder.particle(i).name, i).second) {
      r.failAttribute("name", "generates particle '" + builder.particle(i).name + "', a name already taken");
    }
  }
}

void readCloth(const ElementReader& r, ModelBuilder& builder, Names& names) {
  ClothSpec c;
  c.name = r.text("name");
  c.origin = r.vec3("origin");
  c.u = r.vec3("u", {1.0, 0.0, 0.0});
  c.v = r.vec3("v", {0.0, 1.0, 0.0});
  const std::vector<int> count = r.integers("count", 2);
  c.nu = count[0];
  c.nv = count[1];
  c.spacing = r.positive("spacing", r.number("spacing"));
  c.mass = r.positive("mass", r.number("mass"));
  c.stiffness = r.positive("stiffness", r.number("stiffness"));
  c.bend_stiffness = r.nonNegative("bend_stiffness", r.number("bend_stiffness", 0.0));
  c.damping = r.nonNegative("damping", r.number("damping", 0.0));
  c.contact = r.boolean("contact", true);
  const std::string pin = r.text("pin", "none");
  if (pin == "none") c.pin = ClothSpec::Pin::kNone;
  else if (pin == "top_edge") c.pin = ClothSpec::Pin::kTopEdge;
  else if (pin == "top_corners") c.pin = ClothSpec::Pin::kTopCorners;
  else r.failAttribute("pin", "must be none, top_edge or top_corners");
  if (c.nu < 2 || c.nv < 2) r.failAttribute("count", "must be at least 2 in each direction");
  // In double: a product of ints can overflow a long; a double cannot.
  const double cloth_particles = static_cast<double>(c.nu) * c.nv;
  if (cloth_particles > 1e7) r.failAttribute("count", "is too large (over 1e7 particles)");
  checkName(r, "name", c.name);
  checkMemory(r, builder, names, c.name, cloth_particles, clothSpringCount(c), c.contact);
  if (names.bodies.count(c.name)) r.failAttribute("name", "repeats an earlier body name");
  const double cos_uv = std::abs(c.u[0] * c.v[0] + c.u[1] * c.v[1] + c.u[2] * c.v[2]) /
                        std::max(1e-300, std::hypot(c.u[0], c.u[1], c.u[2]) * std::hypot(c.v[0], c.v[1], c.v[2]));
  if (!(cos_uv < 0.999)) r.failAttribute("v", "must not be parallel to u (or zero)");
  const int first = located(r, [&] { return builder.addCloth(c); });
  claimBody(r, builder, names, c.name, first);
}

void readBlock(const ElementReader& r, ModelBuilder& builder, Names& names) {
  BlockSpec b;
  b.name = r.text("name");
  b.origin = r.vec3("origin");
  const std::vector<int> count = r.integers("count", 3);
  b.nx = count[0];
  b.ny = count[1];
  b.nz = count[2];
  b.spacing = r.positive("spacing", r.number("spacing"));
  b.mass = r.positive("mass", r.number("mass"));
  b.stiffness = r.positive("stiffness", r.number("stiffness"));
  b.damping = r.nonNegative("damping", r.number("damping", 0.0));
  b.velocity = r.vec3("vel", {0.0, 0.0, 0.0});
  b.contact = r.boolean("contact", true);
  if (b.nx < 1 || b.ny < 1 || b.nz < 1) r.failAttribute("count", "must be at least 1 in each direction");
  // In double: 2097152^3 overflows a long and used to pass the cap.
  const double block_particles = static_cast<double>(b.nx) * b.ny * b.nz;
  if (block_particles > 1e7) r.failAttribute("count", "is too large (over 1e7 particles)");
  checkName(r, "name", b.name);
  checkMemory(r, builder, names, b.name, block_particles, blockSpringCount(b), b.contact);
  if (names.bodies.count(b.name)) r.failAttribute("name", "repeats an earlier body name");
  const int first = located(r, [&] { return builder.addBlock(b); });
  claimBody(r, builder, names, b.name, first);
}

ChannelSpec readRecord(const ElementReader& r, const Model& model, const Names& names) {
  using Kind = ChannelSpec::Kind;
  ChannelSpec c;
  const std::string quantity = r.text("quantity");
  const int targets = r.has("particle") + r.has("spring") + r.has("body") + r.has("joint") + r.has("band");
  if (targets > 1) r.fail("names more than one of particle, spring, body, joint and band");
  if (r.has("band")) {
    c.index = model.findBand(r.text("band"));
    if (c.index < 0) r.failAttribute("band", "names no band of the scene's robot");
    c.label = r.text("band");
    if (quantity == "length") c.kind = Kind::kBandLength;
    else if (quantity == "tension") c.kind = Kind::kBandTension;
    else r.failAttribute("quantity", "must be length or tension for a band");
  } else if (r.has("joint")) {
    c.index = findHinge(model, r.text("joint"));
    if (c.index < 0) r.failAttribute("joint", "names no moving joint of the scene's robot");
    c.label = r.text("joint");
    if (quantity == "angle") c.kind = Kind::kJointAngle;
    else if (quantity == "velocity") c.kind = Kind::kJointVelocity;
    else if (quantity == "current") c.kind = Kind::kJointCurrent;
    else if (quantity == "motor_torque") c.kind = Kind::kMotorTorque;
    else if (quantity == "friction_torque") c.kind = Kind::kFrictionTorque;
    else r.failAttribute("quantity", "must be angle, velocity, current, motor_torque or friction_torque for a joint");
  } else if (r.has("particle")) {
    c.index = particleRef(r, "particle", names, model.num_particles, false);
    c.label = model.particle_name[c.index];
    if (quantity == "position") c.kind = Kind::kParticlePosition;
    else if (quantity == "velocity") c.kind = Kind::kParticleVelocity;
    else r.failAttribute("quantity", "must be position or velocity for a particle");
  } else if (r.has("spring")) {
    const std::string ref = r.text("spring");
    int input = -1;
    if (isIndex(ref)) {
      input = ref.size() > 9 ? model.num_springs : std::stoi(ref);
      if (input >= model.num_springs) {
        r.failAttribute("spring", "spring index out of range (the scene has " + std::to_string(model.num_springs) +
                                      " springs)");
      }
      c.label = "spring" + ref;
    } else {
      const auto it = names.springs.find(ref);
      if (it == names.springs.end()) r.failAttribute("spring", "names no spring");
      input = it->second;
      c.label = ref;
    }
    c.index = model.springIndexFromInput(input);
    if (quantity == "length") c.kind = Kind::kSpringLength;
    else if (quantity == "tension") c.kind = Kind::kSpringTension;
    else r.failAttribute("quantity", "must be length or tension for a spring");
  } else if (r.has("body")) {
    const auto it = names.bodies.find(r.text("body"));
    if (it == names.bodies.end()) r.failAttribute("body", "names no cloth, block or robot body");
    c.particles = it->second;
    c.label = it->first;
    if (quantity != "com") r.failAttribute("quantity", "must be com for a body");
    c.kind = Kind::kCentreOfMass;
  } else if (quantity == "ground_force") {
    c.kind = Kind::kGroundForce;
  } else if (quantity == "energy") {
    c.kind = Kind::kEnergy;
  } else if (quantity == "applied_force") {
    c.kind = Kind::kAppliedForce;
  } else {
    // The whole model's balance (centroidal.h).
    static const std::pair<const char*, Kind> kBalance[] = {
        {"com", Kind::kCom},     {"com_velocity", Kind::kComVelocity}, {"cop", Kind::kCentreOfPressure},
        {"omega", Kind::kPendulumFrequency}, {"dcm", Kind::kDcm},      {"vrp", Kind::kVrp},
        {"ecmp", Kind::kEcmp},   {"balance_margin", Kind::kBalanceMargin}};
    const auto it = std::find_if(std::begin(kBalance), std::end(kBalance),
                                 [&](const auto& b) { return quantity == b.first; });
    if (it == std::end(kBalance)) {
      r.failAttribute("quantity",
                      "must be energy, ground_force, applied_force, com, com_velocity, cop, omega, dcm, vrp, ecmp or "
                      "balance_margin "
                      "when no particle, spring, body, joint or band is named");
    }
    c.kind = it->second;
    if (c.kind != Kind::kCom && c.kind != Kind::kComVelocity && !model.ground.enabled) {
      r.failAttribute("quantity", "'" + quantity + "' needs a <ground> to stand on");
    }
  }
  return c;
}

}  // namespace

namespace {

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

// Names used as file-name parts and CSV labels: letters, digits, '_', '-', '.'.
// Names separated by white space or commas ("A B", "A,B").
std::vector<std::string> splitNames(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text + " ") {
    if (std::isspace(static_cast<unsigned char>(c)) || c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

bool isPlainName(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
           return std::isalnum(c) || c == '_' || c == '-' || c == '.';
         });
}

// The named children `tag` of the robot, checked for unique, plain names.
// Without an experiment a robot may have one unnamed <motion>.
std::vector<std::string> namedChildren(const std::string& path, const XMLElement* robot, const char* tag,
                                       bool named) {
  std::vector<std::string> names;
  const XMLElement* first = nullptr;
  for (const XMLElement* c = robot ? robot->FirstChildElement(tag) : nullptr; c; c = c->NextSiblingElement(tag)) {
    const ElementReader r(path, c, {"name", "file", "stiffness", "fit_joints"});
    if (!named) {
      if (first) {
        throw SceneError(path + ":" + std::to_string(c->GetLineNum()) + ": <" + tag +
                         "> may appear only once outside an experiment (first at line " +
                         std::to_string(first->GetLineNum()) + "); name each and list trials in <experiment>");
      }
      first = c;
      continue;
    }
    if (!r.has("name")) r.fail("needs a name inside an experiment (trials refer to it)");
    const std::string name = r.text("name");
    if (!isPlainName(name)) r.failAttribute("name", "must be letters, digits, '_', '-' or '.'");
    if (std::find(names.begin(), names.end(), name) != names.end()) r.failAttribute("name", "repeats an earlier name");
    names.push_back(name);
  }
  return names;
}

std::vector<TrialSpec> readTrials(const std::string& path, const XMLElement* root) {
  const XMLElement* experiment = root->FirstChildElement("experiment");
  const XMLElement* robot = root->FirstChildElement("robot");
  // Suits are always named (a trial or the viewer picks one).
  const std::vector<std::string> suits = namedChildren(path, robot, "suit", true);
  std::vector<std::string> devices;  // <exoskeleton> names (its reader checks them)
  for (const XMLElement* c = robot ? robot->FirstChildElement("exoskeleton") : nullptr; c;
       c = c->NextSiblingElement("exoskeleton")) {
    if (const char* name = c->Attribute("name")) devices.push_back(name);
  }
  const std::vector<std::string> motions = namedChildren(path, robot, "motion", experiment != nullptr);
  std::vector<TrialSpec> trials;
  if (!experiment) return trials;
  const std::string where = path + ":" + std::to_string(experiment->GetLineNum()) + ": <experiment>";
  if (!robot) throw SceneError(where + " needs a <robot> to run its trials on");
  for (const XMLElement* t = experiment->FirstChildElement("trial"); t; t = t->NextSiblingElement("trial")) {
    const ElementReader r(path, t, {"name", "motion", "suit", "purpose", "device"});
    TrialSpec trial;
    trial.line = t->GetLineNum();
    trial.name = r.text("name");
    if (!isPlainName(trial.name)) r.failAttribute("name", "must be letters, digits, '_', '-' or '.' (it names files)");
    // OUT/<trial>/ must be a directory of its own inside OUT.
    if (trial.name == "." || trial.name == "..") {
      r.failAttribute("name", "must not be '.' or '..' (it names the trial's output directory)");
    }
    for (const TrialSpec& other : trials) {
      if (other.name == trial.name) r.failAttribute("name", "repeats trial '" + other.name + "'");
    }
    trial.motion = r.text("motion");
    if (std::find(motions.begin(), motions.end(), trial.motion) == motions.end()) {
      r.failAttribute("motion", "names no <motion> of the robot");
    }
    // The joints the band fit uses for this motion, if the scene names them.
    for (const XMLElement* m = robot->FirstChildElement("motion"); m; m = m->NextSiblingElement("motion")) {
      const char* name = m->Attribute("name");
      if (!name || trial.motion != name) continue;
      const ElementReader mr(path, m, {"name", "file", "fit_joints"});
      if (mr.has("fit_joints")) {
        trial.fit_joints = splitNames(mr.text("fit_joints"));
        trial.fit_joints_line = m->GetLineNum();
        if (trial.fit_joints.empty()) mr.failAttribute("fit_joints", "names no joint");
      }
    }
    trial.suit = r.text("suit", "none");
    if (trial.suit != "none" && std::find(suits.begin(), suits.end(), trial.suit) == suits.end()) {
      r.failAttribute("suit", "names no <suit> of the robot (or none)");
    }
    trial.purpose = r.text("purpose", "evaluation");
    if (trial.purpose != "evaluation" && trial.purpose != "identification") {
      r.failAttribute("purpose", "must be evaluation or identification");
    }
    if (trial.purpose == "identification" && trial.suit != "none") {
      r.failAttribute("suit", "must be none for an identification trial (the robot is identified without the suit)");
    }
    trial.device = r.text("device", "none");
    if (trial.device != "none" && std::find(devices.begin(), devices.end(), trial.device) == devices.end()) {
      r.failAttribute("device", "names no <exoskeleton> of the robot (or none)");
    }
    if (trial.purpose == "identification" && trial.device != "none") {
      r.failAttribute("device", "must be none for an identification trial (the robot is identified without a device)");
    }
    if (trial.device != "none" && trial.suit != "none") {
      r.failAttribute("device", "is worn with suit '" + trial.suit +
                                    "': a trial wears a suit or a device, so that each is evaluated on its own");
    }
    trials.push_back(trial);
  }
  if (trials.empty()) throw SceneError(where + " lists no <trial>");
  return trials;
}

EvaluationSpec readEvaluationSpec(const std::string& path, const XMLElement* root) {
  EvaluationSpec spec;
  const XMLElement* experiment = root->FirstChildElement("experiment");
  const XMLElement* e = experiment ? experiment->FirstChildElement("evaluation") : nullptr;
  if (!e) return spec;
  const ElementReader r(path, e, {"validation_joints"});
  spec.line = e->GetLineNum();
  if (r.has("validation_joints")) {
    spec.validation_joints = splitNames(r.text("validation_joints"));
    if (spec.validation_joints.empty()) r.failAttribute("validation_joints", "names no joint");
  }
  return spec;
}

// Every joint the evaluation settings name must be a movable joint of the
// robot: a missing name is an error, never a fallback.
void checkEvaluationJoints(const std::string& path, const RobotDescription& robot, const std::vector<std::string>& joints,
                           int line, const char* element, const char* attribute) {
  for (const std::string& j : joints) {
    const int k = robot.findJoint(j);
    if (k < 0 || robot.joints[static_cast<std::size_t>(k)].type == JointType::kFixed) {
      throw SceneError(path + ":" + std::to_string(line) + ": <" + element + "> attribute '" + attribute +
                       "' names no movable joint of the robot (got '" + j + "')");
    }
  }
}

bool bandOfSomeSuit(const XMLElement* root, const std::string& band) {
  const XMLElement* robot = root->FirstChildElement("robot");
  for (const XMLElement* suit = robot ? robot->FirstChildElement("suit") : nullptr; suit;
       suit = suit->NextSiblingElement("suit")) {
    for (const XMLElement* b = suit->FirstChildElement("band"); b; b = b->NextSiblingElement("band")) {
      if (const char* name = b->Attribute("name"); name && band == name) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<TrialSpec> listTrials(const std::string& path) {
  tinyxml2::XMLDocument doc;
  return readTrials(path, checkScene(path, doc));
}

namespace {

// <realism> in a scene or as a realism file's root (passes 1-3 done).
Realism readRealism(const std::string& path, const XMLElement* e) {
  Realism realism;
  const ElementReader r = readerFor(path, e);
  // A preset first; the children then set their sources' magnitudes.
  const std::string preset = r.text("preset", "ideal");
  if (preset == "realistic") {
    realism = realisticPreset();
  } else if (preset != "ideal") {
    r.failAttribute("preset", "must be ideal or realistic (got '" + preset + "')");
  }
  const int seed = r.integer("seed", 1);
  if (seed < 0) r.failAttribute("seed", "must be >= 0");
  realism.seed = static_cast<std::uint64_t>(seed);
  if (const XMLElement* v = e->FirstChildElement("via_points")) {
    const ElementReader vr = readerFor(path, v, kRealismChildren[0]);
    realism.via_point_offset = vr.nonNegative("offset", vr.number("offset"));
  }
  if (const XMLElement* g = e->FirstChildElement("gear")) {
    const ElementReader gr = readerFor(path, g, kRealismChildren[1]);
    auto efficiency = [&gr](const char* name) {
      const double v = gr.number(name);
      if (!(v > 0.0 && v <= 1.0)) gr.failAttribute(name, "must lie in (0, 1]");
      return v;
    };
    realism.gear_efficiency = efficiency("efficiency");
    realism.backdrive_efficiency = efficiency("backdrive_efficiency");
    realism.gear_transition_velocity =
        gr.positive("transition_velocity", gr.number("transition_velocity", realism.gear_transition_velocity));
  }
  if (const XMLElement* h = e->FirstChildElement("motor_heating")) {
    const ElementReader hr = readerFor(path, h, kRealismChildren[2]);
    realism.heating_rise_at_effort = hr.positive("rise_at_effort", hr.number("rise_at_effort"));
    // Past 1 / alpha_Cu the copper's loss grows faster than it can shed
    // heat: the winding runs away at its effort limit (motor_heating.cpp).
    if (!(realism.heating_rise_at_effort < 250.0)) {
      hr.failAttribute("rise_at_effort", "must be below 250 K (beyond, copper's rising resistance runs the winding away)");
    }
    realism.heating_time_constant = hr.positive("time_constant", hr.number("time_constant"));
    realism.heating_magnet_coefficient = hr.number("magnet_coefficient");
    if (!(std::abs(realism.heating_magnet_coefficient) < 0.01)) {
      hr.failAttribute("magnet_coefficient", "must lie within +-0.01 1/K (NdFeB magnets: about -0.0012)");
    }
    realism.heating_initial_rise = hr.nonNegative("initial_rise", hr.number("initial_rise", 0.0));
    if (!(1.0 + realism.heating_magnet_coefficient * realism.heating_initial_rise > 0.5)) {
      hr.failAttribute("initial_rise", "would take more than half of k_T at this magnet coefficient");
    }
  }
  if (const XMLElement* c = e->FirstChildElement("sensor_chain")) {
    // Every attribute absent is that part of the chain left out (0): the
    // element alone is a causal logger that reads each device at its stamp.
    const ElementReader cr = readerFor(path, c, kRealismChildren[3]);
    realism.sensor_chain = true;
    realism.chain_imu_cutoff = cr.nonNegative("imu_cutoff", cr.number("imu_cutoff", 0.0));
    realism.chain_force_cutoff = cr.nonNegative("force_cutoff", cr.number("force_cutoff", 0.0));
    realism.chain_current_cutoff = cr.nonNegative("current_cutoff", cr.number("current_cutoff", 0.0));
    realism.chain_jitter = cr.nonNegative("jitter", cr.number("jitter", 0.0));
    realism.chain_gyro_bias_walk = cr.nonNegative("gyro_bias_walk", cr.number("gyro_bias_walk", 0.0));
    realism.chain_accel_bias_walk = cr.nonNegative("accel_bias_walk", cr.number("accel_bias_walk", 0.0));
    realism.chain_force_crosstalk = cr.nonNegative("force_crosstalk", cr.number("force_crosstalk", 0.0));
    realism.chain_force_gain = cr.nonNegative("force_gain", cr.number("force_gain", 0.0));
    if (!(realism.chain_force_gain < 0.2)) {
      cr.failAttribute("force_gain", "must be below 0.2 (a calibrated sensor's gains are right to a per cent or so)");
    }
    if (!(realism.chain_force_crosstalk < 0.2)) {
      cr.failAttribute("force_crosstalk", "must be below 0.2 (a calibrated sensor couples its axes by a few per cent)");
    }
  }
  if (const XMLElement* a = e->FirstChildElement("attachments")) {
    const ElementReader ar = readerFor(path, a, kRealismChildren[4]);
    realism.attachment_stiffness = ar.positive("stiffness", ar.number("stiffness"));
    realism.attachment_spread = ar.nonNegative("spread", ar.number("spread", 0.0));
    if (!(realism.attachment_spread <= 0.5)) {
      ar.failAttribute("spread", "must be at most 0.5 (a relative spread; each strap keeps at least half the stiffness)");
    }
  }
  if (const XMLElement* h = e->FirstChildElement("hysteresis")) {
    const ElementReader hr = readerFor(path, h, kRealismChildren[5]);
    realism.hysteresis_fraction = hr.positive("relaxing_fraction", hr.number("relaxing_fraction"));
    if (!(realism.hysteresis_fraction <= 10.0)) {
      hr.failAttribute("relaxing_fraction", "must be at most 10 (the arm's k_m / k; fabric bands: about 0.1-0.3)");
    }
    realism.hysteresis_relaxation_time = hr.positive("relaxation_time", hr.number("relaxation_time"));
  }
  if (const XMLElement* c = e->FirstChildElement("compliance")) {
    const ElementReader cr = readerFor(path, c, kRealismChildren[7]);
    realism.compliance_stiffness_per_effort =
        cr.positive("stiffness_per_effort", cr.number("stiffness_per_effort"));
    realism.compliance_backlash = cr.nonNegative("backlash", cr.number("backlash", 0.0));
    if (!(realism.compliance_backlash < 0.1)) {
      cr.failAttribute("backlash", "must be below 0.1 rad (a gear's lost motion is arc minutes: 3e-4 rad each)");
    }
    realism.compliance_damping_ratio = cr.nonNegative("damping_ratio", cr.number("damping_ratio", 0.0));
    if (!(realism.compliance_damping_ratio <= 1.0)) {
      cr.failAttribute("damping_ratio", "must be at most 1 (of critical; gear trains: a few to ten per cent)");
    }
    realism.compliance_spread = cr.nonNegative("spread", cr.number("spread", 0.0));
    if (!(realism.compliance_spread <= 0.5)) {
      cr.failAttribute("spread", "must be at most 0.5 (a unit's stiffness against its datasheet's)");
    }
    const std::string encoder = cr.has("encoder") ? cr.text("encoder") : "link";
    if (encoder != "motor" && encoder != "link") cr.failAttribute("encoder", "must be motor or link");
    realism.compliance_encoder_on_motor = encoder == "motor";
  }
  if (const XMLElement* c = e->FirstChildElement("capstan")) {
    const ElementReader cr = readerFor(path, c, kRealismChildren[6]);
    realism.capstan_friction = cr.nonNegative("friction", cr.number("friction"));
    if (!(realism.capstan_friction <= 2.0)) {
      cr.failAttribute("friction", "must be at most 2 (a band's friction coefficient on fabric or skin: about 0.2-0.6)");
    }
  }
  // Which of them stay on: the budget switches them one at a time.
  if (r.has("sources")) {
    const std::vector<std::string> sources = words(r.text("sources"));
    if (sources.empty()) r.failAttribute("sources", "is empty: list sources, or all or none");
    const bool all = sources.size() == 1 && sources[0] == "all", none = sources.size() == 1 && sources[0] == "none";
    if (!all) {
      try {
        realism = keepSources(realism, none ? std::vector<std::string>{} : sources);
      } catch (const std::invalid_argument& ex) {
        r.failAttribute("sources", ex.what());
      }
    }
  }
  return realism;
}

}  // namespace

Realism loadRealism(const std::string& path) {
  tinyxml2::XMLDocument doc;
  loadXml(path, doc);
  const XMLElement* root = doc.RootElement();
  if (std::string(root->Name()) != "realism") {
    throw SceneError(path + ":" + std::to_string(root->GetLineNum()) + ": <" + root->Name() +
                     "> the root element of a realism file must be <realism>");
  }
  checkNames(path, root, ruleFor(root));
  Realism realism = readRealism(path, root);
  realism.source = path;
  return realism;
}

Realism realismOption(const std::string& value) {
  if (value == "ideal" || value == "realistic") {
    Realism preset = value == "ideal" ? Realism{} : realisticPreset();
    preset.source = value;
    return preset;
  }
  return loadRealism(value);
}

Scene loadScene(const std::string& path, const std::string& trial_name, const Realism* realism) {
  SceneOverrides overrides;
  if (realism) overrides.realism = *realism;
  return loadScene(path, trial_name, overrides);
}

Scene loadScene(const std::string& path, const std::string& trial_name, const SceneOverrides& overrides) {
  tinyxml2::XMLDocument doc;
  const XMLElement* root = checkScene(path, doc);
  const std::string root_location = path + ":" + std::to_string(root->GetLineNum()) + ": <scene>";
  const ElementReader root_reader(path, root, {"name", "relative_to"});
  const std::vector<TrialSpec> trials = readTrials(path, root);
  TrialSpec trial;
  if (!trials.empty()) {
    trial = trials.front();
    if (!trial_name.empty()) {
      const auto it = std::find_if(trials.begin(), trials.end(), [&](const TrialSpec& t) { return t.name == trial_name; });
      if (it == trials.end()) throw SceneError(path + ": no trial named '" + trial_name + "' in the experiment");
      trial = *it;
    }
  } else if (!trial_name.empty()) {
    throw SceneError(path + ": has no <experiment>, so no trial '" + trial_name + "'");
  }

  // Pass 4: read in file order, checking references and physics.
  Scene scene;
  scene.path = path;
  scene.trial = trial;
  scene.name = root_reader.text("name", std::filesystem::path(path).stem().string());
  // The name is written into the stream's comment header: one line only.
  if (std::any_of(scene.name.begin(), scene.name.end(), [](unsigned char c) { return std::iscntrl(c); })) {
    root_reader.failAttribute("name", "must not contain line breaks or control characters");
  }

  ModelBuilder builder;
  readSimulation(readerFor(path, root->FirstChildElement("simulation")), overrides, scene.simulation);
  if (const XMLElement* e = root->FirstChildElement("world")) {
    builder.setGravity(readerFor(path, e).vec3("gravity", {0.0, 0.0, -9.81}));
  }
  if (const XMLElement* e = root->FirstChildElement("ground")) {
    readGround(readerFor(path, e), builder);
    scene.ground_line = e->GetLineNum();
  }
  if (overrides.realism) {
    scene.realism = *overrides.realism;
  } else if (const XMLElement* e = root->FirstChildElement("realism")) {
    scene.realism = readRealism(path, e);
  }

  Names names;
  for (const XMLElement* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string tag = e->Name();
    if (tag == "spring" || tag == "cloth" || tag == "block" || tag == "robot") {
      scene.spring_sources.push_back({tag, e->GetLineNum(), builder.numSprings()});
    }
    if (tag == "particle") {
      readParticle(readerFor(path, e), builder, names);
    } else if (tag == "spring") {
      readSpring(readerFor(path, e), builder, names);
    } else if (tag == "cloth") {
      readCloth(readerFor(path, e), builder, names);
    } else if (tag == "block") {
      readBlock(readerFor(path, e), builder, names);
    } else if (tag == "robot") {
      scene.robot = readRobot(path, e, builder, scene.trial, scene.simulation, overrides, scene.realism);
      // Robot bodies can be recorded like cloths and blocks (their com).
      const RobotSetup& robot = *scene.robot;
      // Every link, merged ones too, names the body it belongs to.
      const int first_body = robot.compiled.link_body[robot.truth.root_link];
      for (std::size_t l = 0; l < robot.truth.links.size(); ++l) {
        const int b = robot.compiled.link_body[l] - first_body;
        std::vector<int>& members = names.bodies[robot.truth.links[l].name];
        for (int k = 0; k < robot.compiled.body_num_particles[b]; ++k) {
          members.push_back(robot.compiled.body_first_particle[b] + k);
        }
      }
    }
  }
  try {
    scene.model = builder.build();
  } catch (const ModelError& e) {
    throw SceneError(root_location + " " + e.what());
  }
  if (scene.robot) finishSensors(scene.model, *scene.robot);
  // --stribeck off: the joints keep their Coulomb and viscous friction and
  // lose the drop at low speed (the same switch the evaluator's model has).
  if (overrides.no_stribeck) {
    std::fill(scene.model.hinge_stribeck_velocity.begin(), scene.model.hinge_stribeck_velocity.end(), 0.0);
  }
  scene.evaluation = readEvaluationSpec(path, root);
  if (scene.robot) {
    checkEvaluationJoints(path, scene.robot->truth, scene.evaluation.validation_joints, scene.evaluation.line,
                          "evaluation", "validation_joints");
    checkEvaluationJoints(path, scene.robot->truth, scene.trial.fit_joints, scene.trial.fit_joints_line, "motion",
                          "fit_joints");
  }

  for (const XMLElement* e = root->FirstChildElement("record"); e; e = e->NextSiblingElement("record")) {
    // A band of a suit this trial does not wear has nothing to record.
    const ElementReader rr = readerFor(path, e);
    if (rr.has("band") && scene.model.findBand(rr.text("band")) < 0 && bandOfSomeSuit(root, rr.text("band"))) continue;
    scene.channels.push_back(readRecord(rr, scene.model, names));
  }
  return scene;
}

}  // namespace suitsim::io
