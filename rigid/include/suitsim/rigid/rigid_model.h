// The evaluator's rigid-body model of the robot, built from a RobotDescription
// (the a-priori copy), and the workspace its algorithms write into.
//
// Design note.
//
// Bodies. A body is a link together with every link hanging below it through
// fixed joints: those are folded in (mass, CoM and inertia combined with the
// parallel-axis theorem), but each keeps a named *frame* so sensors and via
// points on it can still be located. Body 0 is the root link's body. Body b > 0
// is moved by joint b - 1, a revolute or continuous joint (1 DoF about its
// axis); other joint types are rejected. Bodies are in tree order (depth
// first from the root, children in description order): a parent always comes
// before its children.
//
// Frames. Every body frame is its link's URDF frame: placed in the parent
// body frame by the joint origin (x, y, z, roll, pitch, yaw) followed by the
// rotation of angle q about the joint axis, which has the same coordinates in
// the joint frame and in the child frame. Frame f of the model is link f of
// the description (same index, same name), located on its body by a constant
// placement.
//
// Configuration and velocity (A(5): q_o, θ and their rates).
//   Configuration q = { base_R, base_p, joints }:
//     base_R, base_p  pose of the root body in the world (world from base).
//                     Floating base: the six free coordinates q_o. Fixed base:
//                     where the root is welded (constant; identity by default).
//     joints          joint angles θ (rad), (num_joints), in body order.
//   v (nv): floating base [v_o (3), ω_o (3), θ̇ (num_joints)], fixed base [θ̇].
//     v_o is the velocity of the base origin and ω_o the angular velocity of
//     the base, both in base-frame axes (the body twist, what a gyro reads):
//     d/dt base_p = base_R v_o, d/dt base_R = base_R [ω_o]x.
//   a (nv): the time derivative of v, component by component. For the base
//     this is the spatial acceleration in base coordinates; the classical
//     acceleration of the base origin is base_R (v̇_o + ω_o × v_o), and an
//     accelerometer at the base origin reads v̇_o + ω_o × v_o − base_R^T g.
//   Generalised force (nv): floating base [f_o (3), n_o (3), τ (num_joints)],
//     f_o the force and n_o the moment about the base origin, base-frame axes,
//     dual to v (power = f_o·v_o + n_o·ω_o + τ·θ̇). This is the left-hand side
//     of A(5) in the base-frame form of A(11): F_o is zero without contacts.
//
// Units: SI throughout (kg, m, s, rad, N, N m).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "suitsim/robot/robot.h"

namespace suitsim::eval {

/// Constant-size view of a generalised vector (v, a or τ), (nv).
using VectorRef = Eigen::Ref<const Eigen::VectorXd>;

/// Immutable rigid-body model: tree topology, joint placements and inertias.
/// Built by makeRigidModel; algorithms never write it. Per-body arrays have
/// size num_bodies, per-joint arrays num_joints, per-frame arrays num_frames.
struct RigidModel {
  std::string name;              ///< robot name
  bool floating_base = true;     ///< false: the root body is welded to the world
  int num_bodies = 0;            ///< bodies (root + one per movable joint)
  int num_joints = 0;            ///< movable joints = num_bodies - 1 = size of q.joints
  int base_dofs = 0;             ///< 6 for a floating base, 0 for a fixed base
  int nv = 0;                    ///< velocity dimension = base_dofs + num_joints
  Eigen::Vector3d gravity{0.0, 0.0, -9.81};  ///< gravitational acceleration, world (m/s^2)

  // ---- bodies ----------------------------------------------------------------
  std::vector<int> body_parent;               ///< parent body; -1 for the root
  std::vector<int> body_link;                 ///< description link that names the body
  std::vector<std::string> body_name;         ///< = name of body_link
  /// Joint frame orientation in the parent body frame at q = 0 (parent from
  /// joint); identity for the root.
  std::vector<Eigen::Matrix3d> body_joint_R;
  std::vector<Eigen::Vector3d> body_joint_p;  ///< joint frame origin in the parent body frame (m)
  std::vector<Eigen::Vector3d> body_axis;     ///< unit joint axis in the body frame; zero for the root
  std::vector<double> body_mass;              ///< merged mass (kg)
  std::vector<Eigen::Vector3d> body_com;      ///< merged centre of mass, body frame (m)
  std::vector<Eigen::Matrix3d> body_inertia;  ///< merged inertia about the CoM, body axes (kg m^2)

  // ---- joints (movable only, q order) -----------------------------------------
  std::vector<std::string> joint_name;  ///< joint j moves body j + 1
  std::vector<int> joint_source;        ///< index into RobotDescription::joints
  /// URDF <mimic> couplings, carried so a user of the model knows them:
  /// joint j follows joint joint_mimic_leader[j] (q index, -1: independent)
  /// as q_j = multiplier q_leader + offset. The model's algorithms treat
  /// every joint as a free coordinate (the engine holds the coupling, and the
  /// streams carry both angles); the identification uses the coupling to
  /// fold a follower's row into its leader's, since a follower has no motor.
  std::vector<int> joint_mimic_leader;
  std::vector<double> joint_mimic_multiplier;  ///< (rad/rad), 1 for independent joints
  std::vector<double> joint_mimic_offset;      ///< (rad), 0 for independent joints

  // ---- frames (one per description link, same index) -------------------------
  std::vector<std::string> frame_name;    ///< link name
  std::vector<int> frame_body;            ///< body the link was merged into
  std::vector<Eigen::Matrix3d> frame_R;   ///< frame orientation in its body frame
  std::vector<Eigen::Vector3d> frame_p;   ///< frame origin in its body frame (m)

  int numFrames() const { return static_cast<int>(frame_name.size()); }
  double totalMass() const;
};

/// Builds the rigid model from a description: merges fixed joints, orders the
/// bodies, checks the tree. Throws std::invalid_argument naming the offending
/// link or joint for: a joint type other than revolute, continuous or fixed; a
/// zero axis; bad link indices; a link with two parents; a cycle or a link not
/// reachable from the root; negative or non-finite mass.
RigidModel makeRigidModel(const RobotDescription& description);

/// Index into q.joints of the movable joint `name` (the velocity index is
/// model.base_dofs + that); -1 if there is no movable joint of that name.
int jointIndex(const RigidModel& model, std::string_view name);

/// Index of the frame (= description link) `name`; -1 if unknown.
int frameIndex(const RigidModel& model, std::string_view name);

/// Index of the body named after link `name`; -1 if unknown or merged away.
int bodyIndex(const RigidModel& model, std::string_view name);

/// Generalised configuration (see the design note).
struct Configuration {
  Eigen::Matrix3d base_R = Eigen::Matrix3d::Identity();  ///< world from base (rotation)
  Eigen::Vector3d base_p = Eigen::Vector3d::Zero();      ///< base origin, world (m)
  Eigen::VectorXd joints;                                ///< joint angles (rad), (num_joints)

  Configuration() = default;
  /// Base at the world origin (copies `joint_angles`, so it allocates).
  Configuration(const Eigen::VectorXd& joint_angles)  // NOLINT: implicit on purpose
      : joints(joint_angles) {}
  Configuration(const Eigen::Matrix3d& R, const Eigen::Vector3d& p,
                const Eigen::VectorXd& joint_angles)
      : base_R(R), base_p(p), joints(joint_angles) {}
};

/// Zero joint angles, base at the world origin.
Configuration neutralConfiguration(const RigidModel& model);

/// Mutable workspace of the algorithms, sized once from a model so repeated
/// calls allocate nothing. One RigidData per thread. Fields are outputs of the
/// function named in their comment; body quantities are in body coordinates
/// unless suffixed _W (world).
struct RigidData {
  explicit RigidData(const RigidModel& model);

  // forwardKinematics
  std::vector<Eigen::Matrix3d> body_R_W;   ///< body orientation (world from body)
  std::vector<Eigen::Vector3d> body_p_W;   ///< body origin, world (m)
  std::vector<Eigen::Matrix3d> frame_R_W;  ///< frame orientation (world from frame)
  std::vector<Eigen::Vector3d> frame_p_W;  ///< frame origin, world (m)
  // forwardKinematics with v, rnea
  std::vector<Eigen::Vector3d> body_v;  ///< velocity of the body origin, body axes (m/s)
  std::vector<Eigen::Vector3d> body_w;  ///< angular velocity, body axes (rad/s)
  // rnea: spatial acceleration (gravity included as a base acceleration) and
  // the net wrench each body receives from its parent, about the body origin.
  std::vector<Eigen::Vector3d> body_a;      ///< linear part (m/s^2)
  std::vector<Eigen::Vector3d> body_alpha;  ///< angular part (rad/s^2)
  std::vector<Eigen::Vector3d> body_f;      ///< force, body axes (N)
  std::vector<Eigen::Vector3d> body_n;      ///< moment about the body origin (N m)
  // every algorithm: parent-from-body rotation at the current q
  std::vector<Eigen::Matrix3d> body_R_parent;
  // massMatrix: composite inertia of the subtree (mass, first moment m c,
  // inertia about the body origin), body axes
  std::vector<double> composite_mass;
  std::vector<Eigen::Vector3d> composite_h;
  std::vector<Eigen::Matrix3d> composite_I;

  Eigen::VectorXd tau;   ///< rnea output (nv)
  Eigen::VectorXd nle;   ///< nonlinearEffects output (nv)
  Eigen::VectorXd ddq;   ///< forwardDynamics output (nv)
  Eigen::MatrixXd M;     ///< massMatrix output (nv x nv), both triangles filled
  Eigen::LDLT<Eigen::MatrixXd> ldlt;  ///< forwardDynamics factorisation of M
  Eigen::VectorXd zero;  ///< always zero (nv): the a of nonlinearEffects

  // rk4Step scratch: start of step, stage slope and weighted slope sums
  Eigen::VectorXd rk_v0, rk_k_v, rk_sum_v;               ///< (nv) each
  Eigen::VectorXd rk_theta0, rk_k_theta, rk_sum_theta;   ///< (num_joints) each
  Eigen::VectorXd rk_v, rk_F;                            ///< stage velocity, held force (nv)
  Configuration rk_q;                                    ///< stage configuration
};

}  // namespace suitsim::eval
