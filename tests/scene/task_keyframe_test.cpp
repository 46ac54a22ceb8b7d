// Task-space keyframes as a scene gives them (scene/src/task_keyframe.h):
// the motion the loader builds is replayed on the stance's rigid model, base
// placed by the right foot, and every target of tests/scene/data/
// jvrc_task_keyframes.xml is checked at its keyframe time by forward
// kinematics: the other foot where it stood, the torso orientation, the
// pelvis height, the CoM's projection (on the a-priori model with the held
// objects, not on the truth), the pinned angles as given, and the joints no
// target needs untouched. The bad-input fixtures are in scene_reader_test.cpp.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <algorithm>
#include <string>
#include <vector>

#include "suitsim/rigid/balance.h"
#include "suitsim/rigid/kinematics.h"
#include "suitsim/scene/scene.h"
#include "suitsim/scene/stance.h"

namespace suitsim::io {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector2d;
using Eigen::Vector3d;

struct Replay {
  Scene scene;
  Stance stance;
  eval::RigidData data;
  std::vector<eval::FramePose> feet;  // initial poses of the grounded links
  explicit Replay(const std::string& path)
      : scene(loadScene(path)), stance(makeStance(*scene.robot)), data(stance.model) {
    for (int f : groundedLinks(stance, data)) feet.push_back(initialFramePose(stance, data, f));
  }
  const eval::RigidModel& model() const { return stance.model; }

  // The motion at time t on the rigid model, the first foot where it stood.
  eval::Configuration at(double t) {
    const Motion& motion = scene.robot->motion;
    std::vector<double> angle(motion.hinges().size()), rate(motion.hinges().size());
    motion.sample(t, angle.data(), rate.data());
    eval::Configuration q = stance.initial;
    for (int j = 0; j < model().num_joints; ++j) {
      const int h = scene.robot->compiled.joint_hinge[model().joint_source[j]];
      const auto k = std::find(motion.hinges().begin(), motion.hinges().end(), h);
      if (k != motion.hinges().end()) q.joints(j) = angle[k - motion.hinges().begin()];
    }
    eval::placeBaseOnSupport(model(), data, feet.front(), q);
    eval::forwardKinematics(model(), data, q);
    return q;
  }
  double joint(const eval::Configuration& q, const char* name) const {
    return q.joints(eval::jointIndex(model(), name));
  }
  int frame(const char* name) const { return eval::frameIndex(model(), name); }
};

std::string dataScene(const char* name) { return std::string(SUITSIM_SOURCE_DIR) + "/tests/scene/data/" + name; }

Matrix3d rpy(double r, double p, double y) {
  return (Eigen::AngleAxisd(y, Vector3d::UnitZ()) * Eigen::AngleAxisd(p, Vector3d::UnitY()) *
          Eigen::AngleAxisd(r, Vector3d::UnitX()))
      .toRotationMatrix();
}

double angleBetween(const Matrix3d& a, const Matrix3d& b) {
  return Eigen::AngleAxisd(Matrix3d(a * b.transpose())).angle();
}

void expectFeetStill(Replay& r) {
  for (const eval::FramePose& f : r.feet) {
    EXPECT_LT((r.data.frame_p_W[f.frame] - f.p_W).norm(), 1e-8) << r.model().frame_name[f.frame];
    EXPECT_LT(angleBetween(r.data.frame_R_W[f.frame], f.R_W), 1e-8) << r.model().frame_name[f.frame];
  }
}

void expectWithinLimits(const Replay& r, const eval::Configuration& q) {
  for (int j = 0; j < r.model().num_joints; ++j) {
    EXPECT_GE(q.joints(j), r.stance.joint_lower(j)) << r.model().joint_name[j];
    EXPECT_LE(q.joints(j), r.stance.joint_upper(j)) << r.model().joint_name[j];
  }
}

TEST(TaskKeyframes, BentTwistedTorsoWithPinnedJointsFeetAndCom) {
  Replay r(dataScene("jvrc_task_keyframes.xml"));
  ASSERT_EQ(r.feet.size(), 2u);
  const eval::Configuration q = r.at(3.0);
  expectFeetStill(r);
  EXPECT_LT(angleBetween(r.data.frame_R_W[r.frame("WAIST_R_S")], rpy(0.0, 0.5, 0.2)), 1e-8);
  // Pinned by angles in the same keyframe: kept exactly.
  // (Keyframe values come back through the minimum-jerk interpolation: to
  // rounding.)
  EXPECT_NEAR(r.joint(q, "WAIST_Y"), 0.1, 1e-12);
  EXPECT_NEAR(r.joint(q, "NECK_Y"), 0.3, 1e-12);
  // No target needs the arms: they keep their initial angles.
  EXPECT_NEAR(r.joint(q, "R_ELBOW_P"), -0.5, 1e-12);
  EXPECT_NEAR(r.joint(q, "L_SHOULDER_R"), 0.2, 1e-12);
  // The CoM over the support polygon's centroid, on the model the
  // experimenter knows (a priori + the 2 x 0.5 kg held).
  const eval::SupportPolygon polygon = eval::supportPolygon(r.model(), r.data, r.stance.initial, r.stance.contacts,
                                                            r.stance.ground);
  const Vector2d centroid = eval::polygonCentroid(polygon);
  const Vector3d com = eval::centerOfMass(r.model(), r.data, q);
  EXPECT_LT((eval::groundCoordinates(r.stance.ground, com) - centroid).norm(), 1e-8);
  expectWithinLimits(r, q);
  // The hidden 4 kg payload is not part of it: the true CoM lands elsewhere.
  const eval::RigidModel truth = eval::makeRigidModel(r.scene.robot->truth);
  eval::RigidData truth_data(truth);
  eval::Configuration qt = q;
  const Vector3d true_com = eval::centerOfMass(truth, truth_data, qt);
  EXPECT_GT((true_com.head<2>() - centroid).norm(), 1e-3);
}

TEST(TaskKeyframes, UprightLoweredPelvisAndComInsideTheMargin) {
  Replay r(dataScene("jvrc_task_keyframes.xml"));
  const eval::Configuration q = r.at(5.0);
  expectFeetStill(r);
  EXPECT_LT(angleBetween(r.data.frame_R_W[r.frame("WAIST_R_S")], Matrix3d::Identity()), 1e-8);
  EXPECT_NEAR(eval::heightAboveGround(r.stance.ground, r.data.frame_p_W[r.frame("PELVIS_S")]), 0.8, 1e-8);
  const eval::SupportPolygon polygon = eval::supportPolygon(r.model(), r.data, r.stance.initial, r.stance.contacts,
                                                            r.stance.ground);
  const Vector3d com = eval::centerOfMass(r.model(), r.data, q);
  EXPECT_GE(eval::polygonMargin(polygon, eval::groundCoordinates(r.stance.ground, com)), 0.03 - 1e-8);
  // NECK_Y keeps the value it was given at 3 s.
  EXPECT_NEAR(r.joint(q, "NECK_Y"), 0.3, 1e-12);
  expectWithinLimits(r, q);
}

TEST(TaskKeyframes, AnAnglesOnlyKeyframeAfterwardsKeepsTheSolvedPose) {
  Replay r(dataScene("jvrc_task_keyframes.xml"));
  const eval::Configuration q5 = r.at(5.0);
  const eval::Configuration q6 = r.at(6.0);
  for (int j = 0; j < r.model().num_joints; ++j) {
    if (r.model().joint_name[j] == "R_ELBOW_P") {
      EXPECT_NEAR(q6.joints(j), -0.8, 1e-12);
    } else {
      EXPECT_NEAR(q6.joints(j), q5.joints(j), 1e-12) << r.model().joint_name[j];
    }
  }
}

TEST(TaskKeyframes, AnglesOnlyMotionsReadAsBefore) {
  // jvrc1_bend.xml: joints named anywhere take part, a keyframe that leaves
  // one out keeps the value before (the initial angle at first).
  const Scene scene = loadScene(std::string(SUITSIM_SOURCE_DIR) + "/scenes/jvrc1_bend.xml");
  const Motion& motion = scene.robot->motion;
  ASSERT_EQ(motion.hinges().size(), 7u);  // WAIST_P, hips, knees, ankles pitch
  std::vector<double> angle(7), rate(7);
  motion.sample(4.0, angle.data(), rate.data());
  auto value = [&](const char* name) {
    const int h = scene.robot->compiled.joint_hinge[scene.robot->truth.findJoint(name)];
    return angle[std::find(motion.hinges().begin(), motion.hinges().end(), h) - motion.hinges().begin()];
  };
  EXPECT_NEAR(value("WAIST_P"), 0.5, 1e-12);
  EXPECT_NEAR(value("R_HIP_P"), -0.6868, 1e-12);
  EXPECT_NEAR(value("R_KNEE"), 0.72, 1e-12);  // from the keyframe at 1 s
  EXPECT_NEAR(value("L_ANKLE_P"), -0.2832, 1e-12);
}

}  // namespace
}  // namespace suitsim::io
