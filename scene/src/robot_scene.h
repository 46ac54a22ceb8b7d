// Reading a scene's <robot> element (io-internal): the URDF it names, what
// the scene adds to it (actuation, friction, unmodelled payloads, contact
// points, servo, motion) and the a-priori parameter set; and compiling the
// true robot into the model builder.
#pragma once

#include <string>

#include <Eigen/Core>
#include <tinyxml2.h>

#include "suitsim/builder.h"
#include "suitsim/scene/motion_csv.h"
#include "suitsim/scene/scene.h"

namespace suitsim::io {

/// Reads <robot> (already checked for unknown names, missing attributes and
/// syntax) into its description: with the bands of the trial's suit and the
/// trial's motion (an empty trial name: the robot's only motion, bands
/// outside suits). Every suit, device and motion is checked, whichever is
/// chosen. Builds no particle. Throws SceneError.
/// `ground`: the scene's (not enabled: none); `simulation`: the run's
/// settings, overrides applied (the sensors' rate must divide its dt);
/// `overrides`: what else the caller changed (--noise); `realism`: the
/// error sources the truth gets (scene.h).
SceneRobot readRobot(const std::string& scene_path, const tinyxml2::XMLElement* element, const GroundModel& ground,
                     const TrialSpec& trial, const SimulationSettings& simulation, const SceneOverrides& overrides,
                     const Realism& realism);

/// Compiles a read robot (`element`: its <robot>) into `builder`: the truth
/// with its suit's bands (auto natural lengths resolved), every device (the
/// worn one into `builder`, the others into a copy), the servo's gains, the
/// sensors and the motion on the builder's hinges, bodies, contacts and
/// bands. Throws SceneError at the element that cannot be built
/// (robot_compile_stage.cpp).
RobotSetup compileRobot(const std::string& scene_path, const tinyxml2::XMLElement* element, const SceneRobot& robot,
                        ModelBuilder& builder);

/// URDF roll-pitch-yaw (rad) as a rotation: R = Rz(yaw) Ry(pitch) Rx(roll).

/// Adds an object of `mass` (kg) centred at `com` (link frame, m) to a link's
/// inertial: a solid sphere of `radius` (m), a point mass when 0.
void addPayload(LinkInertial& inertial, double mass, const Vec3& com, double radius);

/// The declared sensors (SceneRobot::declared_sensors) on the compiled
/// robot: joints to hinges, links to bodies (frames into the body's),
/// contact points and bands to the builder's (robot_sensors.cpp).
void placeSensors(RobotSetup& setup);

/// A worn device's joints logged like the robot's, and its attitude.
void addDeviceSensors(RobotSetup& setup);

/// Turns the force sensors' contact points (builder contact-point indices
/// after placeSensors) into model contact indices once the model is built.
void finishSensors(const Model& model, RobotSetup& setup);

// readMotionCsv: suitsim/scene/motion_csv.h.

}  // namespace suitsim::io
