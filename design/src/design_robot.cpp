// The robot as excitation design sees it (design_robot.h).
#include "suitsim/design/design_robot.h"

#include <Eigen/Dense>
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "suitsim/rigid/inverse_kinematics.h"
#include "suitsim/rigid/kinematics.h"
#include "suitsim/rigid/regressor.h"

namespace suitsim::design {

DesignRobot makeDesignRobot(const io::RobotSetup& setup) {
  DesignRobot r;
  // What the experimenter knows: the a-priori set (no hidden payloads), no
  // held object (identification motions are made empty-handed).
  // A welded robot is balanced as a floating twin standing where it is
  // welded (design_robot.h); the scene's pose is kept, not set down.
  RobotPose pose = setup.initial_pose;
  RobotDescription known = setup.apriori;
  const bool welded = !known.floating_base;
  if (welded) {
    known.floating_base = true;
    pose.place_on_ground = false;
  }
  r.stance = io::makeStance(known, pose, setup.contacts);
  r.links = setup.apriori.links;
  const eval::RigidModel& m = r.stance.model;
  eval::RigidData data(m);
  r.feet = io::groundedLinks(r.stance, data);
  if (r.feet.empty()) {
    throw std::invalid_argument(welded ? "excitation design of a welded robot needs a foot on the ground plane where it "
                                         "is welded (no <contact> point touches it): the balance check stands it there"
                                       : "excitation design needs a foot on the ground (no <contact> point touches it)");
  }
  if (welded) {
    for (int f : r.feet) {
      if (!eval::jointsToFrame(m, f).empty()) {
        throw std::invalid_argument("excitation design of a welded robot needs its feet on the root body: link '" +
                                    m.frame_name[static_cast<std::size_t>(f)] +
                                    "' stands on the ground but moves with joints (<freeze> them)");
      }
    }
  }
  for (int f : r.feet) r.foot_pose.push_back(io::initialFramePose(r.stance, data, f));
  r.polygon = eval::supportPolygon(m, data, r.stance.initial, r.stance.contacts, r.stance.ground,
                                   r.stance.contact_tolerance);
  std::vector<bool> on_leg(static_cast<std::size_t>(m.num_joints), false);
  eval::forwardKinematics(m, data, r.stance.initial);
  for (int f : r.feet) {
    for (int j : eval::jointsToFrame(m, f)) on_leg[static_cast<std::size_t>(j)] = true;
    r.leg_length = std::max(r.leg_length, (data.frame_p_W[f] - data.body_p_W[0]).norm());
  }
  r.velocity_limit.setConstant(m.num_joints, std::numeric_limits<double>::infinity());
  for (int j = 0; j < m.num_joints; ++j) {
    const int d = m.joint_source[j];
    const double limit = setup.apriori.joints[static_cast<std::size_t>(d)].velocity_limit;
    if (limit > 0.0) r.velocity_limit(j) = limit;
    // A joint the servo does not drive, or one that follows another
    // (URDF <mimic>), has no reference of its own.
    const int hinge = setup.compiled.joint_hinge[static_cast<std::size_t>(d)];
    const bool servoed = hinge >= 0 && static_cast<std::size_t>(hinge) < setup.gains.size() &&
                         setup.gains[static_cast<std::size_t>(hinge)].kp > 0.0;
    if (!servoed || m.joint_mimic_leader[static_cast<std::size_t>(j)] >= 0) continue;
    (on_leg[static_cast<std::size_t>(j)] ? r.leg_joints : r.free_joints).push_back(j);
  }
  if (r.leg_joints.empty() && r.free_joints.empty()) {
    throw std::invalid_argument("excitation design needs joints the servo drives (<servo>)");
  }
  if (!welded) {
    r.base = eval::computeBaseParameters(m);
    return r;
  }
  // The identification's model: the same bodies welded at the root. Its
  // joint rows are the twin's when the root is still (feet on the root body).
  const eval::RigidModel fixed = eval::makeRigidModel(setup.apriori);
  if (fixed.num_bodies != m.num_bodies || fixed.num_joints != m.num_joints) {
    throw std::logic_error("makeDesignRobot: the welded model and its floating twin differ in bodies");
  }
  r.base = eval::computeBaseParameters(fixed);
  r.equation_offset = m.base_dofs;
  // B: φ = B π (base_parameters.h: φ_B = φ_1 + K φ_2); P = Bᵀ (B Bᵀ)⁻¹.
  const int nb = r.base.numBase();
  Eigen::MatrixXd B = Eigen::MatrixXd::Zero(nb, 10 * m.num_bodies);
  for (int i = 0; i < nb; ++i) B(i, r.base.independent[static_cast<std::size_t>(i)]) = 1.0;
  for (std::size_t k = 0; k < r.base.dependent.size(); ++k) B.col(r.base.dependent[k]) = r.base.K.col(static_cast<Eigen::Index>(k));
  r.base_to_standard = B.transpose() * (B * B.transpose()).ldlt().solve(Eigen::MatrixXd::Identity(nb, nb));
  r.standard_apriori = eval::standardParameters(m);
  r.base_apriori = r.base.fromStandard(r.standard_apriori);
  return r;
}

Eigen::Matrix<double, 6, 1> contactWrench(const DesignRobot& robot, const Eigen::MatrixXd& Y, const Eigen::MatrixXd& Yb,
                                          const Eigen::VectorXd& phi) {
  if (!robot.welded()) return Yb.topRows(6) * phi;
  // The least change of the a-priori standard parameters that has base
  // parameters φ: the joint rows leave the rest of the whole robot's wrench
  // to the a-priori model.
  const Eigen::VectorXd standard = robot.standard_apriori + robot.base_to_standard * (phi - robot.base_apriori);
  return Y.topRows(6) * standard;
}

double inscribedRadius(const eval::SupportPolygon& polygon) {
  if (polygon.empty()) return 0.0;
  Eigen::Vector2d lo = polygon.vertices.front(), hi = polygon.vertices.front();
  for (const Eigen::Vector2d& p : polygon.vertices) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  Eigen::Vector2d centre = 0.5 * (lo + hi);
  Eigen::Vector2d half = 0.5 * (hi - lo);
  double best = eval::polygonMargin(polygon, centre);
  // The margin is concave over a convex polygon: a grid search shrinking
  // around the best point converges to the inscribed circle's centre.
  for (int round = 0; round < 30; ++round) {
    Eigen::Vector2d next = centre;
    for (int a = -4; a <= 4; ++a) {
      for (int b = -4; b <= 4; ++b) {
        const Eigen::Vector2d p = centre + Eigen::Vector2d(a * half.x() / 4.0, b * half.y() / 4.0);
        const double margin = eval::polygonMargin(polygon, p);
        if (margin > best) {
          best = margin;
          next = p;
        }
      }
    }
    centre = next;
    half *= 0.5;
  }
  return best;
}

}  // namespace suitsim::design
