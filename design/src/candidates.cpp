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

/// One generated motion's keyframes (candidates.h): its random draws, in a
/// fixed order, and the checks each keyframe and segment must pass.
class KeyframeGenerator {
 public:
  KeyframeGenerator(const DesignRobot& robot, const GeneratorOptions& o, std::uint64_t seed, int k)
      : robot_(robot), o_(o), m_(robot.model()), data_(m_), initial_(robot.stance.initial.joints),
        last_(robot.stance.initial) {
    std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                      static_cast<std::uint32_t>(k)};
    s_.rng = std::mt19937_64(seq);
    amplitude_ = s_.uniform(o.amplitude_min, o.amplitude_max);
    joints_ = robot.leg_joints;
    joints_.insert(joints_.end(), robot.free_joints.begin(), robot.free_joints.end());
    std::sort(joints_.begin(), joints_.end());
    zero_ = Eigen::VectorXd::Zero(m_.nv);
    setUpLegs();
  }

  const std::vector<int>& joints() const { return joints_; }

  /// Keyframes from the initial pose until the trial's end leaves no room,
  /// then back to the initial pose.
  void run(std::vector<double>& times, std::vector<Eigen::VectorXd>& frames) {
    frames = {initial_};
    times = {o_.start_s};
    for (;;) {
      double scale = amplitude_;
      bool found = false;
      Eigen::VectorXd target = frames.back();
      for (int attempt = 0; attempt < o_.tries && !found; ++attempt, scale *= 0.8) {
        found = drawKeyframe(frames.back(), scale, target);
      }
      if (!found) target = frames.back();  // this keyframe holds the pose before
      double segment = s_.uniform(o_.segment_min_s, o_.segment_max_s);
      segment = std::max(segment, shortestSegment(robot_, joints_, frames.back(), target, o_.speed_fraction));
      // The way there, slowed down until its ZMP keeps the margin; a way that
      // does not even then is not taken.
      if (found && !slowEnough(frames.back(), target, segment)) target = frames.back();
      const double back = std::max(o_.segment_max_s, shortestSegment(robot_, joints_, target, initial_, o_.speed_fraction));
      if (times.back() + segment + back > o_.end_s) break;
      times.push_back(times.back() + segment);
      frames.push_back(target);
    }
    // Back to the initial pose, the robot standing as it started.
    if (frames.size() > 1) {
      double back = std::max(o_.segment_max_s, shortestSegment(robot_, joints_, frames.back(), initial_, o_.speed_fraction));
      slowEnough(frames.back(), initial_, back);
      times.push_back(times.back() + back);
      frames.push_back(initial_);
    }
  }

 private:
  // Static ZMP of a pose: the centre of mass's projection, from the
  // identified base parameters when there are (base rows at rest: Y_o φ).
  Eigen::Vector2d staticZmp(const Eigen::VectorXd& joints_q, bool identified) {
    eval::Configuration q = robot_.stance.initial;
    q.joints = joints_q;
    eval::placeBaseOnSupport(m_, data_, robot_.foot_pose.front(), q);
    if (identified && o_.balance_phi.size() == robot_.base.numBase()) {
      eval::regressor(m_, data_, q, zero_, zero_, Y_);
      Yb_ = robot_.base.reduce(Y_);
      const Eigen::Matrix<double, 6, 1> wrench = contactWrench(robot_, Y_, Yb_, o_.balance_phi);
      return eval::zeroMomentPoint(q, wrench.head<3>(), wrench.segment<3>(3), robot_.stance.ground);
    }
    return eval::groundCoordinates(robot_.stance.ground, eval::centerOfMass(m_, data_, q));
  }
  double staticMargin(const Eigen::VectorXd& joints_q) {
    return eval::polygonMargin(robot_.polygon, staticZmp(joints_q, true));
  }

  // The legs' problem: every foot held, the root lowered and tilted, the
  // centre of mass inside the shrunk polygon. The solver knows the a-priori
  // centre of mass only; the region moves by where the identified model puts
  // it in the stance.
  void setUpLegs() {
    ik_.free_joints = robot_.leg_joints;
    ik_.joint_lower = robot_.stance.joint_lower;
    ik_.joint_upper = robot_.stance.joint_upper;
    ik_.fixed_frames = robot_.foot_pose;
    ik_.ground = robot_.stance.ground;
    const int root_frame = m_.body_link[0];
    ik_.orientation_frame = root_frame;
    ik_.height_frame = root_frame;
    root_height_ = eval::heightAboveGround(robot_.stance.ground, robot_.stance.initial.base_p);
    eval::SupportPolygon region = eval::shrinkPolygon(robot_.polygon, o_.com_margin);
    const Eigen::Vector2d shift = staticZmp(initial_, true) - staticZmp(initial_, false);
    for (Eigen::Vector2d& p : region.vertices) p -= shift;
    if (!region.empty()) {
      ik_.com = eval::ComTask::kInside;
      ik_.com_region = region;
    }
    ik_options_.tolerance = 1e-7;
    ik_options_.max_iterations = 200;
  }

  // One try at the next keyframe from `previous` at amplitude `scale`: the
  // free joints drawn toward their limits, the legs solved for a drawn root
  // lowering and tilt; true when its static ZMP keeps the margin.
  bool drawKeyframe(const Eigen::VectorXd& previous, double scale, Eigen::VectorXd& target) {
    target = previous;
    eval::Configuration solved_q = last_;
    for (int j : robot_.free_joints) {
      const double q0 = initial_(j);
      double lo = robot_.stance.joint_lower(j), hi = robot_.stance.joint_upper(j);
      if (std::isfinite(lo) && std::isfinite(hi)) {
        const double pad = o_.limit_padding * (hi - lo);
        lo += pad;
        hi -= pad;
      } else {
        lo = q0 - o_.unlimited_range;
        hi = q0 + o_.unlimited_range;
      }
      const double u = s_.uniform(-1.0, 1.0);
      const double reach = u > 0.0 ? std::max(0.0, hi - q0) : std::max(0.0, q0 - lo);
      target(j) = std::clamp(q0 + scale * u * reach, std::min(lo, q0), std::max(hi, q0));
    }
    if (!robot_.leg_joints.empty()) solveLegs(previous, scale, target, solved_q);
    if (staticMargin(target) >= o_.com_margin) {
      last_ = solved_q;
      return true;
    }
    return false;
  }

  // The legs of `target` for a drawn root lowering and tilt, every foot held.
  void solveLegs(const Eigen::VectorXd& previous, double scale, Eigen::VectorXd& target, eval::Configuration& solved_q) {
    const double roll = scale * o_.tilt * s_.uniform(-1.0, 1.0);
    const double pitch = scale * o_.tilt * s_.uniform(-1.0, 1.0);
    const double yaw = scale * o_.tilt * s_.uniform(-1.0, 1.0);
    const double drop = scale * o_.height_drop * robot_.leg_length * s_.uniform(0.0, 1.0);
    ik_.orientation_W = (Eigen::AngleAxisd(yaw, Eigen::Vector3d::UnitZ()) *
                         Eigen::AngleAxisd(pitch, Eigen::Vector3d::UnitY()) *
                         Eigen::AngleAxisd(roll, Eigen::Vector3d::UnitX()))
                            .toRotationMatrix() *
                        robot_.stance.initial.base_R;
    ik_.height = root_height_ - drop;
    eval::Configuration start = last_;
    start.joints = target;  // the upper body's new pose moves the centre of mass
    eval::IkResult solved = eval::solveInverseKinematics(m_, data_, ik_, start, ik_options_);
    if (!solved.converged) {
      // Legs that cannot tilt the root every way (no ankle roll) may
      // still lower it.
      eval::IkProblem lower = ik_;
      lower.orientation_frame = -1;
      solved = eval::solveInverseKinematics(m_, data_, lower, start, ik_options_);
    }
    if (solved.converged) {
      for (int j : robot_.leg_joints) target(j) = solved.q.joints(j);
      solved_q = solved.q;
    } else {
      for (int j : robot_.leg_joints) target(j) = previous(j);
    }
  }

  // Whether the minimum-jerk segment from `from` to `to` keeps the ZMP
  // margin, stretching `duration` up to `slowdowns` times by 1.3.
  bool slowEnough(const Eigen::VectorXd& from, const Eigen::VectorXd& to, double& duration) {
    std::vector<double> angles;
    for (const Eigen::VectorXd* f : {&from, &to}) {
      for (int j : joints_) angles.push_back((*f)(j));
    }
    for (int slow = 0; slow <= o_.slowdowns; ++slow, duration *= 1.3) {
      CandidateMotion segment;
      segment.reference = Motion::minimumJerk(joints_, {0.0, duration}, angles);
      double least = std::numeric_limits<double>::infinity();
      eval::forEachFeetFlatSample(
          m_, data_, candidateTrajectory(robot_, segment), 0.0, duration, o_.balance_dt, robot_.foot_pose.front(),
          [&](double, const eval::Configuration& q, const Eigen::VectorXd& v, const Eigen::VectorXd& a) {
            least = std::min(least, zmpMargin(robot_, o_.balance_phi, data_, q, v, a, Ys_, Ybs_));
          });
      if (least >= o_.com_margin) return true;
    }
    duration /= 1.3;
    return false;
  }

  const DesignRobot& robot_;
  const GeneratorOptions& o_;
  const eval::RigidModel& m_;
  eval::RigidData data_;
  Sampler s_;
  double amplitude_ = 0.0;
  std::vector<int> joints_;
  Eigen::VectorXd initial_, zero_;
  eval::IkProblem ik_;
  eval::IkOptions ik_options_;
  double root_height_ = 0.0;
  eval::Configuration last_;  // the whole pose of the last keyframe kept
  Eigen::MatrixXd Y_, Yb_, Ys_, Ybs_;
};

CandidateMotion generateOne(const DesignRobot& robot, const GeneratorOptions& o, std::uint64_t seed, int k) {
  KeyframeGenerator generator(robot, o, seed, k);
  std::vector<double> times;
  std::vector<Eigen::VectorXd> frames;
  generator.run(times, frames);
  CandidateMotion c;
  char name[32];
  std::snprintf(name, sizeof name, "gen_%04d", k);
  c.name = name;
  c.source = "generated";
  c.time = times;
  for (const Eigen::VectorXd& f : frames) {
    for (int j : generator.joints()) c.angles.push_back(f(j));
  }
  c.reference = Motion::minimumJerk(generator.joints(), c.time, c.angles);
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

CandidateMotion candidateFromSetup(const DesignRobot& robot, const io::SceneRobot& setup, const std::string& name) {
  const eval::RigidModel& m = robot.model();
  std::vector<int> joints;
  for (int source : setup.joint_motion.hinges()) {
    int joint = -1;
    for (int j = 0; j < m.num_joints; ++j) {
      if (m.joint_source[static_cast<std::size_t>(j)] == source) joint = j;
    }
    if (joint < 0) throw std::invalid_argument("motion '" + name + "' drives a joint the rigid model does not have");
    joints.push_back(joint);
  }
  CandidateMotion c;
  c.name = name;
  c.source = "scene";
  c.reference = setup.joint_motion.renumbered(joints);
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
