// Whole-body inverse kinematics (inverse_kinematics.h) on JVRC-1 and on
// Unitree H1: each solution is checked by forward kinematics, independently
// of the solver's residual: feet where they stood (1e-8), the link's
// orientation and the CoM's ground projection where asked (1e-8), joint
// limits respected, joints the problem does not free untouched. H1 has no
// waist pitch (torso yaw only) and no ankle roll, so its torso pitch must
// come from the hips.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "suitsim/rigid/inverse_kinematics.h"
#include "suitsim/rigid/kinematics.h"
#include "suitsim/scene/scene.h"
#include "suitsim/scene/stance.h"
#include "suitsim/scene/urdf.h"

namespace suitsim::eval {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector2d;
using Eigen::Vector3d;

Matrix3d rpy(double r, double p, double y) {
  return (Eigen::AngleAxisd(y, Vector3d::UnitZ()) * Eigen::AngleAxisd(p, Vector3d::UnitY()) *
          Eigen::AngleAxisd(r, Vector3d::UnitX()))
      .toRotationMatrix();
}

double rotationDistance(const Matrix3d& a, const Matrix3d& b) {
  return Eigen::AngleAxisd(Matrix3d(a * b.transpose())).angle();
}

io::Stance jvrcStance() {
  const io::Scene scene = io::loadScene(std::string(SUITSIM_SOURCE_DIR) + "/scenes/jvrc1_stand.xml");
  return io::makeStance(*scene.robot);
}

// H1 from its URDF: knees bent, a 28 x 7 cm sole under each ankle.
io::Stance h1Stance() {
  const std::string path = std::string(SUITSIM_SOURCE_DIR) + "/models/h1/h1.urdf";
  RobotDescription h1 = io::loadUrdf(path);
  h1.floating_base = true;
  RobotPose pose;
  pose.joint_angles.assign(h1.joints.size(), 0.0);
  for (const char* side : {"left", "right"}) {
    const std::string s(side);
    pose.joint_angles[h1.findJoint(s + "_hip_pitch_joint")] = -0.4;
    pose.joint_angles[h1.findJoint(s + "_knee_joint")] = 0.8;
    pose.joint_angles[h1.findJoint(s + "_ankle_joint")] = -0.4;
  }
  pose.place_on_ground = true;
  std::vector<suitsim::ContactPoint> contacts;
  for (const char* link : {"left_ankle_link", "right_ankle_link"}) {
    for (const Vec3& p : {Vec3{-0.08, -0.035, -0.065}, Vec3{0.18, -0.035, -0.065}, Vec3{0.18, 0.035, -0.065},
                          Vec3{-0.08, 0.035, -0.065}}) {
      contacts.push_back({link, p});
    }
  }
  return io::makeStance(h1, pose, contacts);
}

// Feet held, `link` at world orientation R, CoM over the feet's centroid;
// the joints from the root to the feet and to the link are free.
IkProblem bendProblem(const io::Stance& s, RigidData& data, const std::string& link, const Matrix3d& R) {
  IkProblem p;
  p.ground = s.ground;
  p.joint_lower = s.joint_lower;
  p.joint_upper = s.joint_upper;
  for (int f : io::groundedLinks(s, data)) {
    p.fixed_frames.push_back(io::initialFramePose(s, data, f));
    for (int j : jointsToFrame(s.model, f)) p.free_joints.push_back(j);
  }
  p.orientation_frame = frameIndex(s.model, link);
  p.orientation_W = R;
  for (int j : jointsToFrame(s.model, p.orientation_frame)) {
    if (std::find(p.free_joints.begin(), p.free_joints.end(), j) == p.free_joints.end()) p.free_joints.push_back(j);
  }
  p.com = ComTask::kPoint;
  p.com_point = polygonCentroid(supportPolygon(s.model, data, s.initial, s.contacts, s.ground));
  return p;
}

// Every target of `p` met at `q`, checked by forward kinematics.
void expectMet(const io::Stance& s, RigidData& data, const IkProblem& p, const Configuration& start,
               const Configuration& q) {
  forwardKinematics(s.model, data, q);
  for (const FramePose& f : p.fixed_frames) {
    EXPECT_LT((data.frame_p_W[f.frame] - f.p_W).norm(), 1e-8) << s.model.frame_name[f.frame];
    EXPECT_LT(rotationDistance(data.frame_R_W[f.frame], f.R_W), 1e-8) << s.model.frame_name[f.frame];
  }
  if (p.orientation_frame >= 0) {
    EXPECT_LT(rotationDistance(data.frame_R_W[p.orientation_frame], p.orientation_W), 1e-8);
  }
  if (p.com == ComTask::kPoint) {
    const Vector3d com = centerOfMass(s.model, data, q);
    EXPECT_LT((groundCoordinates(s.ground, com) - p.com_point).norm(), 1e-8);
  }
  for (int j = 0; j < s.model.num_joints; ++j) {
    EXPECT_GE(q.joints(j), p.joint_lower(j)) << s.model.joint_name[j];
    EXPECT_LE(q.joints(j), p.joint_upper(j)) << s.model.joint_name[j];
    if (std::find(p.free_joints.begin(), p.free_joints.end(), j) == p.free_joints.end()) {
      EXPECT_EQ(q.joints(j), start.joints(j)) << s.model.joint_name[j] << " is not free but moved";
    }
  }
}

TEST(InverseKinematics, JvrcBendsItsTorsoWithFeetPlantedAndComOverThem) {
  const io::Stance s = jvrcStance();
  RigidData data(s.model);
  const IkProblem p = bendProblem(s, data, "WAIST_R_S", rpy(0.0, 0.6, 0.0));
  const IkResult r = solveInverseKinematics(s.model, data, p, s.initial);
  ASSERT_TRUE(r.converged) << r.worst_task << " residual " << r.residual;
  EXPECT_LE(r.residual, 1e-8);
  expectMet(s, data, p, s.initial, r.q);
  std::printf("[measured] JVRC-1 bend 0.6 rad: %d iterations, residual %.2g, WAIST_P %.4f, R_HIP_P %.4f\n",
              r.iterations, r.residual, r.q.joints(jointIndex(s.model, "WAIST_P")),
              r.q.joints(jointIndex(s.model, "R_HIP_P")));
}

TEST(InverseKinematics, JvrcTwistKeepsTheFeetAndCom) {
  const io::Stance s = jvrcStance();
  RigidData data(s.model);
  const IkProblem p = bendProblem(s, data, "WAIST_R_S", rpy(0.1, 0.2, 0.5));
  const IkResult r = solveInverseKinematics(s.model, data, p, s.initial);
  ASSERT_TRUE(r.converged) << r.worst_task << " residual " << r.residual;
  expectMet(s, data, p, s.initial, r.q);
}

TEST(InverseKinematics, AJointLimitBindsAndTheOthersTakeOver) {
  const io::Stance s = jvrcStance();
  RigidData data(s.model);
  IkProblem p = bendProblem(s, data, "WAIST_R_S", rpy(0.0, 0.6, 0.0));
  const int waist = jointIndex(s.model, "WAIST_P");
  p.joint_upper(waist) = 0.1;  // the hips must make the other 0.5 rad
  const IkResult r = solveInverseKinematics(s.model, data, p, s.initial);
  ASSERT_TRUE(r.converged) << r.worst_task << " residual " << r.residual;
  expectMet(s, data, p, s.initial, r.q);
  EXPECT_DOUBLE_EQ(r.q.joints(waist), 0.1);
}

TEST(InverseKinematics, H1PitchesItsTorsoWithTheHips) {
  const io::Stance s = h1Stance();
  RigidData data(s.model);
  ASSERT_EQ(io::groundedLinks(s, data).size(), 2u);
  IkProblem p = bendProblem(s, data, "torso_link", rpy(0.0, 0.4, 0.0));
  // Without ankle roll, feet planted pin the pelvis laterally: the CoM can
  // go forward or back over the feet, not sideways (there it stays where
  // the robot's own lateral asymmetry puts it).
  p.com_point.y() = groundCoordinates(s.ground, centerOfMass(s.model, data, s.initial)).y();
  const IkResult r = solveInverseKinematics(s.model, data, p, s.initial);
  ASSERT_TRUE(r.converged) << r.worst_task << " residual " << r.residual;
  expectMet(s, data, p, s.initial, r.q);
  // Torso yaw is the only joint between pelvis and torso: it stays at 0 and
  // the pelvis itself pitches 0.4 rad, the hips bending by as much again as
  // the knees and ankles give back.
  // (Torso yaw against pelvis yaw through the hips is redundant: the split
  // is unique only to the solver's tolerance, so 1e-6 here.)
  EXPECT_NEAR(r.q.joints(jointIndex(s.model, "torso_joint")), 0.0, 1e-6);
  forwardKinematics(s.model, data, r.q);
  EXPECT_LT(rotationDistance(data.frame_R_W[frameIndex(s.model, "pelvis")], rpy(0.0, 0.4, 0.0)), 1e-6);
  const int hip = jointIndex(s.model, "left_hip_pitch_joint");
  EXPECT_LT(r.q.joints(hip), s.initial.joints(hip) - 0.2);
}

TEST(InverseKinematics, UnreachableTargetFailsWithItsResidual) {
  const io::Stance s = jvrcStance();
  RigidData data(s.model);
  // Only WAIST_P may move (feet held, legs locked: the pelvis stays), and
  // 2 rad forward is beyond its upper limit: the closest pose leaves
  // 2 - upper of pitch undone.
  IkProblem p = bendProblem(s, data, "WAIST_R_S", rpy(0.0, 2.0, 0.0));
  p.com = ComTask::kNone;
  const int waist = jointIndex(s.model, "WAIST_P");
  p.free_joints = {waist};
  const IkResult r = solveInverseKinematics(s.model, data, p, s.initial);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.q.joints(waist), p.joint_upper(waist));
  // The feet weigh 1e3 times more: they give way by ~1e-6 of the rest.
  EXPECT_NEAR(r.residual, 2.0 - p.joint_upper(waist), 1e-5);
  EXPECT_EQ(r.worst_task, "orientation of 'WAIST_R_S'");
  for (int j = 0; j < s.model.num_joints; ++j) {
    EXPECT_GE(r.q.joints(j), p.joint_lower(j));
    EXPECT_LE(r.q.joints(j), p.joint_upper(j));
  }
}

TEST(InverseKinematics, ComInsideARegionMovesOnlyAsFarAsTheRegion) {
  const io::Stance s = jvrcStance();
  RigidData data(s.model);
  IkProblem p = bendProblem(s, data, "WAIST_R_S", rpy(0.0, 0.6, 0.0));
  p.com = ComTask::kInside;
  const SupportPolygon poly = supportPolygon(s.model, data, s.initial, s.contacts, s.ground);
  p.com_region = shrinkPolygon(poly, 0.05);
  const IkResult r = solveInverseKinematics(s.model, data, p, s.initial);
  ASSERT_TRUE(r.converged) << r.worst_task << " residual " << r.residual;
  const Vector2d com = groundCoordinates(s.ground, centerOfMass(s.model, data, r.q));
  EXPECT_GE(polygonMargin(poly, com), 0.05 - 1e-8);
}

}  // namespace
}  // namespace suitsim::eval
