// The evaluator's wire model of a suit band, A(21)-(25): a wire through via
// points fixed on links of the rigid model, its length, the Jacobian of that
// length with respect to the joint angles, its tension and the supporting
// torque it puts on the joints.
//
// Sign convention. We use the band *tension* f >= 0 (A(25) with the sign
// flipped: the paper writes f_i = −k_i (l_i − l0_i), a force that is negative
// when the band is stretched). The supporting torque, the generalised force
// the bands put on the joints (what adds to the motor torque, A(3)-(4)), is
//
//     τ_support = −Σ_i J_iᵀ f_i        (J_i = ∂l_i/∂θ, A(22))
//
// which is the paper's A(21) τ = Σ J_iᵀ f_i with its f_i = −(our f_i): the
// two conventions give the same τ_support. Physically: the band energy is
// ½ k (l − l0)², so the generalised force is −∂V/∂θ = −k (l − l0) J_iᵀ; a
// stretched band pulls the joints back toward shortening it, and its forces
// do negative work while it lengthens (the simulator's truth).
//
// Lengths do not depend on the base pose (the via points move together under
// a rigid base motion), so J_i has joint columns only (1 x num_joints).
//
// Units: m, rad, N, N m. Bad arguments throw std::invalid_argument naming the
// function and the offending band, link or size.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "suitsim/robot/suit.h"
#include "suitsim/rigid/rigid_model.h"

namespace suitsim::eval {

/// A band as designed, A(21)-(24): its routing through via points, and the
/// stiffness group it belongs to (bands of one group share k, A §5.4). What
/// the band's material does (stiffness, natural length) is not here: that is
/// what A(26) estimates.
struct BandRoute {
  std::string name;
  std::string group;                   ///< stiffness group (declared in the suit; the band's own name if none)
  std::vector<std::string> links;      ///< link of each via point, (num_via >= 2)
  std::vector<Eigen::Vector3d> points; ///< via point in its link's frame (m), (num_via)
};

/// The routing of a simulator band (stiffness and natural length dropped).
BandRoute routeOf(const RobotBand& band);

/// A wire on the rigid model: via point j sits at point[j] in frame frame[j].
struct WireGeometry {
  std::string name;                    ///< band name
  std::vector<int> frame;              ///< frame index of each via point, (num_via >= 2)
  std::vector<Eigen::Vector3d> point;  ///< via point in its frame's coordinates (m), (num_via)
};

/// The wire of `band` on `model`: links become frame indices. Throws
/// std::invalid_argument for an unknown link (naming band, via point and
/// link), links and points of different counts, fewer than two via points,
/// or a non-finite coordinate. Stiffness and natural length are not kept:
/// they are what band identification estimates.
WireGeometry makeWireGeometry(const RigidModel& model, const BandRoute& band);
WireGeometry makeWireGeometry(const RigidModel& model, const RobotBand& band);

/// makeWireGeometry for every band, same order.
std::vector<WireGeometry> makeWireGeometries(const RigidModel& model, const std::vector<BandRoute>& bands);
std::vector<WireGeometry> makeWireGeometries(const RigidModel& model,
                                             const std::vector<RobotBand>& bands);

/// A(23)-(24): l = Σ_j ‖p_j − p_{j−1}‖ (m), from the frame poses of the last
/// forwardKinematics(model, data, q).
double wireLength(const RigidModel& model, const RigidData& data, const WireGeometry& wire);

/// A(22): J = ∂l/∂θ (m/rad), written to `J` (1 x num_joints), after
/// forwardKinematics(model, data, q). Returns the length l (m). Analytic:
/// l̇ = Σ_j u_jᵀ (ṗ_j − ṗ_{j−1}) with the unit segment directions u_j, so each
/// via point contributes (u_j − u_{j+1})ᵀ times the joint columns of its
/// point Jacobian. A segment of zero length contributes nothing (its
/// direction is undefined; the length is not differentiable there).
double wireLengthJacobian(const RigidModel& model, const RigidData& data,
                          const WireGeometry& wire, Eigen::Ref<Eigen::RowVectorXd> J);

/// The wire's segments one by one, after forwardKinematics(model, data, q):
/// segment j (from via point j to j + 1) has length L_j (m), written to
/// `length` (S = num_via - 1), and Jacobian ∂L_j/∂θ (m/rad), row j of
/// `jacobian` (S x num_joints); interior via point i (1 <= i < S) turns the
/// wire through theta_i = the angle between segments i - 1 and i (rad, in
/// [0, pi]), written to `turn` (S; turn[0] = 0). For capstan friction
/// (band_capstan.h): the tensions of two segments may differ by exp(mu
/// theta_i) across via point i.
void wireSegments(const RigidModel& model, const RigidData& data, const WireGeometry& wire,
                  Eigen::Ref<Eigen::VectorXd> length, Eigen::Ref<Eigen::VectorXd> turn,
                  Eigen::Ref<Eigen::MatrixXd> jacobian);

/// A(25), tension positive: f = k (l − l0) (N) while l > l0, else 0 (a slack
/// band pulls nothing). k (N/m), l and l0 (m).
double wireTension(double length, double stiffness, double natural_length);

/// A(21): runs forwardKinematics(model, data, q) and returns the supporting
/// torque τ_support = −Σ_i J_iᵀ f_i (N m), (num_joints), of `wires` with
/// stiffness k_i (N/m) and natural length l0_i (m), each (num_wires).
Eigen::VectorXd supportingTorque(const RigidModel& model, RigidData& data, const Configuration& q,
                                 const std::vector<WireGeometry>& wires,
                                 const Eigen::VectorXd& stiffness,
                                 const Eigen::VectorXd& natural_length);

}  // namespace suitsim::eval
