// Balance of a robot standing on flat feet: centre of mass, support polygon,
// zero-moment point (ZMP) and the ZMP's margin to the polygon's edge.
//
// Design note. Everything planar lives in the ground plane's own 2-D
// coordinates (u, v): u is the world x axis projected onto the plane (the y
// axis where x is normal to it), v = n × u, measured from the plane's point
// nearest the world origin. For the usual ground (normal +z, height 0) these
// are the world x and y. The support polygon is the convex hull of the
// contact points that touch the ground; the ZMP is the point of the ground
// where the contact wrench the motion needs has no moment along the plane
// (no tipping moment), computed from the rigid model's inverse dynamics, so
// it includes the rates of change of linear and angular momentum. For a
// static pose it is the CoM's projection along the normal.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "suitsim/rigid/rigid_model.h"
#include "suitsim/core/support_polygon.h"

namespace suitsim::eval {

/// The ground: the plane n·p = offset, with its in-plane axes.
struct GroundPlane {
  Eigen::Vector3d normal{0.0, 0.0, 1.0};  ///< unit outward normal, world
  double offset = 0.0;                    ///< plane offset along the normal (m)
  Eigen::Vector3d u{1.0, 0.0, 0.0};       ///< first in-plane axis, world (unit)
  Eigen::Vector3d v{0.0, 1.0, 0.0};       ///< second in-plane axis = normal × u
};

/// The plane n·p = offset (n need not be unit; it is normalised) with u, v as
/// in the design note. Throws std::invalid_argument for a zero normal.
GroundPlane makeGroundPlane(const Eigen::Vector3d& normal, double offset);

/// Ground coordinates (u, v) of the projection of world point `p_W` (m).
Eigen::Vector2d groundCoordinates(const GroundPlane& ground, const Eigen::Vector3d& p_W);

/// World point of the ground at ground coordinates `uv` (m).
Eigen::Vector3d groundPoint(const GroundPlane& ground, const Eigen::Vector2d& uv);

/// Height of world point `p_W` above the ground, along the normal (m).
double heightAboveGround(const GroundPlane& ground, const Eigen::Vector3d& p_W);

/// A contact point fixed in a frame of the rigid model (a scene <contact> point).
struct ContactPoint {
  int frame = -1;                                 ///< frame (= description link) it is fixed in
  Eigen::Vector3d point_F = Eigen::Vector3d::Zero();  ///< position in that frame (m)
};

// The support polygon and its geometry live in the engine (shared with the
// simulator's balance channels): SupportPolygon, convexHull, polygonMargin,
// polygonCentroid, shrinkPolygon, closestPointInPolygon.
using suitsim::closestPointInPolygon;
using suitsim::convexHull;
using suitsim::polygonCentroid;
using suitsim::polygonMargin;
using suitsim::shrinkPolygon;
using suitsim::SupportPolygon;

/// The contact points on the ground at q: those whose height above the
/// ground is at most `tolerance` (m), as world points. Runs forwardKinematics(q).
std::vector<Eigen::Vector3d> groundedContacts(const RigidModel& model, RigidData& data, const Configuration& q,
                                              const std::vector<ContactPoint>& contacts, const GroundPlane& ground,
                                              double tolerance = 1e-3);

/// Support polygon at q: the convex hull of groundedContacts (ground
/// coordinates). Empty when no contact point touches the ground.
SupportPolygon supportPolygon(const RigidModel& model, RigidData& data, const Configuration& q,
                              const std::vector<ContactPoint>& contacts, const GroundPlane& ground,
                              double tolerance = 1e-3);

/// Jacobian of the centre of mass after forwardKinematics(q): J (3 x nv),
/// J v = CoM velocity, world.
void comJacobian(const RigidModel& model, const RigidData& data, Eigen::Ref<Eigen::MatrixXd> J);

/// ZMP on the ground for the motion (q, v, a) of the rigid robot under
/// gravity, in ground coordinates (m): from the contact wrench rnea's base
/// rows ask for, the point where its moment is along the normal. Throws
/// std::invalid_argument for a fixed-base model, and std::runtime_error when
/// the wrench has no force along the normal (the robot is not pressed onto
/// the ground: no ZMP).
Eigen::Vector2d zeroMomentPoint(const RigidModel& model, RigidData& data, const Configuration& q,
                                const Eigen::VectorXd& v, const Eigen::VectorXd& a, const GroundPlane& ground);

/// The ZMP of a contact wrench given in the base frame of q: force `f_B` and
/// moment `n_B` about the base origin (rnea's base rows, or Y_o φ of the
/// base-parameter regressor), ground coordinates (m). Throws
/// std::runtime_error when the force has no component along the normal.
Eigen::Vector2d zeroMomentPoint(const Configuration& q, const Eigen::Vector3d& f_B, const Eigen::Vector3d& n_B,
                                const GroundPlane& ground);

/// A frame held at a fixed world pose: the support foot of a feet-flat motion.
struct FramePose {
  int frame = -1;
  Eigen::Matrix3d R_W = Eigen::Matrix3d::Identity();  ///< world from frame
  Eigen::Vector3d p_W = Eigen::Vector3d::Zero();      ///< frame origin, world (m)
};

/// Places the floating base so that `support` has its world pose for the
/// joint angles in q.joints: writes q.base_R and q.base_p.
void placeBaseOnSupport(const RigidModel& model, RigidData& data, const FramePose& support, Configuration& q);

/// The base velocity that keeps `support` still while the joints turn at
/// `joint_rates` (num_joints): v = [v_o; ω_o; joint_rates] with J_support v = 0
/// (q as placed by placeBaseOnSupport). Writes v (nv).
void feetFlatVelocity(const RigidModel& model, RigidData& data, const Configuration& q, const FramePose& support,
                      const Eigen::VectorXd& joint_rates, Eigen::VectorXd& v);

/// Joint angles and rates (num_joints each, rad and rad/s) at time t (s).
using JointTrajectory = std::function<void(double t, Eigen::VectorXd& angles, Eigen::VectorXd& rates)>;

/// One sample of a feet-flat motion: time (s), configuration, v and a (nv).
using FeetFlatVisitor =
    std::function<void(double t, const Configuration& q, const Eigen::VectorXd& v, const Eigen::VectorXd& a)>;

/// Samples `trajectory` every `dt` from t0 to t1 (both included), with the
/// base placed so `support` stays at its pose (the feet flat), and calls
/// `visit` with each sample. The base accelerations are central differences
/// of feetFlatVelocity over ±1e-4 s, the joint ones of the rates. `data` holds
/// the sample's kinematics when `visit` runs (it may reuse it).
void forEachFeetFlatSample(const RigidModel& model, RigidData& data, const JointTrajectory& trajectory, double t0,
                           double t1, double dt, const FramePose& support, const FeetFlatVisitor& visit);

/// The ZMP over a feet-flat motion and its smallest margin.
struct ZmpSummary {
  double min_margin = 0.0;  ///< smallest polygonMargin of the ZMP over the samples (m)
  double time = 0.0;        ///< when it occurs (s)
  Eigen::Vector2d zmp = Eigen::Vector2d::Zero();  ///< the ZMP then, ground coordinates (m)
  int num_samples = 0;
};

/// The smallest ZMP margin to `polygon` over the samples of
/// forEachFeetFlatSample.
ZmpSummary zmpOverMotion(const RigidModel& model, RigidData& data, const JointTrajectory& trajectory, double t0,
                         double t1, double dt, const FramePose& support, const SupportPolygon& polygon,
                         const GroundPlane& ground);

}  // namespace suitsim::eval
