// The stacked base-parameter regressor of planned motions (excitation.h).
#include "suitsim/design/excitation.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "suitsim/core/decompositions.h"
#include "suitsim/eval/least_squares.h"
#include "suitsim/rigid/regressor.h"

namespace suitsim::design {

namespace {
constexpr int kBlockRows = 1024;  // rows gathered before each reduction
}

int excitationColumns(const DesignRobot& robot) {
  return robot.base.numBase() + kJointColumns * robot.model().num_joints;
}

ExcitationRows::ExcitationRows(const DesignRobot& robot, const ExcitationOptions& options)
    : robot_(&robot), options_(options) {
  const int p = excitationColumns(robot);
  block_.resize(kBlockRows, p);
  row_.resize(p);
  triangle_ = Eigen::MatrixXd::Zero(p, p);
}

void baseRegressor(const DesignRobot& robot, eval::RigidData& data, const eval::Configuration& q,
                   const Eigen::VectorXd& v, const Eigen::VectorXd& a, Eigen::MatrixXd& Y, Eigen::MatrixXd& Yb) {
  eval::regressor(robot.model(), data, q, v, a, Y);
  // The identification's equations only: a welded robot's twin adds base rows
  // it has not (design_robot.h).
  const Eigen::Index rows = robot.numEquations();
  Yb.resize(rows, robot.base.numBase());
  for (int i = 0; i < robot.base.numBase(); ++i) {
    Yb.col(i) = Y.col(robot.base.independent[static_cast<std::size_t>(i)]).tail(rows);
  }
}

bool excitationRow(const DesignRobot& robot, const ExcitationOptions& options, const Eigen::MatrixXd& Yb,
                   const Eigen::VectorXd& v, const Eigen::VectorXd& a, int e, Eigen::Ref<Eigen::RowVectorXd> row) {
  const eval::RigidModel& m = robot.model();
  const int nb = robot.base.numBase();
  const int base_dofs = robot.equationBaseDofs();
  const Eigen::Index ve = e + robot.equation_offset;  // the equation's entry of v and a
  if (e >= base_dofs) {
    const int j = e - base_dofs;
    // A(7): a resting joint's row is left out by the identification (not a
    // torque sensor's: no friction in its equation).
    if (!options.torque_sensors && std::abs(v(ve)) <= options.slip_velocity) return false;
    if (m.joint_mimic_leader[static_cast<std::size_t>(j)] >= 0) return false;
  }
  row.setZero();
  row.head(nb) = Yb.row(e);
  if (e >= base_dofs) {
    // A(12): the joint's own columns of ξ.
    const int j = e - base_dofs;
    const bool on_leg = std::find(robot.leg_joints.begin(), robot.leg_joints.end(), j) != robot.leg_joints.end();
    const int c = nb + kJointColumns * j;
    if (options.torque_sensors) {
      row(c + 3) = -1.0;  // Y_j φ − τ_o = τ_s
      return true;
    }
    if (options.torque_phi.size() == nb && !on_leg) row(c) = -Yb.row(e).dot(options.torque_phi);
    row(c + 1) = v(ve);
    row(c + 2) = v(ve) > 0.0 ? 1.0 : -1.0;
    row(c + 3) = -1.0;
    row(c + 4) = a(ve);
  }
  return true;
}

void ExcitationRows::addSample(const Eigen::MatrixXd& Yb, const Eigen::VectorXd& v, const Eigen::VectorXd& a) {
  const int equations = robot_->numEquations();
  for (int e = 0; e < equations; ++e) {
    const double scale = options_.equation_scale.size() == equations ? options_.equation_scale(e) : 1.0;
    if (!(scale > 0.0)) continue;
    if (!excitationRow(*robot_, options_, Yb, v, a, e, row_)) continue;
    if (used_ == kBlockRows) flush();
    block_.row(used_++) = row_ / scale;
  }
}

void ExcitationRows::flush() {
  if (used_ == 0) return;
  eval::TriangularAccumulator acc(static_cast<int>(triangle_.cols()));
  acc.addRows(triangle_);
  acc.addRows(block_.topRows(used_));
  triangle_ = acc.triangle();
  used_ = 0;
}

Eigen::MatrixXd ExcitationRows::triangle() {
  flush();
  return triangle_;
}

Eigen::MatrixXd stackTriangles(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  eval::TriangularAccumulator acc(static_cast<int>(a.cols()));
  acc.addRows(a);
  acc.addRows(b);
  return acc.triangle();
}

ExcitationMeasures measureExcitation(const Eigen::MatrixXd& triangle) {
  ExcitationMeasures out;
  out.condition_number = eval::scaledConditionNumber(triangle, &out.unexcited_columns);
  const Eigen::VectorXd norms = triangle.colwise().norm();
  std::vector<Eigen::Index> kept;
  for (Eigen::Index c = 0; c < norms.size(); ++c) {
    if (norms(c) > 0.0) kept.push_back(c);
  }
  out.unseen_directions = static_cast<int>(norms.size() - static_cast<Eigen::Index>(kept.size()));
  if (kept.empty()) return out;
  Eigen::MatrixXd scaled(triangle.rows(), static_cast<Eigen::Index>(kept.size()));
  for (std::size_t k = 0; k < kept.size(); ++k) scaled.col(static_cast<Eigen::Index>(k)) = triangle.col(kept[k]) / norms(kept[k]);
  const Eigen::VectorXd s = Eigen::BDCSVD<Eigen::MatrixXd>(scaled).singularValues();
  const double floor = eval::kUnseenSingularValue * s(0);
  for (Eigen::Index k = 0; k < s.size(); ++k) {
    if (s(k) > floor) out.log_det += 2.0 * std::log(s(k));
    else ++out.unseen_directions;
  }
  return out;
}

}  // namespace suitsim::design
