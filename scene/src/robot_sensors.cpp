// The robot's <sensors> (sensors.h): what each sensor reads, resolved to
// the robot's links, joints, contacts and bands, placed on the compiled
// model's bodies, hinges, contacts and bands by the compile; and the joints
// of a worn device, logged like the robot's.
#include "robot_reading.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "suitsim/core/rotation.h"

namespace suitsim::io {

using tinyxml2::XMLElement;

namespace {

/// A name that becomes a CSV column prefix ("rfsensor.force.z[N]").
void checkColumnName(const ElementReader& r, const char* attr, const std::string& name) {
  if (name.empty()) r.failAttribute(attr, "must not be empty");
  for (const unsigned char ch : name) {
    if (std::isspace(ch) || std::iscntrl(ch) || ch == ',' || ch == '"' || ch == '\'') {
      r.failAttribute(attr, "must not contain spaces, commas or quotes (it becomes a column name)");
    }
  }
}

/// A sensor's frame in its link's frame: xyz, rpy as given.
Pose sensorFrame(const ElementReader& r) {
  const Vec3 xyz = r.vec3("xyz", {0.0, 0.0, 0.0});
  const Eigen::Matrix3d R = rotationFromRpy(r.vec3("rpy", {0.0, 0.0, 0.0}));
  Pose out;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) out.R[3 * i + j] = R(i, j);
    out.p[i] = xyz[i];
  }
  return out;
}

/// The frame `in_link` (a sensor's pose in link l's frame) moved into the
/// frame of the body that carries l: the link's frame in the body composed
/// with it.
Pose inBody(const CompiledRobot& compiled, int l, const Pose& in_link) {
  const Pose& lb = compiled.link_in_body[l];
  Eigen::Matrix3d R_lb, R_sl;
  R_lb << lb.R[0], lb.R[1], lb.R[2], lb.R[3], lb.R[4], lb.R[5], lb.R[6], lb.R[7], lb.R[8];
  R_sl << in_link.R[0], in_link.R[1], in_link.R[2], in_link.R[3], in_link.R[4], in_link.R[5], in_link.R[6],
      in_link.R[7], in_link.R[8];
  const Eigen::Matrix3d R = R_lb * R_sl;
  const Eigen::Vector3d p =
      R_lb * Eigen::Vector3d(in_link.p[0], in_link.p[1], in_link.p[2]) + Eigen::Vector3d(lb.p[0], lb.p[1], lb.p[2]);
  Pose out;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) out.R[3 * i + j] = R(i, j);
    out.p[i] = p[i];
  }
  return out;
}

/// The link that starts the rigid part carrying link l: up through fixed
/// joints (frozen ones included), which the compile welds into one body.
int weldedRoot(const RobotDescription& robot, int l) {
  for (int j = robot.links[l].parent_joint; j >= 0 && robot.joints[j].type == JointType::kFixed;
       j = robot.links[l].parent_joint) {
    l = robot.joints[j].parent_link;
  }
  return l;
}

/// The description joints and names an element lists (all movable ones by default).
void sensorJoints(const ElementReader& r, const SceneRobot& setup, std::vector<int>* joints,
                  std::vector<std::string>* names) {
  for (int j : jointList(r, setup.truth)) {
    joints->push_back(j);
    names->push_back(setup.truth.joints[j].name);
  }
}

/// <sensors rate seed noise anti_alias> with <encoders>, <imu>, <force_sensor>s,
/// <currents>, <winding_temperatures>, <joint_torques> and <band_lengths>,
/// on the description (SceneRobot::declared_sensors says what each index is).
SensorSpec readSensors(const std::string& scene_path, const XMLElement* element, const SceneRobot& setup,
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
    } else if (tag == "joint_torques") {
      // A link-side torque sensor per joint (sensors.h): what the drive
      // passes to the link, after the gear and its friction.
      sensorJoints(cr, setup, &spec.joint_torques.hinges, &spec.joint_torques.names);
      spec.joint_torques.noise = cr.nonNegative("noise", cr.number("noise", 0.0));
      spec.joint_torques.bias = cr.number("bias", 0.0);
      spec.joint_torques.resolution = cr.nonNegative("resolution", cr.number("resolution", 0.0));
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
        spec.band_lengths.bands.push_back(static_cast<int>(k));
        spec.band_lengths.names.push_back(setup.bands[k].name);
      }
      spec.band_lengths.noise = cr.nonNegative("noise", cr.number("noise", 0.0));
      spec.band_lengths.bias = cr.number("bias", 0.0);
      spec.band_lengths.resolution = cr.nonNegative("resolution", cr.number("resolution", 0.0));
    } else if (tag == "imu") {
      ImuSpec imu;
      imu.name = cr.text("name", "imu");
      claim(cr, "name", imu.name);
      imu.body = linkOf(cr);
      imu.frame = sensorFrame(cr);
      imu.gyro_noise = cr.nonNegative("gyro_noise", cr.number("gyro_noise", 0.0));
      imu.gyro_bias = cr.vec3("gyro_bias", {0.0, 0.0, 0.0});
      imu.accel_noise = cr.nonNegative("accel_noise", cr.number("accel_noise", 0.0));
      imu.accel_bias = cr.vec3("accel_bias", {0.0, 0.0, 0.0});
      spec.imus.push_back(imu);
    } else if (tag == "force_sensor") {
      ForceSensorSpec fs;
      fs.name = cr.text("name");
      claim(cr, "name", fs.name);
      fs.body = linkOf(cr);
      fs.frame = sensorFrame(cr);
      fs.force_noise = cr.nonNegative("force_noise", cr.number("force_noise", 0.0));
      fs.torque_noise = cr.nonNegative("torque_noise", cr.number("torque_noise", 0.0));
      fs.force_resolution = cr.nonNegative("force_resolution", cr.number("force_resolution", 0.0));
      fs.torque_resolution = cr.nonNegative("torque_resolution", cr.number("torque_resolution", 0.0));
      // Every contact point on the sensor's body (its link and any link
      // merged with it): the sensor carries all the ground force the foot gets.
      const int part = weldedRoot(robot, fs.body);
      for (std::size_t k = 0; k < setup.contact_link.size(); ++k) {
        if (weldedRoot(robot, setup.contact_link[k]) == part) fs.contacts.push_back(static_cast<int>(k));
      }
      if (fs.contacts.empty()) cr.failAttribute("link", "has no <contact> points on its body (nothing to measure)");
      spec.force_sensors.push_back(fs);
    }
  }
  return spec;
}

}  // namespace

void placeSensors(RobotSetup& setup) {
  if (!setup.declared_sensors) return;
  SensorSpec spec = *setup.declared_sensors;
  const CompiledRobot& c = setup.compiled;
  for (std::vector<int>* hinges : {&spec.encoders.hinges, &spec.currents.hinges, &spec.winding_temperatures.hinges,
                                   &spec.joint_torques.hinges}) {
    for (int& j : *hinges) j = c.joint_hinge[j];
  }
  for (ImuSpec& imu : spec.imus) {
    imu.frame = inBody(c, imu.body, imu.frame);
    imu.body = c.link_body[imu.body];
  }
  // Contact points become builder indices here and the model's in finishSensors.
  for (ForceSensorSpec& fs : spec.force_sensors) {
    fs.frame = inBody(c, fs.body, fs.frame);
    fs.body = c.link_body[fs.body];
    for (int& k : fs.contacts) k = c.contact_point[k];
  }
  for (int& k : spec.band_lengths.bands) k = c.band[k];
  setup.sensors = std::move(spec);
}

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

void readRobotSensors(RobotReading& in) {
  const std::string& scene_path = in.scene_path;
  const XMLElement* element = in.element;
  SceneRobot& setup = in.setup;
  const SimulationSettings& simulation = in.simulation;
  const SceneOverrides& overrides = in.overrides;
  if (const XMLElement* e = element->FirstChildElement("sensors")) {
    setup.declared_sensors = readSensors(scene_path, e, setup, simulation.dt, overrides.dt > 0.0, overrides.noise);
    setup.sensors_line = e->GetLineNum();
  }
}

void addDeviceSensors(RobotSetup& setup) {
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

}

}  // namespace suitsim::io
