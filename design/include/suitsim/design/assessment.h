// Checking a candidate motion and measuring its excitation in one pass over
// its feet-flat samples on the a-priori model (Kang et al. 2023, (7)-(10)):
// joint and speed limits, the ZMP inside the support polygon shrunk by a
// margin (the motion is rejected when its ZMP comes closer to an edge), the
// capsule self-collision check, and the regressor rows (excitation.h).
#pragma once

#include <string>

#include <Eigen/Core>

#include "suitsim/design/candidates.h"
#include "suitsim/design/excitation.h"
#include "suitsim/design/self_collision.h"

namespace suitsim::design {

struct AssessmentOptions {
  double zmp_margin = 0.0;       ///< the ZMP must stay this far inside the support polygon (m)
  double speed_fraction = 0.5;   ///< joint speeds at most this share of their limits
  double max_duration = 0.0;     ///< a motion may last at most this long (s; 0: any)
  double balance_dt = 0.02;      ///< ZMP and collision sampled this often (s)
  double excitation_dt = 0.1;    ///< regressor rows taken this often (s; a multiple of balance_dt)
  ExcitationOptions excitation;
  /// Base parameters the ZMP is computed with (the base rows Y_o φ give the
  /// contact wrench): the identified ones once there are (Kang et al.: the
  /// balance check improves with the model); empty: the a-priori model.
  Eigen::VectorXd balance_phi;
};

struct Assessment {
  bool accepted = false;
  std::string rejection;             ///< "limits: ...", "balance: ...", "collision: ..." or "duration: ..."
  double zmp_margin = 0.0;           ///< smallest ZMP margin to the support polygon (m)
  double zmp_time = 0.0;             ///< when (s)
  double clearance = 0.0;            ///< smallest capsule gap (m)
  Eigen::MatrixXd triangle;          ///< its excitation (excitationColumns square); empty when rejected
};

Assessment assessCandidate(const DesignRobot& robot, const SelfCollision& collision, const CandidateMotion& candidate,
                           const AssessmentOptions& options);

/// The ZMP's margin to the support polygon at a feet-flat sample (m): from
/// the base rows Y_o φ when `phi` has num_base entries, from the model's own
/// inverse dynamics otherwise. `Y`, `Yb`: baseRegressor's scratch and result
/// (`regressor_ready`: Yb already holds this sample's). Runs on `data`.
double zmpMargin(const DesignRobot& robot, const Eigen::VectorXd& phi, eval::RigidData& data,
                 const eval::Configuration& q, const Eigen::VectorXd& v, const Eigen::VectorXd& a, Eigen::MatrixXd& Y,
                 Eigen::MatrixXd& Yb, bool regressor_ready = false);

/// The feet-flat trajectory of a candidate: joints it does not move keep
/// their initial angles.
eval::JointTrajectory candidateTrajectory(const DesignRobot& robot, const CandidateMotion& candidate);

}  // namespace suitsim::design
