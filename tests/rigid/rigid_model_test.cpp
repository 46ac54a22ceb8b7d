// makeRigidModel: tree order, indices, fixed-joint merging, bad input.
#include "suitsim/rigid/rigid_model.h"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "rigid_test_util.h"
#include "robots.h"
#include "suitsim/rigid/dynamics.h"
#include "suitsim/rigid/kinematics.h"

namespace suitsim::eval {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;
using testutil::relativeError;

TEST(RigidModel, HumanoidTreeOrderAndIndices) {
  const RobotDescription robot = testing::floatingHumanoid();
  const RigidModel model = makeRigidModel(robot);
  EXPECT_TRUE(model.floating_base);
  EXPECT_EQ(model.num_joints, 13);
  EXPECT_EQ(model.num_bodies, 14);
  EXPECT_EQ(model.base_dofs, 6);
  EXPECT_EQ(model.nv, 19);
  EXPECT_EQ(model.numFrames(), static_cast<int>(robot.links.size()));
  EXPECT_EQ(model.body_parent[0], -1);
  for (int b = 1; b < model.num_bodies; ++b) EXPECT_LT(model.body_parent[b], b) << "body " << b;

  // Depth-first, children in description order: the torso's arms come before
  // the pelvis's legs although the legs' joints were added in between.
  const std::vector<std::string> expected = {
      "waist_yaw",  "l_shoulder_pitch", "l_elbow",   "r_shoulder_pitch", "r_elbow",
      "l_hip_roll", "l_hip_pitch",      "l_knee",    "l_ankle_pitch",    "r_hip_roll",
      "r_hip_pitch", "r_knee",          "r_ankle_pitch"};
  EXPECT_EQ(model.joint_name, expected);
  for (int j = 0; j < model.num_joints; ++j) {
    EXPECT_EQ(jointIndex(model, expected[j]), j);
    EXPECT_EQ(robot.joints[model.joint_source[j]].name, expected[j]);
    EXPECT_EQ(model.body_name[j + 1], robot.links[robot.joints[model.joint_source[j]].child_link].name);
  }
  EXPECT_EQ(jointIndex(model, "neck"), -1);  // fixed: not a coordinate
  EXPECT_EQ(jointIndex(model, "no_such_joint"), -1);

  // Fixed children live on their parent's body, as frames.
  EXPECT_EQ(model.frame_body[frameIndex(model, "head")], bodyIndex(model, "torso"));
  EXPECT_EQ(model.frame_body[frameIndex(model, "imu")], 0);
  EXPECT_EQ(model.frame_body[frameIndex(model, "l_sole")], bodyIndex(model, "l_foot"));
  EXPECT_EQ(bodyIndex(model, "head"), -1);
  EXPECT_EQ(frameIndex(model, "nothing"), -1);

  double mass = 0.0;
  for (const RobotLink& link : robot.links) mass += link.inertial.mass;
  EXPECT_NEAR(model.totalMass(), mass, 1e-12);
  EXPECT_NEAR(model.totalMass(), 46.2, 1e-12);
}

TEST(RigidModel, AxesAreNormalisedAndInertiasSymmetric) {
  RobotDescription robot = testing::spatialChain3();
  robot.joints[1].axis = {0.0, 3.0, 4.0};  // not unit: the model normalises
  const RigidModel model = makeRigidModel(robot);
  EXPECT_NEAR(model.body_axis[2].norm(), 1.0, 1e-15);
  EXPECT_NEAR(model.body_axis[2].z(), 0.8, 1e-15);
  for (int b = 0; b < model.num_bodies; ++b) {
    EXPECT_EQ(model.body_inertia[b], model.body_inertia[b].transpose());
  }
}

// Every builder in tests/support gives physically valid links: principal
// moments non-negative and satisfying the triangle inequality.
TEST(RigidModel, SupportRobotsHaveValidInertias) {
  for (const RobotDescription& robot :
       {testing::singlePendulum(), testing::doublePendulum(), testing::spatialChain3(),
        testing::floatingHumanoid()}) {
    for (const RobotLink& link : robot.links) {
      const auto& t = link.inertial.inertia;
      Matrix3d I;
      I << t[0], t[3], t[4], t[3], t[1], t[5], t[4], t[5], t[2];
      const Vector3d e = Eigen::SelfAdjointEigenSolver<Matrix3d>(I).eigenvalues();
      EXPECT_GE(e.minCoeff(), -1e-15) << robot.name << " " << link.name;
      EXPECT_GE(e[0] + e[1], e[2] - 1e-15) << robot.name << " " << link.name;
      EXPECT_GE(link.inertial.mass, 0.0);
    }
  }
}

// A chain whose middle link is bolted (fixed joint, offset and rotated) to a
// second piece has exactly the dynamics of the same chain with the two pieces
// combined by hand into one link.
TEST(RigidModel, FixedJointMergingMatchesHandCombinedLink) {
  const Vector3d bolt_xyz(0.12, -0.05, 0.2);
  const Vector3d bolt_rpy(0.4, -0.3, 0.9);
  const auto piece_inertia = testing::rotatedInertia(0.011, 0.009, 0.004, 0.2, 0.1, -0.3);
  const double piece_mass = 0.9;
  const Vector3d piece_com(0.03, 0.02, -0.04);
  const Vector3d j2_xyz_in_piece(0.1, 0.0, 0.15);  // j2 hangs from the bolted piece
  const Vector3d j2_rpy_in_piece(0.0, 0.2, 0.0);

  auto toVec3 = [](const Vector3d& x) { return Vec3{x.x(), x.y(), x.z()}; };
  auto toMatrix = [](const std::array<double, 6>& t) {
    Matrix3d I;
    I << t[0], t[3], t[4], t[3], t[1], t[5], t[4], t[5], t[2];
    return I;
  };
  auto rpy = [](const Vector3d& a) {
    return Matrix3d((Eigen::AngleAxisd(a.z(), Vector3d::UnitZ()) *
                     Eigen::AngleAxisd(a.y(), Vector3d::UnitY()) *
                     Eigen::AngleAxisd(a.x(), Vector3d::UnitX()))
                        .toRotationMatrix());
  };

  // Split chain: base - j1 - link1 =bolt= piece - j2 - link2.
  RobotDescription split = testing::spatialChain3();
  split.joints.pop_back();  // drop j3 and link3 to keep two movable joints
  split.links.pop_back();
  const int link1 = 1;
  const int piece = testing::addLink(split, "piece", piece_mass, toVec3(piece_com), piece_inertia);
  testing::addJoint(split, "bolt", JointType::kFixed, link1, piece, toVec3(bolt_xyz), toVec3(bolt_rpy));
  split.joints[1].parent_link = piece;  // j2 now hangs from the piece
  split.joints[1].origin_xyz = toVec3(j2_xyz_in_piece);
  split.joints[1].origin_rpy = toVec3(j2_rpy_in_piece);

  // Combined by hand: masses add, CoM is the mass-weighted mean, and each
  // inertia moves to the common CoM by Steiner's theorem m (|d|² 1 − d dᵀ).
  const LinkInertial& a = split.links[link1].inertial;
  const Matrix3d R_bolt = rpy(bolt_rpy);
  const double m = a.mass + piece_mass;
  const Vector3d ca(a.com[0], a.com[1], a.com[2]);
  const Vector3d cb = bolt_xyz + R_bolt * piece_com;
  const Vector3d c = (a.mass * ca + piece_mass * cb) / m;
  auto steiner = [](double mass, const Vector3d& d) {
    return Matrix3d(mass * (d.dot(d) * Matrix3d::Identity() - d * d.transpose()));
  };
  const Matrix3d I = toMatrix(a.inertia) + steiner(a.mass, ca - c) +
                     R_bolt * toMatrix(piece_inertia) * R_bolt.transpose() +
                     steiner(piece_mass, cb - c);
  RobotDescription merged = testing::spatialChain3();
  merged.joints.pop_back();
  merged.links.pop_back();
  merged.links[link1].inertial.mass = m;
  merged.links[link1].inertial.com = toVec3(c);
  merged.links[link1].inertial.inertia = {I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2)};
  const Matrix3d R_j2 = R_bolt * rpy(j2_rpy_in_piece);
  const Vector3d p_j2 = bolt_xyz + R_bolt * j2_xyz_in_piece;
  const Vector3d rpy_j2 = R_j2.eulerAngles(2, 1, 0).reverse();  // (roll, pitch, yaw)
  merged.joints[1].origin_xyz = toVec3(p_j2);
  merged.joints[1].origin_rpy = toVec3(rpy_j2);
  ASSERT_LT((rpy(rpy_j2) - R_j2).norm(), 1e-14);

  const RigidModel ms = makeRigidModel(split);
  const RigidModel mm = makeRigidModel(merged);
  ASSERT_EQ(ms.num_joints, 2);
  ASSERT_EQ(mm.num_joints, 2);
  EXPECT_NEAR(ms.body_mass[1], mm.body_mass[1], 1e-14);
  EXPECT_LT((ms.body_com[1] - mm.body_com[1]).norm(), 1e-14);
  EXPECT_LT((ms.body_inertia[1] - mm.body_inertia[1]).norm(), 1e-14);

  RigidData ds(ms), dm(mm);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    const Configuration q = testutil::randomConfiguration(ms, rng);
    const Eigen::VectorXd v = testutil::randomVector(rng, ms.nv, 2.0);
    const Eigen::VectorXd acc = testutil::randomVector(rng, ms.nv, 5.0);
    EXPECT_LT(relativeError(massMatrix(ms, ds, q), massMatrix(mm, dm, q)), 1e-13);
    EXPECT_LT(relativeError(rnea(ms, ds, q, v, acc), rnea(mm, dm, q, v, acc)), 1e-13);
    // The bolted piece keeps its frame, at the bolt's placement on link1.
    forwardKinematics(ms, ds, q);
    const int f = frameIndex(ms, "piece");
    const int b = bodyIndex(ms, "link1");
    EXPECT_EQ(ms.frame_body[f], b);
    EXPECT_LT((ds.frame_p_W[f] - (ds.body_p_W[b] + ds.body_R_W[b] * bolt_xyz)).norm(), 1e-14);
    EXPECT_LT((ds.frame_R_W[f] - ds.body_R_W[b] * R_bolt).norm(), 1e-14);
  }
}

// ---- bad input ----------------------------------------------------------------

void expectRejected(const RobotDescription& robot, const std::vector<std::string>& fragments) {
  try {
    (void)makeRigidModel(robot);
    ADD_FAILURE() << "accepted a bad description";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    for (const std::string& fragment : fragments) {
      EXPECT_NE(message.find(fragment), std::string::npos)
          << "message '" << message << "' lacks '" << fragment << "'";
    }
  }
}

TEST(RigidModelBadInput, PrismaticJointRejectedByName) {
  RobotDescription robot = testing::spatialChain3();
  robot.joints[1].name = "slider";
  robot.joints[1].type = JointType::kPrismatic;
  expectRejected(robot, {"'slider'", "prismatic"});
}

TEST(RigidModelBadInput, PlanarJointRejectedByName) {
  RobotDescription robot = testing::doublePendulum();
  robot.joints[0].name = "table";
  robot.joints[0].type = JointType::kPlanar;
  expectRejected(robot, {"'table'", "planar"});
}

TEST(RigidModelBadInput, FloatingJointInsideTreeRejectedByName) {
  RobotDescription robot = testing::floatingHumanoid();
  robot.joints[0].type = JointType::kFloating;
  expectRejected(robot, {"'waist_yaw'", "floating"});
}

TEST(RigidModelBadInput, ZeroAxisRejected) {
  RobotDescription robot = testing::spatialChain3();
  robot.joints[2].axis = {0.0, 0.0, 0.0};
  expectRejected(robot, {"'j3'", "axis"});
}

TEST(RigidModelBadInput, LinkWithTwoParentsRejected) {
  RobotDescription robot = testing::spatialChain3();
  testing::addJoint(robot, "extra", JointType::kRevolute, 0, 3, {0.0, 0.0, 0.0});
  expectRejected(robot, {"'link3'", "'extra'"});
}

TEST(RigidModelBadInput, UnreachableLinkRejected) {
  RobotDescription robot = testing::spatialChain3();
  testing::addLink(robot, "orphan", 1.0, {0.0, 0.0, 0.0}, testing::rotatedInertia(0.1, 0.1, 0.1));
  expectRejected(robot, {"'orphan'", "not connected"});
}

TEST(RigidModelBadInput, CycleRejected) {
  // link1 -> link2 -> link3 and link3 -> link1: link1 gets two parents or,
  // with the base joint removed, the cycle is cut off from the root.
  RobotDescription robot = testing::spatialChain3();
  robot.joints[0].parent_link = 3;
  expectRejected(robot, {"not connected"});
}

TEST(RigidModelBadInput, RootAsChildRejected) {
  RobotDescription robot = testing::spatialChain3();
  robot.joints[0].child_link = 0;
  robot.joints[0].parent_link = 1;
  expectRejected(robot, {"'j1'", "root"});
}

TEST(RigidModelBadInput, BadLinkIndexRejected) {
  RobotDescription robot = testing::spatialChain3();
  robot.joints[1].child_link = 17;
  expectRejected(robot, {"'j2'", "17"});
  robot = testing::spatialChain3();
  robot.root_link = 9;
  expectRejected(robot, {"root_link 9"});
}

TEST(RigidModelBadInput, NegativeMassRejected) {
  RobotDescription robot = testing::spatialChain3();
  robot.links[2].inertial.mass = -1.0;
  expectRejected(robot, {"'link2'", "mass"});
}

}  // namespace
}  // namespace suitsim::eval
