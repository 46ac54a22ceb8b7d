// The wire model of suit bands, A(21)-(25): lengths against hand-computed
// values, the length Jacobian A(22) against central differences on JVRC-1
// with the suit of scenes/jvrc1_bend_suit.xml, the tension's slack case and
// the sign of the supporting torque against the band energy.
#include "suitsim/eval/wires.h"

#include <gtest/gtest.h>

#include "suit_bands.h"

#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>

#include "rigid_test_util.h"
#include "robots.h"
#include "suitsim/rigid/kinematics.h"
#include "suitsim/scene/urdf.h"

namespace suitsim::eval {
namespace {

using Eigen::VectorXd;

using testing::suitBands;

RigidModel jvrc1() {
  return makeRigidModel(io::loadUrdf(SUITSIM_SOURCE_DIR "/models/jvrc1/jvrc1.urdf"));
}

// Joint angles of the scene's stance and of its bent pose (WAIST_P 0.5).
VectorXd pose(const RigidModel& model, bool bent) {
  VectorXd q = VectorXd::Zero(model.num_joints);
  auto set = [&](const char* name, double value) {
    const int j = jointIndex(model, name);
    EXPECT_GE(j, 0) << name;
    if (j >= 0) q[j] = value;
  };
  set("R_KNEE", 0.72);
  set("L_KNEE", 0.72);
  set("R_SHOULDER_R", -0.2);
  set("L_SHOULDER_R", 0.2);
  set("R_ELBOW_P", -0.5);
  set("L_ELBOW_P", -0.5);
  set("R_HIP_P", bent ? -0.6868 : -0.38);
  set("L_HIP_P", bent ? -0.6868 : -0.38);
  set("R_ANKLE_P", bent ? -0.2832 : -0.34);
  set("L_ANKLE_P", bent ? -0.2832 : -0.34);
  set("WAIST_P", bent ? 0.5 : 0.0);
  return q;
}

// ---- geometry -----------------------------------------------------------------------

TEST(Wires, GeometryFromBand) {
  const RigidModel model = jvrc1();
  const std::vector<WireGeometry> wires = makeWireGeometries(model, suitBands());
  ASSERT_EQ(wires.size(), 4u);
  EXPECT_EQ(wires[0].name, "bandA_R");
  ASSERT_EQ(wires[0].frame.size(), 8u);
  EXPECT_EQ(model.frame_name[wires[0].frame[6]], "L_HIP_Y_S");
  EXPECT_EQ(wires[0].point[6], Eigen::Vector3d(-0.09, 0.0, -0.10));
  EXPECT_EQ(wires[2].frame.size(), 5u);
}

TEST(Wires, UnknownLinkThrowsNamingIt) {
  const RigidModel model = jvrc1();
  RobotBand band = suitBands()[0];
  band.links[3] = "SPINE_S";
  try {
    makeWireGeometry(model, band);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unknown link 'SPINE_S'"), std::string::npos) << what;
    EXPECT_NE(what.find("bandA_R"), std::string::npos) << what;
    EXPECT_NE(what.find("via point 3"), std::string::npos) << what;
  }
  band = suitBands()[0];
  band.points.pop_back();
  EXPECT_THROW(makeWireGeometry(model, band), std::invalid_argument);  // 8 links, 7 points
  band.links = {"PELVIS_S"};
  band.points = {{0.0, 0.0, 0.0}};
  EXPECT_THROW(makeWireGeometry(model, band), std::invalid_argument);  // one via point
}

// ---- length A(23)-(24): a two-link case by hand --------------------------------------

// Double pendulum (axes +y, elbow at (0, 0, −0.5) of "upper"); the wire runs
// from A = (0.1, 0, 0) on "base" to B = (0.1, 0, −0.4) on "upper" to
// C = (0.1, 0, −0.2) on "lower". Rotation by θ about +y maps (x, 0, z) to
// (x cos θ + z sin θ, 0, −x sin θ + z cos θ).
TEST(Wires, TwoLinkLengthAndJacobianByHand) {
  const RigidModel model = makeRigidModel(testing::doublePendulum());
  RigidData data(model);
  RobotBand band;
  band.name = "w";
  band.links = {"base", "upper", "lower"};
  band.points = {{0.1, 0.0, 0.0}, {0.1, 0.0, -0.4}, {0.1, 0.0, -0.2}};
  const WireGeometry wire = makeWireGeometry(model, band);
  Eigen::RowVectorXd J(2);

  // Straight down: 0.4 + 0.3.
  forwardKinematics(model, data, Configuration(Eigen::Vector2d(0.0, 0.0)));
  EXPECT_NEAR(wireLength(model, data, wire), 0.7, 1e-15);

  // Shoulder at π/2: B = (−0.4, 0, −0.1), C = (−0.7, 0, −0.1).
  forwardKinematics(model, data, Configuration(Eigen::Vector2d(std::numbers::pi / 2, 0.0)));
  EXPECT_NEAR(wireLength(model, data, wire), std::sqrt(0.26) + 0.3, 1e-15);

  // Elbow at π/2: B = (0.1, 0, −0.4), C = (0, 0, −0.5) + (−0.2, 0, −0.1).
  forwardKinematics(model, data, Configuration(Eigen::Vector2d(0.0, std::numbers::pi / 2)));
  const double l = wireLengthJacobian(model, data, wire, J);
  EXPECT_NEAR(l, 0.4 + std::sqrt(0.13), 1e-15);
  EXPECT_NEAR(wireLength(model, data, wire), l, 1e-15);
  // ∂l/∂θ1: B and C turn together (|BC| fixed); B moves by ŷ × B =
  // (−0.4, 0, −0.1) per radian, along u_AB = (0, 0, −1): +0.1.
  EXPECT_NEAR(J[0], 0.1, 1e-15);
  // ∂l/∂θ2: C moves by ŷ × (C − elbow) = (−0.1, 0, 0.2), along
  // u_BC = (−0.3, 0, −0.2)/√0.13: (0.03 − 0.04)/√0.13.
  EXPECT_NEAR(J[1], -0.01 / std::sqrt(0.13), 1e-15);
}

// ---- Jacobian A(22) against central differences on JVRC-1 ------------------------------

TEST(Wires, LengthJacobianMatchesFiniteDifferencesOnJvrc1) {
  const RigidModel model = jvrc1();
  const std::vector<WireGeometry> wires = makeWireGeometries(model, suitBands());
  RigidData data(model);
  std::mt19937 rng(5);
  std::vector<VectorXd> poses = {pose(model, false), pose(model, true)};
  for (int k = 0; k < 4; ++k) {
    poses.push_back(pose(model, k % 2 == 1) + testutil::randomVector(rng, model.num_joints, 0.3));
  }
  const double h = 1e-6;
  double worst = 0.0;
  Eigen::RowVectorXd J(model.num_joints);
  for (const VectorXd& theta : poses) {
    // A random floating-base pose: lengths must not care.
    Configuration q = testutil::randomConfiguration(model, rng);
    q.joints = theta;
    for (const WireGeometry& wire : wires) {
      forwardKinematics(model, data, q);
      wireLengthJacobian(model, data, wire, J);
      for (int j = 0; j < model.num_joints; ++j) {
        Configuration qp = q, qm = q;
        qp.joints[j] += h;
        qm.joints[j] -= h;
        forwardKinematics(model, data, qp);
        const double lp = wireLength(model, data, wire);
        forwardKinematics(model, data, qm);
        const double lm = wireLength(model, data, wire);
        worst = std::max(worst, std::abs((lp - lm) / (2.0 * h) - J[j]));
      }
    }
  }
  std::printf("[measured] JVRC-1 suit: |J - central difference| <= %.3g m/rad\n", worst);
  RecordProperty("worst_abs_error", testutil::sci(worst));
  // Central differences err by h² l'''/6 ~ 1e-13 plus round-off 1e-16 / h.
  EXPECT_LT(worst, 1e-8);
}

// The length is the same wherever the floating base is.
TEST(Wires, LengthIndependentOfBasePose) {
  const RigidModel model = jvrc1();
  const std::vector<WireGeometry> wires = makeWireGeometries(model, suitBands());
  RigidData data(model);
  std::mt19937 rng(9);
  const Configuration at_origin(pose(model, true));
  for (int k = 0; k < 3; ++k) {
    Configuration q = testutil::randomConfiguration(model, rng);
    q.joints = at_origin.joints;
    for (const WireGeometry& wire : wires) {
      forwardKinematics(model, data, at_origin);
      const double l0 = wireLength(model, data, wire);
      forwardKinematics(model, data, q);
      EXPECT_NEAR(wireLength(model, data, wire), l0, 1e-14) << wire.name;
    }
  }
}

// The scene's description: bending forward stretches each type-A band by
// about 0.11 m/rad of WAIST_P.
TEST(Wires, TypeABandsStretchWhenBending) {
  const RigidModel model = jvrc1();
  const std::vector<WireGeometry> wires = makeWireGeometries(model, suitBands());
  RigidData data(model);
  Eigen::RowVectorXd J(model.num_joints);
  forwardKinematics(model, data, Configuration(pose(model, false)));
  const int waist_p = jointIndex(model, "WAIST_P");
  const int r_hip_p = jointIndex(model, "R_HIP_P");
  const int l_hip_p = jointIndex(model, "L_HIP_P");
  std::vector<double> stance(4);
  for (int i = 0; i < 4; ++i) {
    stance[i] = wireLengthJacobian(model, data, wires[i], J);
    std::printf("[measured] %s stance: l = %.4f m, dl/dWAIST_P = %.4f, dl/dR_HIP_P = %.4f, "
                "dl/dL_HIP_P = %.4f m/rad\n",
                wires[i].name.c_str(), stance[i], J[waist_p], J[r_hip_p], J[l_hip_p]);
    if (i < 2) {
      EXPECT_GT(J[waist_p], 0.08) << wires[i].name;
      EXPECT_LT(J[waist_p], 0.14) << wires[i].name;
    }
  }
  // Mirror images: the same length in the symmetric stance.
  EXPECT_NEAR(stance[0], stance[1], 1e-12);
  EXPECT_NEAR(stance[2], stance[3], 1e-12);
  // Type A crosses to the opposite thigh: bandA_R does not feel R_HIP_P.
  wireLengthJacobian(model, data, wires[0], J);
  EXPECT_EQ(J[r_hip_p], 0.0);
  EXPECT_LT(J[l_hip_p], 0.0);  // hip flexion (negative HIP_P) stretches it
  forwardKinematics(model, data, Configuration(pose(model, true)));
  for (int i = 0; i < 2; ++i) EXPECT_GT(wireLength(model, data, wires[i]), stance[i] + 0.05);
}

// ---- tension A(25) and supporting torque A(21) ------------------------------------------

TEST(Wires, TensionIsAOneSidedSpring) {
  EXPECT_EQ(wireTension(0.52, 200.0, 0.50), 200.0 * (0.52 - 0.50));
  EXPECT_EQ(wireTension(0.50, 200.0, 0.50), 0.0);  // just taut
  EXPECT_EQ(wireTension(0.40, 200.0, 0.50), 0.0);  // slack: pushes nothing
}

TEST(Wires, SlackBandsGiveZeroTorque) {
  const RigidModel model = jvrc1();
  const std::vector<WireGeometry> wires = makeWireGeometries(model, suitBands());
  RigidData data(model);
  const Configuration q(pose(model, true));
  forwardKinematics(model, data, q);
  VectorXd l0(4);
  for (int i = 0; i < 4; ++i) l0[i] = wireLength(model, data, wires[i]) + 0.01;
  const VectorXd tau = supportingTorque(model, data, q, wires, VectorXd::Constant(4, 197.8), l0);
  EXPECT_EQ(tau.size(), model.num_joints);
  EXPECT_TRUE(tau.isZero(0.0));
  EXPECT_THROW(supportingTorque(model, data, q, wires, VectorXd::Constant(3, 197.8), l0),
               std::invalid_argument);
}

// τ_support = −∂V/∂θ with V = Σ ½ k (l − l0)² for taut bands: a stretched
// band's forces do negative work as it lengthens. Checked by central
// differences of V, and on the waist: bending forward (which stretches
// type A) is resisted, τ_WAIST_P < 0, about the scene's 5.5 N m for both.
TEST(Wires, SupportingTorqueIsMinusGradientOfBandEnergy) {
  const RigidModel model = jvrc1();
  const std::vector<WireGeometry> wires = makeWireGeometries(model, suitBands());
  RigidData data(model);
  forwardKinematics(model, data, Configuration(pose(model, false)));
  VectorXd l0(4);
  for (int i = 0; i < 4; ++i) l0[i] = wireLength(model, data, wires[i]);  // just taut in the stance
  const VectorXd k = VectorXd::Constant(4, 197.8);
  const Configuration q(pose(model, true));
  const VectorXd tau = supportingTorque(model, data, q, wires, k, l0);
  auto energy = [&](const Configuration& c) {
    forwardKinematics(model, data, c);
    double v = 0.0;
    for (int i = 0; i < 4; ++i) {
      const double stretch = std::max(0.0, wireLength(model, data, wires[i]) - l0[i]);
      v += 0.5 * k[i] * stretch * stretch;
    }
    return v;
  };
  const double h = 1e-6;
  double worst = 0.0;
  for (int j = 0; j < model.num_joints; ++j) {
    Configuration qp = q, qm = q;
    qp.joints[j] += h;
    qm.joints[j] -= h;
    worst = std::max(worst, std::abs(-(energy(qp) - energy(qm)) / (2.0 * h) - tau[j]));
  }
  const int waist_p = jointIndex(model, "WAIST_P");
  std::printf("[measured] bent pose, bands just taut in the stance: tau_WAIST_P = %.3f N m; "
              "|tau + dV/dtheta| <= %.3g N m\n",
              tau[waist_p], worst);
  EXPECT_LT(worst, 1e-6);
  EXPECT_LT(tau[waist_p], -3.0);
  EXPECT_GT(tau[waist_p], -8.0);
}

}  // namespace
}  // namespace suitsim::eval
