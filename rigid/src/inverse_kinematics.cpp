// Whole-body inverse kinematics (inverse_kinematics.h): damped Gauss-Newton
// (Levenberg-Marquardt) over the base pose and the free joints.
#include "suitsim/rigid/inverse_kinematics.h"

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "common.h"
#include "suitsim/core/levenberg_marquardt.h"
#include "suitsim/rigid/kinematics.h"

namespace suitsim::eval {

using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector2d;
using Eigen::Vector3d;
using Eigen::VectorXd;

std::vector<int> jointsToFrame(const RigidModel& model, int frame) {
  if (frame < 0 || frame >= model.numFrames()) {
    throw std::invalid_argument("jointsToFrame: frame index " + std::to_string(frame) + " out of range");
  }
  std::vector<int> out;
  for (int b = model.frame_body[frame]; b > 0; b = model.body_parent[b]) out.push_back(b - 1);
  std::reverse(out.begin(), out.end());
  return out;
}

namespace {

constexpr double kHeldWeight = 1e3;

// Rotation still needed, world axes: log(R_target R^T) as angle × axis.
Vector3d rotationError(const Matrix3d& R_target, const Matrix3d& R) {
  const Eigen::AngleAxisd aa(Matrix3d(R_target * R.transpose()));
  return aa.angle() * aa.axis();
}

// The stacked residual and Jacobian (over v: nv columns) of every task.
class Tasks {
 public:
  Tasks(const RigidModel& model, const IkProblem& p) : model_(model), p_(p) {
    auto label = [&](const std::string& what, int rows, double weight = 1.0) {
      for (int k = 0; k < rows; ++k) {
        row_label_.push_back(static_cast<int>(labels_.size()));
        row_weight_.push_back(weight);
      }
      labels_.push_back(what);
    };
    // The held frames (the feet) weigh kHeldWeight times more: where the
    // other targets cannot all be met, the feet still stay put (to a
    // 1/kHeldWeight share of the leftover) and the residual left shows in
    // the target that cannot be reached.
    for (const FramePose& f : p.fixed_frames) {
      label("position of '" + model.frame_name[f.frame] + "'", 3, kHeldWeight);
      label("orientation of '" + model.frame_name[f.frame] + "'", 3, kHeldWeight);
    }
    if (p.orientation_frame >= 0) label("orientation of '" + model.frame_name[p.orientation_frame] + "'", 3);
    if (p.height_frame >= 0) label("height of '" + model.frame_name[p.height_frame] + "'", 1);
    if (p.com != ComTask::kNone) label("centre of mass over the ground", 2);
    rows_ = static_cast<int>(row_label_.size());
  }
  int rows() const { return rows_; }
  /// Row weights of the least-squares step (rows).
  Eigen::Map<const VectorXd> weights() const { return {row_weight_.data(), rows_}; }
  const std::string& labelOfRow(int r) const { return labels_[row_label_[r]]; }

  // e (rows) at q; with J non-null also the Jacobian (rows x nv).
  void evaluate(RigidData& data, const Configuration& q, VectorXd& e, MatrixXd* J) {
    forwardKinematics(model_, data, q);
    e.resize(rows_);
    if (J) J->setZero(rows_, model_.nv);
    MatrixXd J6(6, model_.nv), J3(3, model_.nv);
    int r = 0;
    for (const FramePose& f : p_.fixed_frames) {
      e.segment<3>(r) = f.p_W - data.frame_p_W[f.frame];
      e.segment<3>(r + 3) = rotationError(f.R_W, data.frame_R_W[f.frame]);
      if (J) {
        frameJacobian(model_, data, f.frame, J6);
        J->middleRows(r, 6) = J6;
      }
      r += 6;
    }
    if (p_.orientation_frame >= 0) {
      e.segment<3>(r) = rotationError(p_.orientation_W, data.frame_R_W[p_.orientation_frame]);
      if (J) {
        frameJacobian(model_, data, p_.orientation_frame, J6);
        J->middleRows(r, 3) = J6.bottomRows(3);
      }
      r += 3;
    }
    if (p_.height_frame >= 0) {
      e(r) = p_.height - heightAboveGround(p_.ground, data.frame_p_W[p_.height_frame]);
      if (J) {
        frameJacobian(model_, data, p_.height_frame, J6);
        J->row(r) = p_.ground.normal.transpose() * J6.topRows(3);
      }
      r += 1;
    }
    if (p_.com != ComTask::kNone) {
      Vector3d c = Vector3d::Zero();
      for (int b = 0; b < model_.num_bodies; ++b) {
        c += model_.body_mass[b] * (data.body_p_W[b] + data.body_R_W[b] * model_.body_com[b]);
      }
      c /= model_.totalMass();
      const Vector2d at = groundCoordinates(p_.ground, c);
      const Vector2d target =
          p_.com == ComTask::kPoint ? p_.com_point : closestPointInPolygon(p_.com_region, at);
      e.segment<2>(r) = target - at;
      if (J) {
        comJacobian(model_, data, J3);
        J->row(r) = p_.ground.u.transpose() * J3;
        J->row(r + 1) = p_.ground.v.transpose() * J3;
      }
      r += 2;
    }
  }

 private:
  const RigidModel& model_;
  const IkProblem& p_;
  std::vector<std::string> labels_;
  std::vector<int> row_label_;
  std::vector<double> row_weight_;
  int rows_ = 0;
};

void checkProblem(const RigidModel& model, const IkProblem& p, const Configuration& start) {
  detail::checkConfiguration("solveInverseKinematics", model, start);
  if (p.joint_lower.size() != model.num_joints || p.joint_upper.size() != model.num_joints) {
    throw std::invalid_argument("solveInverseKinematics: joint limits must have num_joints entries");
  }
  auto checkFrame = [&](int f) {
    if (f < -1 || f >= model.numFrames()) {
      throw std::invalid_argument("solveInverseKinematics: frame index " + std::to_string(f) + " out of range");
    }
  };
  for (const FramePose& f : p.fixed_frames) {
    if (f.frame < 0) throw std::invalid_argument("solveInverseKinematics: fixed frame index -1");
    checkFrame(f.frame);
  }
  checkFrame(p.orientation_frame);
  checkFrame(p.height_frame);
  for (int j : p.free_joints) {
    if (j < 0 || j >= model.num_joints) {
      throw std::invalid_argument("solveInverseKinematics: free joint " + std::to_string(j) + " out of range");
    }
  }
  if (p.com == ComTask::kInside && p.com_region.empty()) {
    throw std::invalid_argument("solveInverseKinematics: empty CoM region");
  }
}

}  // namespace

IkResult solveInverseKinematics(const RigidModel& model, RigidData& data, const IkProblem& problem,
                                const Configuration& start, const IkOptions& options) {
  checkProblem(model, problem, start);
  Tasks tasks(model, problem);
  const int nb = model.base_dofs;

  IkResult result;
  result.q = start;
  Configuration& q = result.q;
  for (int j = 0; j < model.num_joints; ++j) {
    q.joints(j) = std::clamp(q.joints(j), problem.joint_lower(j), problem.joint_upper(j));
  }
  VectorXd e, e_trial;
  MatrixXd J;
  tasks.evaluate(data, q, e, &J);
  auto worst = [&](const VectorXd& r, int* row) {
    Eigen::Index k = 0;
    const double m = r.size() > 0 ? r.cwiseAbs().maxCoeff(&k) : 0.0;
    *row = static_cast<int>(k);
    return m;
  };
  // The schedule (core/levenberg_marquardt.h): lambda starts small (the
  // keyframes' tasks are well posed near the start pose) and moves by 10
  // either way; past 1e8 no damped step lowers the residual: a local minimum.
  const LevenbergMarquardtSettings settings{.initial_damping = 1e-6, .increase = 10.0, .decrease = 10.0,
                                            .min_damping = 1e-12, .max_damping = 1e8,
                                            .max_iterations = options.max_iterations};
  constexpr double kMaxStep = 0.05;  // largest change of one unknown per step (rad or m)
  std::vector<int> columns;  // velocity indices taking part in this step
  MatrixXd Jc;
  VectorXd dx, w, we;
  const auto linearise = [&] {
    int row = 0;
    if (worst(e, &row) <= options.tolerance) return false;
    // Unknowns: the base twist and the free joints not held by a limit the
    // residual pushes them into.
    w = tasks.weights();
    we = w.cwiseProduct(e);
    const VectorXd g = J.transpose() * w.cwiseProduct(we);
    columns.clear();
    for (int k = 0; k < nb; ++k) columns.push_back(k);
    for (int j : problem.free_joints) {
      const int c = nb + j;
      const bool at_lower = q.joints(j) <= problem.joint_lower(j) && g(c) < 0.0;
      const bool at_upper = q.joints(j) >= problem.joint_upper(j) && g(c) > 0.0;
      if (!at_lower && !at_upper) columns.push_back(c);
    }
    const int n = static_cast<int>(columns.size());
    Jc.resize(tasks.rows(), n);
    for (int k = 0; k < n; ++k) Jc.col(k) = w.cwiseProduct(J.col(columns[k]));
    return true;
  };
  const auto attempt = [&](double lambda) {
    const int n = static_cast<int>(columns.size());
    const double cost = we.squaredNorm();
    // (JᵀJ + λI)⁻¹Jᵀe, solved in the smaller of the two spaces (the same
    // step; the dual form keeps an under-determined step minimum-norm).
    if (tasks.rows() <= n) {
      MatrixXd A = Jc * Jc.transpose();
      A.diagonal().array() += lambda;
      dx = Jc.transpose() * A.ldlt().solve(we);
    } else {
      MatrixXd A = Jc.transpose() * Jc;
      A.diagonal().array() += lambda;
      dx = A.ldlt().solve(Jc.transpose() * we);
    }
    // A bounded step: a linearisation taken 0.4 rad at once can fold a
    // knee straight (a singular leg) on the way; short steps follow the
    // continuous path from the start pose instead.
    const double largest = dx.cwiseAbs().maxCoeff();
    if (largest > kMaxStep) dx *= kMaxStep / largest;
    Configuration trial = q;
    for (int k = 0; k < n; ++k) {
      const int c = columns[k];
      if (c >= nb) {
        const int j = c - nb;
        trial.joints(j) = std::clamp(q.joints(j) + dx(k), problem.joint_lower(j), problem.joint_upper(j));
      }
    }
    if (nb == 6) {
      // v_o and ω_o are in base axes (rigid_model.h): p += R dv, R ← R exp(dω).
      const Vector3d dv = dx.head<3>(), dw = dx.segment<3>(3);
      trial.base_p = q.base_p + q.base_R * dv;
      const double angle = dw.norm();
      if (angle > 0.0) trial.base_R = q.base_R * Eigen::AngleAxisd(angle, dw / angle).toRotationMatrix();
    }
    tasks.evaluate(data, trial, e_trial, nullptr);
    if (!(w.cwiseProduct(e_trial).squaredNorm() < cost)) return LmStep::kRejected;
    q = trial;
    tasks.evaluate(data, q, e, &J);
    return LmStep::kAccepted;
  };
  result.iterations = levenbergMarquardt(settings, linearise, attempt).accepted;
  int row = 0;
  result.residual = worst(e, &row);
  result.converged = result.residual <= options.tolerance;
  if (tasks.rows() > 0) result.worst_task = tasks.labelOfRow(row);
  return result;
}

}  // namespace suitsim::eval
