// The stages of reading a scene's <robot> (readRobot, robot_scene.h), in the
// order readRobot runs them, and what they share. Each stage reads its own
// elements and checks them at their lines and resolves names to the robot's
// description; none builds particles (compileRobot, robot_compile_stage.cpp,
// puts the result on the model).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <tinyxml2.h>

#include "robot_scene.h"
#include "suitsim/scene/xml_reader.h"

namespace suitsim::io {

/// What readRobot's stages share while one <robot> is read.
struct RobotReading {
  const std::string& scene_path;
  const tinyxml2::XMLElement* element;  ///< the <robot>
  ElementReader r;                      ///< its reader
  const TrialSpec& trial;
  const SimulationSettings& simulation;  ///< the run's, overrides applied
  const SceneOverrides& overrides;
  const Realism& realism;
  const GroundModel& ground;             ///< the scene's <ground> (not enabled: none)
  SceneRobot setup = {};                 ///< what the stages fill in
  RobotPose pose = {};                   ///< the initial pose, for the compile and the keyframes
  std::vector<ContactPoint> contacts = {};  ///< the <contact> points, in order
  RobotDescription without_payloads = {};   ///< the truth before <payload>s (the a-priori set's base)
  RobotDescription with_payloads = {};      ///< ... after them (<apriori payloads="true">)
  const tinyxml2::XMLElement* selected_motion = nullptr;  ///< the trial's <motion>
  /// Every motion's held objects (the trial's are also in the truth).
  std::map<const tinyxml2::XMLElement*, std::vector<HeldObject>> held_in = {};

  /// The <robot>'s children named `tag`, in file order.
  std::vector<const tinyxml2::XMLElement*> children(const char* tag) const;
};

// The stages (robot_scene.cpp unless named).
void readBands(RobotReading& in);           // robot_bands.cpp
void drawBandRealism(RobotReading& in);     // realism_draws.cpp
void drawJointRealism(RobotReading& in);    // realism_draws.cpp
void readDevices(RobotReading& in);         // robot_devices.cpp
void readRobotSensors(RobotReading& in);    // robot_sensors.cpp
void drawSensorChain(RobotReading& in);     // realism_draws.cpp
void readExternalForces(RobotReading& in);  // robot_devices.cpp
void readApriori(RobotReading& in);         // robot_apriori.cpp
void readMotions(RobotReading& in);         // robot_motions.cpp

// The attribute forms the stages share (robot_elements.cpp).

/// Points "x y z; x y z; ..." from attribute `attr` (empty items skipped).
std::vector<Vec3> pointList(const ElementReader& r, const char* attr);
/// A joint of the robot named in attribute `attr`; it must be movable.
int movableJoint(const ElementReader& r, const char* attr, const RobotDescription& robot, const std::string& name);
/// Whether a value given for a mimic follower agrees with its coupling.
bool agreesWithCoupling(double given, double scaled_leader, double offset);
/// The text naming a contradiction between a follower's value and its coupling's.
std::string couplingConflict(const RobotDescription& robot, int j, const std::string& what, double given,
                             double leader_value);
/// Refuses a follower's value that contradicts its leader's; returns whether j is a coupled follower.
bool checkFollower(const ElementReader& r, const char* attr, const RobotDescription& robot, int j, double given,
                   double leader_value);
/// The joints an element applies to: its `joints` list, or every movable one.
std::vector<int> jointList(const ElementReader& r, const RobotDescription& robot);
/// "NAME:value NAME:value ..." into (joint, value) pairs.
std::vector<std::pair<int, double>> jointValues(const ElementReader& r, const char* attr,
                                                const RobotDescription& robot);
/// A file the scene names, relative to the scene's folder (or its root's relative_to).
std::string resolve(const std::string& scene_path, const tinyxml2::XMLElement* element, const std::string& file);

/// An <exoskeleton>'s segments and straps, names resolved (robot_devices.cpp).
ExoskeletonSpec readExoskeleton(const std::string& path, const tinyxml2::XMLElement* element,
                                const RobotDescription& robot);

}  // namespace suitsim::io
