#include "evaluator_view.h"

#include <stdexcept>

namespace suitsim::cli {

namespace {

// The sensor's pose in the frame of a link of its body (the engine keeps it
// in the body frame; the evaluator's model locates links, not bodies).
eval::SensorMount mountOf(const std::string& name, int body, const Pose& in_body, const io::RobotSetup& setup) {
  const CompiledRobot& c = setup.compiled;
  for (std::size_t l = 0; l < c.link_body.size(); ++l) {
    if (c.link_body[l] != body) continue;
    const Pose& lb = c.link_in_body[l];  // link frame in the body frame
    Eigen::Matrix3d R_bl, R_bs;
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        R_bl(i, j) = lb.R[3 * i + j];
        R_bs(i, j) = in_body.R[3 * i + j];
      }
    }
    const Eigen::Vector3d p_bl(lb.p[0], lb.p[1], lb.p[2]), p_bs(in_body.p[0], in_body.p[1], in_body.p[2]);
    eval::SensorMount m;
    m.name = name;
    m.link = setup.apriori.links[l].name;
    m.R = R_bl.transpose() * R_bs;
    m.p = R_bl.transpose() * (p_bs - p_bl);
    return m;
  }
  throw std::invalid_argument("sensor '" + name + "' is on no link of the robot");
}

}  // namespace

EvaluatorView loadEvaluatorView(const std::string& scene_path) {
  EvaluatorView view;
  view.scene_path = scene_path;
  std::vector<io::TrialSpec> trials = io::listTrials(scene_path);
  if (trials.empty()) trials.push_back(io::TrialSpec{});
  for (std::size_t k = 0; k < trials.size(); ++k) {
    const io::Scene scene = io::loadScene(scene_path, trials[k].name);
    if (!scene.robot) throw std::invalid_argument(scene_path + ": the scene has no robot to evaluate");
    const io::RobotSetup& robot = *scene.robot;
    if (!robot.sensors) throw std::invalid_argument(scene_path + ": the robot has no <sensors>: nothing to evaluate from");
    if (k == 0) {
      view.scene_name = scene.name;
      view.apriori = robot.apriori;
      const SensorSpec& spec = *robot.sensors;
      view.sensor_rate_hz = spec.rate;
      if (spec.imus.empty()) throw std::invalid_argument(scene_path + ": the robot has no IMU (identification needs one on the base link)");
      view.layout.imu = mountOf(spec.imus.front().name, spec.imus.front().body, spec.imus.front().frame, robot);
      for (const ForceSensorSpec& f : spec.force_sensors) {
        view.layout.force_sensors.push_back(mountOf(f.name, f.body, f.frame, robot));
      }
      view.layout.has_currents = !spec.currents.hinges.empty();
    }
    TrialView t;
    t.spec = scene.trial;
    for (const io::HeldObject& h : robot.held) {
      t.held.push_back({h.link, h.mass, Eigen::Vector3d(h.com[0], h.com[1], h.com[2]), h.radius});
    }
    for (RobotBand b : robot.bands) {
      b.stiffness = 0.0;  // what the evaluator must find, A(26)
      b.natural_length = -1.0;
      b.damping = 0.0;
      t.band_routes.push_back(b);
    }
    view.trials.push_back(std::move(t));
  }
  return view;
}

}  // namespace suitsim::cli
