// Reading a scene's <robot> element (io-internal): the URDF it names, what
// the scene adds to it (actuation, friction, unmodelled payloads, contact
// points, servo, motion), the a-priori parameter set, and compiling the true
// robot into the model builder.
#pragma once

#include <string>

#include <Eigen/Core>
#include <tinyxml2.h>

#include "suitsim/builder.h"
#include "suitsim/scene/motion_csv.h"
#include "suitsim/scene/scene.h"

namespace suitsim::io {

/// Reads <robot> (already checked for unknown names, missing attributes and
/// syntax) and adds the true robot to `builder`: with the bands of the
/// trial's suit and the trial's motion (an empty trial name: the robot's
/// only motion, bands outside suits). Every suit and motion is checked,
/// whichever is chosen. Throws SceneError.
/// `simulation`: the run's settings, overrides applied (the sensors' rate
/// must divide its dt); `overrides`: what else the caller changed (--noise);
/// `realism`: the error sources the truth gets (scene.h).
RobotSetup readRobot(const std::string& scene_path, const tinyxml2::XMLElement* element, ModelBuilder& builder,
                     const TrialSpec& trial, const SimulationSettings& simulation, const SceneOverrides& overrides,
                     const Realism& realism);

/// URDF roll-pitch-yaw (rad) as a rotation: R = Rz(yaw) Ry(pitch) Rx(roll).

/// Adds an object of `mass` (kg) centred at `com` (link frame, m) to a link's
/// inertial: a solid sphere of `radius` (m), a point mass when 0.
void addPayload(LinkInertial& inertial, double mass, const Vec3& com, double radius);

/// Turns the force sensors' contact points (builder contact-point indices
/// while reading) into model contact indices once the model is built.
void finishSensors(const Model& model, RobotSetup& setup);

// readMotionCsv: suitsim/scene/motion_csv.h.

}  // namespace suitsim::io
