// Compiling robot descriptions into particle clusters: mass properties,
// joint placement, momentum.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "robots.h"
#include "suitsim/articulated.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

// Mass, centre of mass and inertia about it of a body's particles, body frame.
void clusterMassProperties(const Model& m, int body, double* mass, Eigen::Vector3d* com, Eigen::Matrix3d* inertia) {
  *mass = 0.0;
  Eigen::Vector3d first = Eigen::Vector3d::Zero();
  for (int i = m.body_particle_begin[body]; i < m.body_particle_end[body]; ++i) {
    const Eigen::Vector3d x(m.particle_body_position.x[i], m.particle_body_position.y[i], m.particle_body_position.z[i]);
    *mass += m.particle_mass[i];
    first += m.particle_mass[i] * x;
  }
  *com = first / *mass;
  inertia->setZero();
  for (int i = m.body_particle_begin[body]; i < m.body_particle_end[body]; ++i) {
    const Eigen::Vector3d x =
        Eigen::Vector3d(m.particle_body_position.x[i], m.particle_body_position.y[i], m.particle_body_position.z[i]) -
        *com;
    *inertia += m.particle_mass[i] * (x.squaredNorm() * Eigen::Matrix3d::Identity() - x * x.transpose());
  }
}

// A random rotation, and a random inertia tensor with principal moments that
// can be far apart (thin rods, flat plates) but not degenerate.
std::array<double, 6> randomInertia(std::mt19937& rng, double mass, double shape) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  // Principal second moments s_k = m r_k^2, one of them shrunk by `shape`.
  const double r[3] = {0.02 + 0.2 * u(rng), (0.02 + 0.2 * u(rng)) * shape, 0.02 + 0.2 * u(rng)};
  const Eigen::Vector3d s(mass * r[0] * r[0], mass * r[1] * r[1], mass * r[2] * r[2]);
  const Eigen::Vector3d principal(s[1] + s[2], s[0] + s[2], s[0] + s[1]);
  Eigen::Quaterniond q(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5);
  q.normalize();
  const Eigen::Matrix3d I = q.toRotationMatrix() * principal.asDiagonal() * q.toRotationMatrix().transpose();
  return {I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2)};
}

TEST(RobotCompile, ClustersReproduceMassComAndInertiaOfRandomLinks) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double shape : {1.0, 0.2, 0.03}) {  // chunky, thin, very thin/flat
    RobotDescription robot;
    robot.name = "random_chain";
    robot.floating_base = true;
    std::vector<std::array<double, 6>> inertias;
    const char* link_names[] = {"l0", "l1", "l2", "l3", "l4", "l5"};
    const char* joint_names[] = {"j0", "j1", "j2", "j3", "j4", "j5"};
    for (int l = 0; l < 6; ++l) {
      const double mass = 0.2 + 3.0 * (0.5 + 0.5 * u(rng));
      inertias.push_back(randomInertia(rng, mass, shape));
      testing::addLink(robot, link_names[l], mass, {0.1 * u(rng), 0.1 * u(rng), 0.1 * u(rng)}, inertias.back());
      if (l > 0) {
        testing::addJoint(robot, joint_names[l], JointType::kRevolute, l - 1, l,
                          {0.1 * u(rng), 0.1 * u(rng), 0.2 + 0.1 * u(rng)}, {u(rng), u(rng), u(rng)},
                          {u(rng), u(rng), u(rng)});
      }
    }
    ModelBuilder builder;
    const CompiledRobot compiled = addRobot(builder, robot, {}, {}, {});
    const Model model = builder.build();
    ASSERT_EQ(model.num_bodies, 6);
    for (int l = 0; l < 6; ++l) {
      const int b = compiled.link_body[l];
      double mass;
      Eigen::Vector3d com;
      Eigen::Matrix3d inertia;
      clusterMassProperties(model, b, &mass, &com, &inertia);
      const LinkInertial& in = robot.links[l].inertial;
      EXPECT_NEAR(mass, in.mass, 1e-12 * in.mass) << "shape " << shape << " link " << l;
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(com[k], in.com[k], 1e-12) << "shape " << shape << " link " << l;
      Eigen::Matrix3d expected;
      const auto& i6 = in.inertia;
      expected << i6[0], i6[3], i6[4], i6[3], i6[1], i6[5], i6[4], i6[5], i6[2];
      EXPECT_LT((inertia - expected).norm(), 1e-9 * expected.norm()) << "shape " << shape << " link " << l;
      for (int i = model.body_particle_begin[b]; i < model.body_particle_end[b]; ++i) {
        EXPECT_GT(model.particle_mass[i], 0.0);
      }
    }
  }
}

TEST(RobotCompile, FixedJointsMergeAndMasslessBodiesAreRejected) {
  RobotDescription robot = testing::floatingHumanoid();
  ModelBuilder builder;
  const CompiledRobot compiled = addRobot(builder, robot, {}, {}, {});
  const Model model = builder.build();
  EXPECT_EQ(model.num_hinges, static_cast<int>(robot.movableJoints().size()));
  EXPECT_EQ(compiled.link_body[robot.findLink("head")], compiled.link_body[robot.findLink("torso")]);
  EXPECT_NEAR(model.totalMass(), robot.totalMass(), 1e-9 * robot.totalMass());
  // A moving body without mass cannot be made of particles.
  RobotDescription bad = testing::doublePendulum();
  bad.links[bad.findLink("lower")].inertial.mass = 0.0;
  ModelBuilder b2;
  EXPECT_THROW(addRobot(b2, bad, {}, {}, {}), ModelError);
}

// Compile-stage errors name the element the link or joint came from.
TEST(RobotCompile, ErrorsNameTheSourceElement) {
  RobotDescription bad = testing::doublePendulum();
  RobotLink& lower = bad.links[bad.findLink("lower")];
  lower.source = "arm.urdf:17";
  lower.inertial.mass = 0.0;
  ModelBuilder b;
  try {
    addRobot(b, bad, {}, {}, {});
    ADD_FAILURE() << "no ModelError";
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("arm.urdf:17: ", 0), 0u) << e.what();
  }
}

TEST(RobotCompile, JointAnglesReadBackFromTheInitialPose) {
  const RobotDescription robot = testing::spatialChain3();
  RobotPose pose;
  pose.joint_angles = {0.3, -1.2, 2.5};
  ModelBuilder builder;
  addRobot(builder, robot, pose, {}, {});
  const Model model = builder.build();
  const State state = makeState(model);
  for (const char* name : {"j1", "j2", "j3"}) {
    const int h = findHinge(model, name);
    ASSERT_GE(h, 0);
    EXPECT_NEAR(jointAngle(model, state, h), pose.joint_angles[robot.findJoint(name)], 1e-12) << name;
  }
}

TEST(RobotCompile, FloatingRobotConservesMomentumUnderRandomJointTorques) {
  // Zero gravity, no ground: motor torques are internal pairs and hinge
  // constraint forces are internal sets, so linear and angular momentum stay
  // at their initial values to round-off.
  const RobotDescription robot = testing::floatingHumanoid();
  ModelBuilder builder;
  builder.setGravity({0.0, 0.0, 0.0});
  addRobot(builder, robot, {}, {}, {});
  const Model model = builder.build();
  State state = makeState(model);
  Workspace ws(model);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int i = 0; i < model.num_particles; ++i) state.velocity.set(i, {0.1, -0.05, 0.02});
  Vec3 l0, h0;
  computeMomentum(model, state, &l0, &h0);
  double worst_l = 0.0, worst_h = 0.0;
  for (int k = 0; k < 5000; ++k) {
    if (k % 100 == 0) {
      for (int h = 0; h < model.num_hinges; ++h) state.hinge_current[h] = 5.0 * u(rng);
    }
    step(model, state, ws, Integrator::kVelocityVerlet, 1e-4);
    Vec3 l, hm;
    computeMomentum(model, state, &l, &hm);
    for (int a = 0; a < 3; ++a) {
      worst_l = std::max(worst_l, std::abs(l[a] - l0[a]));
      worst_h = std::max(worst_h, std::abs(hm[a] - h0[a]));
    }
  }
  EXPECT_LT(worst_l, 1e-11);
  EXPECT_LT(worst_h, 1e-11);
}

}  // namespace
}  // namespace suitsim
