// The guard on the suit fit (suit_fit_guard.h).
#include "suitsim/design/suit_fit_guard.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <vector>
#include <limits>

#include "suitsim/core/decompositions.h"
#include "suitsim/design/assessment.h"
#include "suitsim/design/candidates.h"
#include "suitsim/eval/least_squares.h"
#include "suitsim/eval/load_inputs.h"
#include "suitsim/eval/suit_fit.h"
#include "suitsim/eval/wires.h"
#include "suitsim/scene/scene.h"

namespace suitsim::design {

SuitFitRows suitFitRows(const DesignRobot& robot, const std::string& scene_path, const ExcitationOptions& options,
                        double dt) {
  SuitFitRows out;
  const eval::RigidModel& m = robot.model();
  const eval::EvaluationInputs inputs = eval::loadEvaluationInputs(scene_path);
  std::vector<Eigen::RowVectorXd> rows;
  Eigen::RowVectorXd row(excitationColumns(robot));
  for (const eval::TrialInfo& trial : inputs.trials) {
    if (trial.purpose != "evaluation" || trial.suit == "none") continue;
    const io::SceneDescription scene = io::readScene(scene_path, trial.name);
    const CandidateMotion motion = candidateFromSetup(robot, scene.robot.value(), trial.motion);
    const eval::JointTrajectory trajectory = candidateTrajectory(robot, motion);
    eval::RigidData data(m);
    // The planned motion as the band fit would see it: angles and rates.
    std::vector<Eigen::VectorXd> angle, rate;
    eval::forEachFeetFlatSample(m, data, trajectory, 0.0, motion.duration(), dt, robot.foot_pose.front(),
                                [&](double, const eval::Configuration& q, const Eigen::VectorXd& v, const Eigen::VectorXd&) {
                                  angle.push_back(q.joints);
                                  rate.push_back(v.tail(m.num_joints));
                                });
    eval::SupportCurves planned;
    planned.motion = trial.motion;
    planned.suit = trial.suit;
    planned.angle.resize(static_cast<Eigen::Index>(angle.size()), m.num_joints);
    planned.velocity.resizeLike(planned.angle);
    for (std::size_t k = 0; k < angle.size(); ++k) {
      planned.angle.row(static_cast<Eigen::Index>(k)) = angle[k].transpose();
      planned.velocity.row(static_cast<Eigen::Index>(k)) = rate[k].transpose();
    }
    const eval::FitJoints fit =
        eval::chooseFitJoints(m, eval::makeWireGeometries(m, trial.bands), planned, trial.fit_joints);
    std::string names;
    std::vector<int> equations;
    for (const std::string& name : fit.joints) {
      names += (names.empty() ? "" : " ") + name;
      for (int j = 0; j < m.num_joints; ++j) {
        if (m.joint_name[static_cast<std::size_t>(j)] == name) equations.push_back(robot.equationBaseDofs() + j);
      }
    }
    out.trials.push_back(trial.name + " (" + trial.motion + "): " + names + "; " + fit.reason);
    Eigen::MatrixXd Y, Yb;
    eval::forEachFeetFlatSample(m, data, trajectory, 0.0, motion.duration(), dt, robot.foot_pose.front(),
                                [&](double, const eval::Configuration& q, const Eigen::VectorXd& v, const Eigen::VectorXd& a) {
                                  baseRegressor(robot, data, q, v, a, Y, Yb);
                                  for (int e : equations) {
                                    if (excitationRow(robot, options, Yb, v, a, e, row)) rows.push_back(row);
                                  }
                                });
  }
  out.rows.resize(static_cast<Eigen::Index>(rows.size()), excitationColumns(robot));
  for (std::size_t k = 0; k < rows.size(); ++k) out.rows.row(static_cast<Eigen::Index>(k)) = rows[k];
  return out;
}

double residualVariance(const Eigen::VectorXd& calibration) {
  std::vector<double> c(calibration.data(), calibration.data() + calibration.size());
  if (c.empty()) return std::nan("");
  std::nth_element(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(c.size() / 2), c.end());
  return c[c.size() / 2];
}

double predictedFitStd(const Eigen::MatrixXd& triangle, double residual_variance, const Eigen::MatrixXd& rows) {
  if (rows.rows() == 0) return std::nan("");
  const Eigen::Index P = triangle.cols();
  // Unit-norm columns, as eval::unitVariance: (AᵀA)⁻¹ = D V S⁻² Vᵀ D.
  Eigen::VectorXd d = Eigen::VectorXd::Zero(P);
  for (Eigen::Index j = 0; j < P; ++j) {
    const double n = triangle.col(j).norm();
    if (n > 0.0) d(j) = 1.0 / n;
  }
  const Eigen::BDCSVD<Eigen::MatrixXd> svd(triangle * d.asDiagonal(), Eigen::ComputeThinV);
  const Eigen::VectorXd& s = svd.singularValues();
  const Eigen::MatrixXd& V = svd.matrixV();
  const double floor = eval::kUnseenSingularValue * std::max(s.size() > 0 ? s.maxCoeff() : 0.0, 1e-300);
  const Eigen::VectorXd& scale = d;
  double sum = 0.0;
  for (Eigen::Index r = 0; r < rows.rows(); ++r) {
    // A parameter the set does not excite at all (a zero column) that the row needs.
    for (Eigen::Index j = 0; j < P; ++j) {
      if (d(j) == 0.0 && rows(r, j) != 0.0) return std::numeric_limits<double>::infinity();
    }
    const Eigen::VectorXd y = scale.cwiseProduct(rows.row(r).transpose());
    const Eigen::VectorXd w = V.transpose() * y;
    const double norm = y.norm();
    // Directions the set does not see: below the floor, or missing from V.
    if (norm > 0.0 && w.squaredNorm() < (1.0 - 1e-12) * norm * norm) return std::numeric_limits<double>::infinity();
    for (Eigen::Index k = 0; k < s.size(); ++k) {
      if (s(k) > floor) {
        sum += (w(k) / s(k)) * (w(k) / s(k));
      } else if (std::abs(w(k)) > 1e-6 * norm) {
        return std::numeric_limits<double>::infinity();
      }
    }
  }
  return std::sqrt(residual_variance * sum / static_cast<double>(rows.rows()));
}

}  // namespace suitsim::design
