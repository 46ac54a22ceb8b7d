// The robot as excitation design sees it (Kang et al. 2023): the
// experimenter's a-priori rigid model standing in the scene's initial pose,
// both feet planted. Everything the generator, the checks and the
// excitation measure need is derived here from the scene's robot: which
// joints the servo drives, which of them carry the feet (moved only by
// inverse kinematics, so both soles stay where they stand), the limits, the
// support polygon and the base parameters. No joint or link is named.
//
// A robot welded at its root (base="fixed", a test rig) is designed for as
// Kang et al.'s upper body is: it stands on a support that is not fixed to
// the ground, so it can still tip over. The design stands a floating twin
// of the a-priori model on the scene's <contact> points (model(): the same
// bodies, their feet on the ground plane in the welded pose) for the
// balance check, the samples and the self-collision check; the regressor
// rows are the twin's joint rows, which with the root still are the welded
// robot's own (the identification's equations), and the base parameters
// are the welded model's. Its feet must be on the root body (the legs
// frozen): a joint between root and foot would let the twin's root move
// where the welded one cannot.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "suitsim/rigid/balance.h"
#include "suitsim/rigid/base_parameters.h"
#include "suitsim/scene/scene.h"
#include "suitsim/scene/stance.h"

namespace suitsim::design {

struct DesignRobot {
  io::Stance stance;                      ///< a-priori model, initial pose, contacts, joint limits
  std::vector<int> feet;                  ///< frames with a contact point on the ground in the stance
  std::vector<eval::FramePose> foot_pose;  ///< their world poses in the stance (held fixed)
  eval::SupportPolygon polygon;           ///< support polygon of the stance, ground coordinates (m)
  std::vector<int> leg_joints;            ///< joints (q index) on the paths from the root to the feet
  std::vector<int> free_joints;           ///< the other servoed joints (q index), moved directly
  Eigen::VectorXd velocity_limit;         ///< (num_joints) rad/s, +inf where the robot gives none
  eval::BaseParameters base;              ///< base parameters of the a-priori model
  double leg_length = 0.0;                ///< root origin to the farthest foot frame in the stance (m)
  /// The a-priori description's links (frame f of the model is link f): the
  /// self-collision check takes their URDF <collision> shapes and inertials.
  std::vector<RobotLink> links;
  /// Welded robot: the regressor's first `equation_offset` rows (the twin's
  /// base rows) are not equations of the identification; 0 for a floating
  /// robot. Equation e of the identification is row e + equation_offset.
  int equation_offset = 0;
  /// Welded robot: the minimum-norm standard parameters for base parameters
  /// φ (K (10)'s balance check needs the whole robot's wrench, which the
  /// joint rows' base parameters do not fix): π = π_0 + P (φ − φ_0), with
  /// π_0 the a-priori standard parameters (10 num_bodies), φ_0 their base
  /// parameters and P = Bᵀ(B Bᵀ)⁻¹, B the map φ = B π (num_base columns).
  Eigen::VectorXd standard_apriori, base_apriori;
  Eigen::MatrixXd base_to_standard;
  bool welded() const { return equation_offset > 0; }
  /// Base DOFs of the identification's equations (6 floating, 0 welded).
  int equationBaseDofs() const { return stance.model.base_dofs - equation_offset; }
  /// The identification's equations (its nv).
  int numEquations() const { return stance.model.nv - equation_offset; }
  const eval::RigidModel& model() const { return stance.model; }
};

/// Builds it from a scene's robot (its a-priori set, initial pose, contacts,
/// servo). Throws std::invalid_argument for no foot on the ground, a welded
/// robot whose feet are not on its root body, or no servoed joint.
DesignRobot makeDesignRobot(const io::RobotSetup& setup);

/// The contact wrench [f_o; n_o] (base frame of q) the rows `Y` of a
/// full regressor (model() at a feet-flat sample) ask for with base
/// parameters `phi`: Y_o φ for a floating robot (Yb's base rows), the base
/// rows of the full regressor times the minimum-norm standard parameters
/// for a welded one.
Eigen::Matrix<double, 6, 1> contactWrench(const DesignRobot& robot, const Eigen::MatrixXd& Y, const Eigen::MatrixXd& Yb,
                                          const Eigen::VectorXd& phi);

/// The largest margin any point has inside `polygon` (m): the radius of the
/// largest inscribed circle, found on a grid refined around the best point.
double inscribedRadius(const eval::SupportPolygon& polygon);

}  // namespace suitsim::design
