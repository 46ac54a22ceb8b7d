#include "suitsim/eval/load_inputs.h"

#include <algorithm>
#include <stdexcept>

#include "suitsim/core/rotation.h"
#include "suitsim/scene/scene.h"

namespace suitsim::eval {

namespace {

// A sensor as the scene declares it: on a link of the description, its
// pose in that link's frame (SceneRobot::declared_sensors).
SensorMount mountOf(const std::string& name, int link, const Pose& in_link, const io::SceneRobot& setup) {
  SensorMount m;
  m.name = name;
  m.link = setup.apriori.links[link].name;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) m.R(i, j) = in_link.R[3 * i + j];
    m.p(i) = in_link.p[i];
  }
  return m;
}

}  // namespace

EvaluationInputs loadEvaluationInputs(const std::string& scene_path) {
  EvaluationInputs in;
  in.scene_path = scene_path;
  std::vector<io::TrialSpec> trials = io::listTrials(scene_path);
  if (trials.empty()) trials.push_back(io::TrialSpec{});
  for (std::size_t k = 0; k < trials.size(); ++k) {
    // The description only: the evaluator's inputs need no particle model.
    const io::SceneDescription scene = io::readScene(scene_path, trials[k].name);
    if (!scene.robot) throw std::invalid_argument(scene_path + ": the scene has no robot to evaluate");
    const io::SceneRobot& robot = *scene.robot;
    if (!robot.declared_sensors) throw std::invalid_argument(scene_path + ": the robot has no <sensors>: nothing to evaluate from");
    if (k == 0) {
      in.scene_name = scene.name;
      in.apriori = robot.apriori;
      const SensorSpec& spec = *robot.declared_sensors;
      in.sensor_rate_hz = spec.rate;
      // A floating base is identified in its IMU's frame (A §3.2); a fixed
      // base on its rig needs none: the rig's pose is known.
      if (spec.imus.empty() && robot.apriori.floating_base) {
        throw std::invalid_argument(scene_path + ": the robot has no IMU (identification needs one on the base link)");
      }
      if (!spec.imus.empty()) {
        in.layout.imu = mountOf(spec.imus.front().name, spec.imus.front().body, spec.imus.front().frame, robot);
      }
      in.robot_line = robot.line;
      if (!robot.apriori.floating_base) {
        in.rig_R = rotationFromRpy(robot.initial_pose.base_rpy);
        in.rig_p = Eigen::Vector3d(robot.initial_pose.base_position[0], robot.initial_pose.base_position[1],
                                   robot.initial_pose.base_position[2]);
      }
      for (const ForceSensorSpec& f : spec.force_sensors) {
        in.layout.force_sensors.push_back(mountOf(f.name, f.body, f.frame, robot));
      }
      in.layout.has_currents = !spec.currents.hinges.empty();
      in.layout.has_winding_temperatures = !spec.winding_temperatures.hinges.empty();
      in.layout.has_joint_torques = !spec.joint_torques.hinges.empty();
      // The URDF's limits bound what an encoder can read (readSensorStream);
      // a continuous joint has none.
      for (const RobotJoint& j : robot.apriori.joints) {
        if (j.type == JointType::kRevolute) in.layout.joint_limits[j.name] = {j.lower, j.upper};
      }
      const RigidModel rigid = makeRigidModel(robot.apriori);
      for (const suitsim::ContactPoint& c : robot.contacts) {
        const int frame = frameIndex(rigid, c.link);
        if (frame < 0) throw std::invalid_argument(scene_path + ": contact link '" + c.link + "' is no link of the robot");
        in.soles.push_back({frame, Eigen::Vector3d(c.position[0], c.position[1], c.position[2])});
      }
      in.validation_joints = scene.evaluation.validation_joints;
      in.attachment_stiffness = robot.apriori_attachment_stiffness;
    }
    if (!robot.declared_sensors->band_lengths.names.empty()) in.layout.has_band_lengths = true;
    TrialInfo t;
    t.name = scene.trial.name;
    t.motion = scene.trial.motion;
    t.suit = scene.trial.suit;
    t.device = scene.trial.device;
    // A worn device as designed: structure, motors and where it is strapped;
    // its controller's settings stay in the scene (they are what is identified).
    if (robot.exoskeleton && std::none_of(in.devices.begin(), in.devices.end(),
                                          [&](const DeviceDesign& d) { return d.name == robot.exoskeleton->name; })) {
      const ExoskeletonSpec& spec = *robot.exoskeleton;
      DeviceDesign d;
      d.name = spec.name;
      // The device as a floating robot is placed on the compiled truth
      // (addExoskeleton): this trial alone is compiled for it.
      d.description = io::compileScene(scene).robot->exoskeleton_compiled.description;
      for (std::size_t s = 1; s < spec.segments.size(); ++s) {
        d.joints.push_back(exoPartName(spec, static_cast<int>(s)));
        d.aligned_joints.push_back(robot.truth.joints[spec.segments[s].joint].name);
        d.worn_links.push_back(robot.truth.links[spec.segments[s].link].name);
      }
      d.root_link = robot.truth.links[spec.segments.front().link].name;
      for (const ExoStrap& strap : spec.straps) d.strap_links.push_back(robot.truth.links[spec.segments[strap.segment].link].name);
      d.coulomb_velocity = spec.coulomb_velocity;
      d.acceleration_cutoff_hz = spec.acceleration_cutoff_hz;
      d.control_rate_hz = spec.rate_hz;
      in.devices.push_back(std::move(d));
    }
    t.purpose = scene.trial.purpose;
    t.line = scene.trial.line;
    t.fit_joints = scene.trial.fit_joints;
    for (const io::HeldObject& h : robot.held) {
      t.held.push_back({h.link, h.mass, Eigen::Vector3d(h.com[0], h.com[1], h.com[2]), h.radius});
    }
    // The routing only: routeOf drops stiffness and natural length.
    // The suit as designed: the evaluator never sees where the bands sit as worn.
    for (std::size_t b = 0; b < robot.bands.size(); ++b) {
      RobotBand designed = robot.bands[b];
      designed.points = robot.band_designed_points[b];
      t.bands.push_back(routeOf(designed));
    }
    in.trials.push_back(std::move(t));
  }
  return in;
}

}  // namespace suitsim::eval
