// One pass over a candidate's feet-flat samples (assessment.h).
#include "suitsim/design/assessment.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

#include "suitsim/rigid/kinematics.h"

namespace suitsim::design {

eval::JointTrajectory candidateTrajectory(const DesignRobot& robot, const CandidateMotion& candidate) {
  const std::vector<int>& joints = candidate.joints();
  auto angle = std::make_shared<std::vector<double>>(joints.size());
  auto rate = std::make_shared<std::vector<double>>(joints.size());
  const Eigen::VectorXd initial = robot.stance.initial.joints;
  return [&candidate, joints, angle, rate, initial](double t, Eigen::VectorXd& angles, Eigen::VectorXd& rates) {
    candidate.reference.sample(t, angle->data(), rate->data());
    angles = initial;
    rates.setZero(initial.size());
    for (std::size_t k = 0; k < joints.size(); ++k) {
      angles(joints[k]) = (*angle)[k];
      rates(joints[k]) = (*rate)[k];
    }
  };
}

double zmpMargin(const DesignRobot& robot, const Eigen::VectorXd& phi, eval::RigidData& data,
                 const eval::Configuration& q, const Eigen::VectorXd& v, const Eigen::VectorXd& a, Eigen::MatrixXd& Y,
                 Eigen::MatrixXd& Yb, bool regressor_ready) {
  Eigen::Vector2d zmp;
  if (phi.size() == robot.base.numBase()) {
    if (!regressor_ready) baseRegressor(robot, data, q, v, a, Y, Yb);
    const Eigen::Matrix<double, 6, 1> wrench = contactWrench(robot, Y, Yb, phi);
    zmp = eval::zeroMomentPoint(q, wrench.head<3>(), wrench.segment<3>(3), robot.stance.ground);
  } else {
    zmp = eval::zeroMomentPoint(robot.model(), data, q, v, a, robot.stance.ground);
  }
  return eval::polygonMargin(robot.polygon, zmp);
}

Assessment assessCandidate(const DesignRobot& robot, const SelfCollision& collision, const CandidateMotion& candidate,
                           const AssessmentOptions& options) {
  Assessment out;
  char buf[256];
  if (options.max_duration > 0.0 && candidate.duration() > options.max_duration + 1e-9) {
    std::snprintf(buf, sizeof buf, "duration: lasts %.3g s, longer than a trial's %.3g s", candidate.duration(),
                  options.max_duration);
    out.rejection = buf;
    return out;
  }
  if (std::string why = limitViolation(robot, candidate, options.speed_fraction); !why.empty()) {
    out.rejection = "limits: " + why;
    return out;
  }
  const eval::RigidModel& m = robot.model();
  eval::RigidData data(m);
  ExcitationRows rows(robot, options.excitation);
  const int every = std::max(1, static_cast<int>(std::lround(options.excitation_dt / options.balance_dt)));
  out.zmp_margin = std::numeric_limits<double>::infinity();
  out.clearance = std::numeric_limits<double>::infinity();
  double collision_time = 0.0;
  std::pair<int, int> collision_pair{0, 0};
  int k = 0;
  Eigen::MatrixXd Y, Yb;
  eval::forEachFeetFlatSample(
      m, data, candidateTrajectory(robot, candidate), 0.0, candidate.duration(), options.balance_dt, robot.foot_pose.front(),
      [&](double t, const eval::Configuration& q, const Eigen::VectorXd& v, const Eigen::VectorXd& a) {
        const bool rows_now = k++ % every == 0;
        if (rows_now) baseRegressor(robot, data, q, v, a, Y, Yb);
        const double margin = zmpMargin(robot, options.balance_phi, data, q, v, a, Y, Yb, rows_now);
        if (margin < out.zmp_margin) {
          out.zmp_margin = margin;
          out.zmp_time = t;
        }
        eval::forwardKinematics(m, data, q);
        std::pair<int, int> bodies;
        const double gap = collision.clearance(data, &bodies);
        if (gap < out.clearance) {
          out.clearance = gap;
          collision_time = t;
          collision_pair = bodies;
        }
        if (rows_now) rows.addSample(Yb, v, a);
      });
  if (out.zmp_margin < options.zmp_margin) {
    std::snprintf(buf, sizeof buf, "balance: ZMP %.3g m inside the support polygon at t = %.2f s, less than the margin %.3g m",
                  out.zmp_margin, out.zmp_time, options.zmp_margin);
    out.rejection = buf;
    return out;
  }
  if (out.clearance < 0.0) {
    std::snprintf(buf, sizeof buf, "collision: the shapes of '%s' and '%s' overlap by %.3g m at t = %.2f s",
                  m.body_name[static_cast<std::size_t>(collision_pair.first)].c_str(),
                  m.body_name[static_cast<std::size_t>(collision_pair.second)].c_str(), -out.clearance, collision_time);
    out.rejection = buf;
    return out;
  }
  out.triangle = rows.triangle();
  out.accepted = true;
  return out;
}

}  // namespace suitsim::design
