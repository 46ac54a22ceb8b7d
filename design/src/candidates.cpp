// The motion library (candidates.h).
#include "suitsim/design/candidates.h"

#include "suitsim/core/random.h"

#include <omp.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <random>

#include "suitsim/design/assessment.h"
#include "suitsim/rigid/inverse_kinematics.h"
#include "suitsim/rigid/kinematics.h"
#include "suitsim/rigid/regressor.h"

namespace suitsim::design {

namespace {

constexpr double kMinimumJerkPeak = 1.875;  // peak of d/ds (10 s^3 - 15 s^4 + 6 s^5), at s = 1/2

// Uniform draws as core/random.h specifies them, the same with every
// standard library.
struct Sampler {
  std::mt19937_64 rng;
  double uniform(double lo, double hi) { return canonical(rng) * (hi - lo) + lo; }
};

/// The shortest minimum-jerk segment from `from` to `to` that keeps every
/// joint within `speed_fraction` of its limit (s).
double shortestSegment(const DesignRobot& robot, const std::vector<int>& joints, const Eigen::VectorXd& from,
                       const Eigen::VectorXd& to, double speed_fraction) {
  double t = 0.0;
  for (int j : joints) {
    const double limit = robot.velocity_limit(j) * speed_fraction;
    if (std::isfinite(limit) && limit > 0.0) t = std::max(t, kMinimumJerkPeak * std::abs(to(j) - from(j)) / limit);
  }
  return t;
}

CandidateMotion generateOne(const DesignRobot& robot, const GeneratorOptions& o, std::uint64_t seed, int k) {
  const eval::RigidModel& m = robot.model();
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32), static_cast<std::uint32_t>(k)};
  Sampler s{std::mt19937_64(seq)};
  const double amplitude = s.uniform(o.amplitude_min, o.amplitude_max);

  std::vector<int> joints = robot.leg_joints;
  joints.insert(joints.end(), robot.free_joints.begin(), robot.free_joints.end());
  std::sort(joints.begin(), joints.end());
  const Eigen::VectorXd initial = robot.stance.initial.joints;

  eval::RigidData data(m);
  // Static ZMP margin of a pose: the centre of mass's projection, from the
  // identified base parameters when there are (base rows at rest: Y_o φ).
  Eigen::MatrixXd Y, Yb;
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(m.nv);
  auto staticZmp = [&](const Eigen::VectorXd& joints_q, bool identified) {
    eval::Configuration q = robot.stance.initial;
    q.joints = joints_q;
    eval::placeBaseOnSupport(m, data, robot.foot_pose.front(), q);
    Eigen::Vector2d zmp;
    if (identified && o.balance_phi.size() == robot.base.numBase()) {
      eval::regressor(m, data, q, zero, zero, Y);
      Yb = robot.base.reduce(Y);
      const Eigen::VectorXd wrench = Yb.topRows(6) * o.balance_phi;
      zmp = eval::zeroMomentPoint(q, wrench.head<3>(), wrench.segment<3>(3), robot.stance.ground);
    } else {
      zmp = eval::groundCoordinates(robot.stance.ground, eval::centerOfMass(m, data, q));
    }
    return zmp;
  };
  auto staticMargin = [&](const Eigen::VectorXd& joints_q) {
    return eval::polygonMargin(robot.polygon, staticZmp(joints_q, true));
  };


  // The legs' problem: every foot held, the root lowered and tilted, the
  // centre of mass inside the shrunk polygon. The solver knows the a-priori
  // centre of mass only; the region moves by where the identified model puts
  // it in the stance.
  eval::IkProblem ik;
  ik.free_joints = robot.leg_joints;
  ik.joint_lower = robot.stance.joint_lower;
  ik.joint_upper = robot.stance.joint_upper;
  ik.fixed_frames = robot.foot_pose;
  ik.ground = robot.stance.ground;
  const int root_frame = m.body_link[0];
  ik.orientation_frame = root_frame;
  ik.height_frame = root_frame;
  const double root_height = eval::heightAboveGround(robot.stance.ground, robot.stance.initial.base_p);
  eval::SupportPolygon region = eval::shrinkPolygon(robot.polygon, o.com_margin);
  const Eigen::Vector2d shift = staticZmp(initial, true) - staticZmp(initial, false);
  for (Eigen::Vector2d& p : region.vertices) p -= shift;
  if (!region.empty()) {
    ik.com = eval::ComTask::kInside;
    ik.com_region = region;
  }
  eval::IkOptions ik_options;
  ik_options.tolerance = 1e-7;
  ik_options.max_iterations = 200;
  eval::Configuration last = robot.stance.initial;

  // Whether the minimum-jerk segment from `from` to `to` keeps the ZMP
  // margin, stretching `duration` up to `slowdowns` times by 1.3.
  Eigen::MatrixXd Ys, Ybs;
  auto slowEnough = [&](const Eigen::VectorXd& from, const Eigen::VectorXd& to, double& duration) {
    std::vector<double> angles;
    for (const Eigen::VectorXd* f : {&from, &to}) {
      for (int j : joints) angles.push_back((*f)(j));
    }
    for (int slow = 0; slow <= o.slowdowns; ++slow, duration *= 1.3) {
      CandidateMotion segment;
      segment.reference = Motion::minimumJerk(joints, {0.0, duration}, angles);
      double least = std::numeric_limits<double>::infinity();
      eval::forEachFeetFlatSample(
          m, data, candidateTrajectory(robot, segment), 0.0, duration, o.balance_dt, robot.foot_pose.front(),
          [&](double, const eval::Configuration& q, const Eigen::VectorXd& v, const Eigen::VectorXd& a) {
            least = std::min(least, zmpMargin(robot, o.balance_phi, data, q, v, a, Ys, Ybs));
          });
      if (least >= o.com_margin) return true;
    }
    duration /= 1.3;
    return false;
  };

  std::vector<Eigen::VectorXd> frames{initial};
  std::vector<double> times{o.start_s};
  for (;;) {
    Eigen::VectorXd target = frames.back();
    bool found = false;
    double scale = amplitude;
    for (int attempt = 0; attempt < o.tries && !found; ++attempt, scale *= 0.8) {
      target = frames.back();
      eval::Configuration solved_q = last;
      for (int j : robot.free_joints) {
        const double q0 = initial(j);
        double lo = robot.stance.joint_lower(j), hi = robot.stance.joint_upper(j);
        if (std::isfinite(lo) && std::isfinite(hi)) {
          const double pad = o.limit_padding * (hi - lo);
          lo += pad;
          hi -= pad;
        } else {
          lo = q0 - o.unlimited_range;
          hi = q0 + o.unlimited_range;
        }
        const double u = s.uniform(-1.0, 1.0);
        const double reach = u > 0.0 ? std::max(0.0, hi - q0) : std::max(0.0, q0 - lo);
        target(j) = std::clamp(q0 + scale * u * reach, std::min(lo, q0), std::max(hi, q0));
      }
      if (!robot.leg_joints.empty()) {
        const double roll = scale * o.tilt * s.uniform(-1.0, 1.0);
        const double pitch = scale * o.tilt * s.uniform(-1.0, 1.0);
        const double yaw = scale * o.tilt * s.uniform(-1.0, 1.0);
        const double drop = scale * o.height_drop * robot.leg_length * s.uniform(0.0, 1.0);
        ik.orientation_W = (Eigen::AngleAxisd(yaw, Eigen::Vector3d::UnitZ()) *
                            Eigen::AngleAxisd(pitch, Eigen::Vector3d::UnitY()) *
                            Eigen::AngleAxisd(roll, Eigen::Vector3d::UnitX()))
                               .toRotationMatrix() *
                           robot.stance.initial.base_R;
        ik.height = root_height - drop;
        eval::Configuration start = last;
        start.joints = target;  // the upper body's new pose moves the centre of mass
        eval::IkResult solved = eval::solveInverseKinematics(m, data, ik, start, ik_options);
        if (!solved.converged) {
          // Legs that cannot tilt the root every way (no ankle roll) may
          // still lower it.
          eval::IkProblem lower = ik;
          lower.orientation_frame = -1;
          solved = eval::solveInverseKinematics(m, data, lower, start, ik_options);
        }
        if (solved.converged) {
          for (int j : robot.leg_joints) target(j) = solved.q.joints(j);
          solved_q = solved.q;
        } else {
          for (int j : robot.leg_joints) target(j) = frames.back()(j);
        }
      }
      if (staticMargin(target) >= o.com_margin) {
        found = true;
        last = solved_q;
      }
    }
    if (!found) target = frames.back();  // this keyframe holds the pose before
    double segment = s.uniform(o.segment_min_s, o.segment_max_s);
    segment = std::max(segment, shortestSegment(robot, joints, frames.back(), target, o.speed_fraction));
    // The way there, slowed down until its ZMP keeps the margin; a way that
    // does not even then is not taken.
    if (found && !slowEnough(frames.back(), target, segment)) target = frames.back();
    const double back = std::max(o.segment_max_s, shortestSegment(robot, joints, target, initial, o.speed_fraction));
    if (times.back() + segment + back > o.end_s) break;
    times.push_back(times.back() + segment);
    frames.push_back(target);
  }
  // Back to the initial pose, the robot standing as it started.
  if (frames.size() > 1) {
    double back = std::max(o.segment_max_s, shortestSegment(robot, joints, frames.back(), initial, o.speed_fraction));
    slowEnough(frames.back(), initial, back);
    times.push_back(times.back() + back);
    frames.push_back(initial);
  }

  CandidateMotion c;
  char name[32];
  std::snprintf(name, sizeof name, "gen_%04d", k);
  c.name = name;
  c.source = "generated";
  c.time = times;
  for (const Eigen::VectorXd& f : frames) {
    for (int j : joints) c.angles.push_back(f(j));
  }
  c.reference = Motion::minimumJerk(joints, c.time, c.angles);
  return c;
}

}  // namespace

std::vector<CandidateMotion> generateCandidates(const DesignRobot& robot, const GeneratorOptions& options, int count,
                                                std::uint64_t seed, int threads) {
  std::vector<CandidateMotion> out(static_cast<std::size_t>(std::max(count, 0)));
#pragma omp parallel for schedule(dynamic) num_threads(threads > 0 ? threads : omp_get_max_threads())
  for (int k = 0; k < count; ++k) out[static_cast<std::size_t>(k)] = generateOne(robot, options, seed, k);
  return out;
}

CandidateMotion candidateFromTable(const DesignRobot& robot, const io::MotionTable& table, const std::string& path) {
  const eval::RigidModel& m = robot.model();
  std::vector<int> joints;
  for (const std::string& name : table.joints) {
    const int j = eval::jointIndex(m, name);
    const bool moved = std::find(robot.leg_joints.begin(), robot.leg_joints.end(), j) != robot.leg_joints.end() ||
                       std::find(robot.free_joints.begin(), robot.free_joints.end(), j) != robot.free_joints.end();
    if (j < 0 || !moved) {
      throw io::SceneError(path + ":" + std::to_string(table.header_line) + ": column '" + name + "' names no joint of the robot that the servo drives");
    }
    joints.push_back(j);
  }
  CandidateMotion c;
  c.name = std::filesystem::path(path).stem().string();
  c.source = path;
  c.time = table.time;
  c.angles = table.angles;
  c.minimum_jerk = false;
  c.reference = Motion(joints, c.time, c.angles);
  return c;
}

CandidateMotion candidateFromSetup(const DesignRobot& robot, const io::RobotSetup& setup, const std::string& name) {
  const eval::RigidModel& m = robot.model();
  std::vector<int> joints;
  for (int hinge : setup.motion.hinges()) {
    int joint = -1;
    for (int j = 0; j < m.num_joints; ++j) {
      if (setup.compiled.joint_hinge[static_cast<std::size_t>(m.joint_source[static_cast<std::size_t>(j)])] == hinge) joint = j;
    }
    if (joint < 0) throw std::invalid_argument("motion '" + name + "' drives a joint the rigid model does not have");
    joints.push_back(joint);
  }
  CandidateMotion c;
  c.name = name;
  c.source = "scene";
  c.reference = setup.motion.renumbered(joints);
  return c;
}

std::string limitViolation(const DesignRobot& robot, const CandidateMotion& candidate, double speed_fraction,
                           double dt) {
  const std::vector<int>& joints = candidate.joints();
  std::vector<double> angle(joints.size()), rate(joints.size());
  const int n = static_cast<int>(std::ceil(candidate.duration() / dt));
  char buf[256];
  for (int k = 0; k <= n; ++k) {
    const double t = std::min(k * dt, candidate.duration());
    candidate.reference.sample(t, angle.data(), rate.data());
    for (std::size_t i = 0; i < joints.size(); ++i) {
      const int j = joints[i];
      const std::string& name = robot.model().joint_name[static_cast<std::size_t>(j)];
      if (angle[i] < robot.stance.joint_lower(j) - 1e-9 || angle[i] > robot.stance.joint_upper(j) + 1e-9) {
        std::snprintf(buf, sizeof buf, "joint '%s' at %.4g rad at t = %.2f s, outside its limits [%.4g, %.4g]",
                      name.c_str(), angle[i], t, robot.stance.joint_lower(j), robot.stance.joint_upper(j));
        return buf;
      }
      const double limit = speed_fraction * robot.velocity_limit(j);
      if (std::abs(rate[i]) > limit * (1.0 + 1e-9)) {
        std::snprintf(buf, sizeof buf, "joint '%s' at %.4g rad/s at t = %.2f s, faster than %.4g rad/s (%.3g of its limit)",
                      name.c_str(), std::abs(rate[i]), t, limit, speed_fraction);
        return buf;
      }
    }
  }
  return {};
}

}  // namespace suitsim::design
