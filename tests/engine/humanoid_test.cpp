// The humanoid in the particle engine: JVRC-1 standing and bending under PD
// servo control (scenes/jvrc1_stand.xml, scenes/jvrc1_bend.xml), the quality
// of its rotation-plane hinges, momentum conservation of the floating robot,
// joint static friction A(7)-(9), and the motor model A(6) behind the servo.
//
// The scenes run as `suitsim run` runs them: one JointServo updated before
// every step, the scene's own integrator and time step. Wall times below are
// for one thread on this project's 2-core development machine (Release).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "robots.h"
#include "run_helpers.h"
#include "suitsim/articulated.h"
#include "suitsim/scene/scene.h"
#include "suitsim/scene/urdf.h"
#include "suitsim/servo.h"
#include "suitsim/servo_stability.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

Vector3d toEigen(const Vec3& v) { return {v[0], v[1], v[2]}; }

Matrix3d rotation(const Pose& pose) {
  Matrix3d R;
  R << pose.R[0], pose.R[1], pose.R[2], pose.R[3], pose.R[4], pose.R[5], pose.R[6], pose.R[7], pose.R[8];
  return R;
}

/// A scene with a robot, stepped as `suitsim run` steps it: the servo
/// updates its currents (at its own rate) before every step.
class ServoRun {
 public:
  explicit ServoRun(const std::string& path)
      : scene_(io::loadScene(path)), state_(makeState(scene_.model)), ws_(scene_.model, 1) {
    const io::RobotSetup& robot = scene_.robot.value();
    servo_ = std::make_unique<JointServo>(scene_.model, state_, robot.motion, robot.gains, robot.servo_rate);
  }
  const io::Scene& scene() const { return scene_; }
  const Model& model() const { return scene_.model; }
  const io::RobotSetup& robot() const { return scene_.robot.value(); }
  const State& state() const { return state_; }
  const JointServo& servo() const { return *servo_; }
  double dt() const { return scene_.simulation.dt; }
  long stepsFor(double seconds) const { return std::lround(seconds / dt()); }
  /// The servo's update alone (what happens at the start of every step).
  void updateServo() { servo_->update(scene_.model, state_); }
  /// A step whose servo update has already been made.
  void stepAfterUpdate() { step(scene_.model, state_, ws_, scene_.simulation.integrator, dt()); }
  void advance() {
    updateServo();
    stepAfterUpdate();
  }
  /// Motor constants and offsets differ per hinge, so that inverting A(6) in
  /// the servo is not trivial. Call before the first step.
  void perturbMotors() {
    for (int h = 0; h < scene_.model.num_hinges; ++h) {
      scene_.model.hinge_motor_constant[h] *= 1.0 + 0.1 * std::sin(1.0 + h);
      scene_.model.hinge_torque_offset[h] = 0.3 * std::cos(2.0 + h);
    }
  }
  /// Steps with `integrator` at `dt` and the hinges' stabilisation at
  /// `constraint_frequency` (rad/s) instead of the scene's. Call before the first step.
  void setStep(Integrator integrator, double dt, double constraint_frequency) {
    scene_.simulation.integrator = integrator;
    scene_.simulation.dt = dt;
    scene_.model.hinge_constraint_frequency = constraint_frequency;
  }
  const Workspace& workspace() const { return ws_; }
  /// No Coulomb or static friction at any joint, none stuck (viscous
  /// friction stays). Call before the first step.
  void removeDryFriction() {
    Model& m = scene_.model;
    std::fill(m.hinge_coulomb.begin(), m.hinge_coulomb.end(), 0.0);
    std::fill(m.hinge_static_max.begin(), m.hinge_static_max.end(), 0.0);
    std::fill(state_.hinge_sticking.begin(), state_.hinge_sticking.end(), 0);
  }

 private:
  io::Scene scene_;
  State state_;
  Workspace ws_;
  std::unique_ptr<JointServo> servo_;
};

/// A shipped scene (scenes/<name>.xml) with `pattern` replaced by
/// `replacement`, written to the temporary directory as `written` (its
/// model paths made absolute); returns the written file's path.
std::string editedScene(const std::string& name, const std::string& pattern, const std::string& replacement,
                        const std::string& written) {
  std::ifstream in(SUITSIM_SOURCE_DIR "/scenes/" + name + ".xml");
  std::stringstream text;
  text << in.rdbuf();
  std::string scene = std::regex_replace(text.str(), std::regex(pattern), replacement);
  scene = std::regex_replace(scene, std::regex("\\.\\./models/"), SUITSIM_SOURCE_DIR "/models/");
  const std::string path = (std::filesystem::temp_directory_path() / written).string();
  std::ofstream(path) << scene;
  return path;
}

/// World position of contact point c: the weighted sum of its particles.
Vector3d contactPosition(const Model& m, const State& s, int c) {
  Vector3d p = Vector3d::Zero();
  for (int k = 0; k < 4; ++k) {
    const int i = m.contact_particle[c][k];
    p += m.contact_weight[c][k] * Vector3d(s.position.x[i], s.position.y[i], s.position.z[i]);
  }
  return p;
}

std::vector<Vector3d> contactPositions(const Model& m, const State& s) {
  std::vector<Vector3d> out;
  for (int c = 0; c < m.numContacts(); ++c) out.push_back(contactPosition(m, s, c));
  return out;
}

/// Largest horizontal distance of any contact point from where it was.
double worstSlide(const Model& m, const State& s, const std::vector<Vector3d>& from) {
  double worst = 0.0;
  for (int c = 0; c < m.numContacts(); ++c) {
    const Vector3d d = contactPosition(m, s, c) - from[c];
    worst = std::max(worst, std::hypot(d.x(), d.y()));
  }
  return worst;
}

/// A hinge point given by its weights on a body's particles: in the body
/// frame (`world` false) or in the world.
Vector3d hingePoint(const Model& m, const State& s, int body, const std::array<double, 4>& w, bool world) {
  Vector3d x = Vector3d::Zero();
  const int first = m.body_particle_begin[body];
  for (int k = 0; k < 4; ++k) {
    const int i = first + k;
    x += w[k] * (world ? Vector3d(s.position.x[i], s.position.y[i], s.position.z[i])
                       : Vector3d(m.particle_body_position.x[i], m.particle_body_position.y[i],
                                  m.particle_body_position.z[i]));
  }
  return x;
}

/// The joint axis of hinge h twice, from the compiled hinge points: the
/// parent carries it along A - J_p; the child's arms C1 - J_c and C2 - J_c
/// span its rotation plane, whose normal (C1 - J_c) x (C2 - J_c) is the
/// child's copy (robot_compile.cpp puts the arms along e1 and n x e1). In
/// the body frames (`world` false) or in the world.
void hingeAxes(const Model& m, const State& s, int h, bool world, Vector3d* parent, Vector3d* child) {
  const int pb = m.hinge_parent_body[h], cb = m.hinge_child_body[h];
  *parent = (hingePoint(m, s, pb, m.hinge_axis_point[h], world) - hingePoint(m, s, pb, m.hinge_centre_parent[h], world))
                .normalized();
  const Vector3d jc = hingePoint(m, s, cb, m.hinge_centre_child[h], world);
  *child = (hingePoint(m, s, cb, m.hinge_child_arm[h], world) - jc)
               .cross(hingePoint(m, s, cb, m.hinge_child_arm2[h], world) - jc)
               .normalized();
}

double angleBetween(const Vector3d& a, const Vector3d& b) { return std::atan2(a.cross(b).norm(), a.dot(b)); }

/// Off-axis relative rotation of every hinge (rad), measured two ways.
///  - From the body poses (bodyPose: the rigid rotation that best fits each
///    tetrahedron): the parent's and the child's body-frame copies of the
///    axis, each carried by its body's pose. A perfect hinge on rigid links
///    lets the child turn about that axis only, so the two agree. Particle
///    links are springs, though, and a strained tetrahedron carries its
///    hinge points (affine in its particles) off its best-fit rotation by
///    about the strain.
///  - From the hinge points in the world: the axis the parent's points
///    carry against the normal of the child's rotation plane. This is what
///    the constraints T(11)-(12) hold, strain or no strain.
struct OffAxis {
  double from_poses = 0.0, from_points = 0.0;
  int worst_pose_hinge = -1, worst_point_hinge = -1;
  void measure(const Model& m, const State& s, const std::vector<Vector3d>& parent_B,
               const std::vector<Vector3d>& child_B) {
    for (int h = 0; h < m.num_hinges; ++h) {
      const double pose = angleBetween(rotation(bodyPose(m, s, m.hinge_parent_body[h])) * parent_B[h],
                                       rotation(bodyPose(m, s, m.hinge_child_body[h])) * child_B[h]);
      Vector3d a, b;
      hingeAxes(m, s, h, true, &a, &b);
      const double points = angleBetween(a, b);
      if (pose > from_poses) {
        from_poses = pose;
        worst_pose_hinge = h;
      }
      if (points > from_points) {
        from_points = points;
        worst_point_hinge = h;
      }
    }
  }
};

// ---- standing ------------------------------------------------------------------

// 30 s of standing: 60 000 steps of 0.5 ms, about 1.5 s wall.
TEST(Humanoid, Jvrc1StandsStillFor30s) {
  ServoRun run(SUITSIM_SOURCE_DIR "/scenes/jvrc1_stand.xml");
  const Model& m = run.model();
  const io::RobotSetup& robot = run.robot();
  const int pelvis_link = robot.truth.findLink("PELVIS_S");
  ASSERT_GE(pelvis_link, 0);
  const int pelvis = robot.compiled.link_body[pelvis_link];  // merged into base_link's body
  const Vector3d start = toEigen(bodyPose(m, run.state(), pelvis).p);
  Vector3d settled = start;
  std::vector<Vector3d> feet;
  double drift = 0.0, height_change = 0.0, slide = 0.0;
  // The servos start unloaded: the robot sags onto them and sways fore and
  // aft on its ankles for a few seconds. Drift and sliding are measured
  // from t = 5 s, once that start-up has died down; falling from t = 0.
  const long settle = run.stepsFor(5.0), steps = run.stepsFor(30.0);
  for (long k = 1; k <= steps; ++k) {
    run.advance();
    if (k == settle) {
      settled = toEigen(bodyPose(m, run.state(), pelvis).p);
      feet = contactPositions(m, run.state());
    }
    if (k % 100 != 0) continue;
    const Vector3d p = toEigen(bodyPose(m, run.state(), pelvis).p);
    height_change = std::max(height_change, std::abs(p.z() - start.z()));
    if (k > settle) {
      drift = std::max(drift, std::hypot(p.x() - settled.x(), p.y() - settled.y()));
      slide = std::max(slide, worstSlide(m, run.state(), feet));
    }
  }
  ASSERT_TRUE(stateIsFinite(run.state()));
  std::printf("[measured] standing 30 s: pelvis drift %.3g m after 5 s, height change %.3g m, foot slide %.3g m\n",
              drift, height_change, slide);
  EXPECT_LT(drift, 0.005);
  EXPECT_LT(height_change, 0.02);
  EXPECT_LT(slide, 1e-3);
}

// The fast step of the standing robot (docs/benchmarks.md, "Humanoid"):
// drift-kick-drift at the servo's 1 ms period, one force evaluation a step,
// against the scene as shipped (velocity Verlet at 0.5 ms), 2 s from the
// unloaded start, with the ground contact and joint friction the fixed-base
// MuJoCo check has not. The stabilisation keeps the scene's rate x dt of
// 0.5 (500 rad/s): drift-kick-drift takes its damping at the step's
// starting velocity, and at rate x dt = 1 that loop diverges (period map
// of g'' = -2 w g' - w^2 g: spectral radius 1.62). About 1 s wall.
// Measured 5.7e-3 rad (position Verlet) and 5.8e-5 rad (velocity Verlet).
// Without the motors' rotors, drift-kick-drift at 1 ms is unstable on this
// robot: it takes the servo's kd (held over its 1 ms period) and the
// joints' viscous friction once a step at the starting velocity (one joint:
// v' = v (1 - (b + kd) h / I), stable below 2), and the elbow-yaw and
// wrist-yaw joints, coupled through the light forearm and hand, exceed
// that together though each alone does not (the test after next). Velocity
// Verlet, evaluating twice a step, takes the friction in two halves
// (v' = v (1 - b h / 2I)^2, stable to 4). Without dry friction the robot
// diverges within 0.1 s; with it, static friction catches the growth in a
// stick-slip chatter at half the step rate (2.3 hinge solves an evaluation).
// With the rotors (the next test) the two steps agree.
/// The worst joint-angle difference (rad) between a run at 0.5 ms and one
/// at 1 ms of the same robot over their first 2 s, and its joint.
struct Worst {
  double angle = 0.0;
  std::string joint;
};
Worst worstOverTwoSeconds(ServoRun& half_ms, ServoRun& one_ms) {
  EXPECT_EQ(half_ms.dt(), 5e-4);
  EXPECT_EQ(one_ms.dt(), 1e-3);
  const Model& m = half_ms.model();
  Worst worst;
  for (long ms = 1; ms <= 2000; ++ms) {
    half_ms.advance();
    half_ms.advance();
    one_ms.advance();
    for (int h = 0; h < m.num_hinges; ++h) {
      const double d = std::abs(jointAngle(m, half_ms.state(), h) - jointAngle(m, one_ms.state(), h));
      if (d > worst.angle) worst = {d, m.hinge_name[h]};
    }
  }
  return worst;
}

constexpr double kStandingBound = 1e-2;  // (rad)
TEST(Humanoid, Jvrc1StandsAtOneMillisecondWithDriftKickDrift) {
  // From the scene as shipped, stepping at 1 ms with `integrator`.
  auto worstAt1ms = [](Integrator integrator) {
    ServoRun shipped(SUITSIM_SOURCE_DIR "/scenes/jvrc1_stand.xml");
    ServoRun fast(SUITSIM_SOURCE_DIR "/scenes/jvrc1_stand.xml");
    fast.setStep(integrator, 1e-3, 500.0);
    const Worst worst = worstOverTwoSeconds(shipped, fast);
    EXPECT_TRUE(stateIsFinite(fast.state())) << integratorName(integrator);
    return worst;
  };
  const Worst position = worstAt1ms(Integrator::kPositionVerlet);
  const Worst velocity = worstAt1ms(Integrator::kVelocityVerlet);
  std::printf("[measured] standing 2 s at 1 ms vs velocity Verlet at 0.5 ms: worst joint-angle difference %.3g rad "
              "at %s (position Verlet), %.3g rad at %s (velocity Verlet)\n", position.angle, position.joint.c_str(),
              velocity.angle, velocity.joint.c_str());
  EXPECT_LT(position.angle, kStandingBound);
  EXPECT_LT(velocity.angle, 1e-3);
}

// The fast standing scene (scenes/jvrc1_stand_1ms.xml: the motors' rotors,
// drift-kick-drift at 1 ms, one evaluation a step) against the same robot
// stepped as the 0.5 ms scenes are (velocity Verlet, stabilisation at 1000
// rad/s), over the first 2 s. With the rotors no light link sets the step,
// so the midpoint evaluation keeps static friction holding where it held
// (the chatter of the test above is gone). About 1 s wall.
TEST(Humanoid, Jvrc1WithRotorsStandsAtOneMillisecondLikeTheFineStep) {
  ServoRun fast(SUITSIM_SOURCE_DIR "/scenes/jvrc1_stand_1ms.xml");
  ServoRun fine(SUITSIM_SOURCE_DIR "/scenes/jvrc1_stand_1ms.xml");
  ASSERT_EQ(fast.scene().simulation.integrator, Integrator::kPositionVerlet);
  ASSERT_EQ(fast.dt(), 1e-3);
  fine.setStep(Integrator::kVelocityVerlet, 5e-4, 1000.0);
  const Worst worst = worstOverTwoSeconds(fine, fast);
  ASSERT_TRUE(stateIsFinite(fast.state()));
  std::printf("[measured] standing with rotors 2 s, drift-kick-drift at 1 ms vs velocity Verlet at 0.5 ms: worst "
              "joint-angle difference %.3g rad at %s\n", worst.angle, worst.joint.c_str());
  EXPECT_LT(worst.angle, 1e-3);
}

// The shipped standing scene with <simulation arithmetic="fused">: the
// spring kernel's fused multiply-adds (docs/engine.md, "Spring arithmetic")
// round differently from the separate operations, by half an ulp an
// operation, and over 2 s of standing on the ground, with joint friction
// sticking and slipping, the robot must stay where the separate run has
// it, to well under anything the evaluation resolves (1e-6 rad; measured
// 2.6e-13 rad).
TEST(Humanoid, Jvrc1StandsUnderFusedArithmeticAsUnderSeparate) {
  const std::string path =
      editedScene("jvrc1_stand", "<simulation ", "<simulation arithmetic=\"fused\" ", "suitsim_test_jvrc1_fused.xml");
  ServoRun separate(SUITSIM_SOURCE_DIR "/scenes/jvrc1_stand.xml");
  ServoRun fused(path);
  ASSERT_EQ(fused.model().spring_arithmetic, SpringArithmetic::kFused);
  ASSERT_EQ(separate.model().spring_arithmetic, SpringArithmetic::kSeparate);
  const Model& m = separate.model();
  double worst = 0.0;
  bool differ = false;
  for (long k = 0; k < separate.stepsFor(2.0); ++k) {
    separate.advance();
    fused.advance();
    for (int h = 0; h < m.num_hinges; ++h) {
      const double a = jointAngle(m, separate.state(), h), b = jointAngle(m, fused.state(), h);
      worst = std::max(worst, std::abs(a - b));
      differ |= a != b;
    }
  }
  ASSERT_TRUE(stateIsFinite(fused.state()));
  std::printf("[measured] standing 2 s, fused against separate spring arithmetic: worst joint-angle difference "
              "%.3g rad\n", worst);
  EXPECT_LT(worst, 1e-6);
  EXPECT_TRUE(differ);  // the setting reached the kernel
}

// Without its rotors, JVRC-1's elbow-yaw and wrist-yaw joints couple
// through the light forearm and hand into a mode that the 1 kHz servo and
// the joints' friction, under drift-kick-drift at 1 ms, make grow, although
// each joint alone is within its bounds (servo_stability.h's
// JointSpaceCheck). The check names those joints; the engine agrees: with
// the joints' dry friction off (static friction no longer turns the growth
// into chatter) the robot runs away within 0.3 s. With the rotors (the scene as
// shipped) no mode grows, and it stands (the test above).
TEST(Humanoid, Jvrc1WithoutRotorsGrowsTheCoupledModeTheCheckFinds) {
  const std::string path =
      editedScene("jvrc1_stand_1ms", " armature=\"[^\"]*\"", "", "suitsim_test_jvrc1_no_rotors.xml");
  ServoRun with_rotors(SUITSIM_SOURCE_DIR "/scenes/jvrc1_stand_1ms.xml");
  ServoRun without(path);
  const Model& m = without.model();
  ASSERT_EQ(m.hinge_armature[findHinge(m, "R_WRIST_Y")], 0.0);
  auto check = [](const ServoRun& run) {
    return checkJointSpace(run.model(), run.robot().gains, run.robot().servo_rate, run.dt(),
                           run.scene().simulation.integrator);
  };
  const JointSpaceCheck shipped = check(with_rotors);
  const JointSpaceCheck bare = check(without);
  std::printf("[measured] whole-robot servo and friction at 1 ms, drift-kick-drift: largest growth per period x%.6g "
              "with rotors, x%.6g without (on %zu joints, first %s)\n",
              shipped.growth, bare.growth, bare.hinges.size(),
              bare.hinges.empty() ? "-" : m.hinge_name[bare.hinges[0]].c_str());
  EXPECT_FALSE(shipped.grows());
  ASSERT_TRUE(bare.grows());
  EXPECT_GT(bare.growth, 1.2);
  std::vector<std::string> named;
  for (int h : bare.hinges) named.push_back(m.hinge_name[h]);
  for (const char* joint : {"R_WRIST_Y", "L_WRIST_Y", "R_ELBOW_Y", "L_ELBOW_Y"}) {
    EXPECT_NE(std::find(named.begin(), named.end(), joint), named.end()) << joint;
  }
  // Each joint alone is within its bounds: only the coupled check sees it.
  const ServoStability alone = checkServoStability(m, without.robot().gains, without.robot().servo_rate, without.dt(),
                                                   without.scene().simulation.integrator);
  ASSERT_GE(alone.worst, 0);
  EXPECT_LT(alone.joints[alone.worst].bound_fraction, 1.0);
  // The engine: without dry friction the mode runs away.
  ServoRun frictionless(path);
  frictionless.removeDryFriction();
  double largest = 0.0;
  for (long k = 0; k < frictionless.stepsFor(0.3) && stateIsFinite(frictionless.state()); ++k) {
    frictionless.advance();
    for (int h : bare.hinges) {
      largest = std::max(largest, std::abs(jointVelocity(m, frictionless.state(), h)));
    }
  }
  std::printf("[measured] without rotors or dry joint friction, 0.3 s: fastest joint of the mode %.3g rad/s%s\n", largest,
              stateIsFinite(frictionless.state()) ? "" : " (state non-finite)");
  EXPECT_TRUE(!stateIsFinite(frictionless.state()) || largest > 100.0);
}

// 8 s of standing, about 5 s wall. The robot starts with unloaded servos,
// sags into them and sways fore and aft on its ankles (period about 1 s,
// pelvis amplitude under 1 cm); by 8 s the sway has died down.
TEST(Humanoid, Jvrc1StandingGroundForcesCarryItsWeight) {
  ServoRun run(SUITSIM_SOURCE_DIR "/scenes/jvrc1_stand.xml");
  const Model& m = run.model();
  for (long k = 0; k < run.stepsFor(8.0); ++k) run.advance();
  // At rest the ground carries the weight: sum F_z = m g (Newton for the
  // whole robot, whose internal hinge and torque forces cancel).
  const double weight = m.totalMass() * -m.gravity[2];
  const Vec3 f = totalGroundForce(m, run.state());
  std::printf("[measured] standing: ground force %.6g N vs m g %.6g N (relative error %.3g), horizontal %.3g N\n", f[2],
              weight, f[2] / weight - 1.0, std::hypot(f[0], f[1]));
  EXPECT_NEAR(f[2], weight, 1e-3 * weight);
}

// 1 s of standing with altered motor constants and offsets, about 0.05 s wall.
TEST(Humanoid, Jvrc1ServoCurrentGivesTheDesiredMotorTorque) {
  ServoRun run(SUITSIM_SOURCE_DIR "/scenes/jvrc1_stand.xml");
  run.perturbMotors();
  const Model& m = run.model();
  double worst = 0.0;
  // The servo updates at steps 1, 1 + period, ... (1 kHz: every 2 steps of 0.5 ms).
  const long period = std::lround(1.0 / (run.robot().servo_rate * run.dt()));
  ASSERT_GE(period, 1);
  for (long k = 1; k <= run.stepsFor(1.0); ++k) {
    run.updateServo();
    const bool updated = (k - 1) % period == 0;
    if (updated) {  // right after a servo update
      for (int h = 0; h < m.num_hinges; ++h) {
        // A(6): tau = k_T u + tau_o with the current the servo commanded.
        const double tau = m.hinge_motor_constant[h] * run.state().hinge_current[h] + m.hinge_torque_offset[h];
        const double wanted = run.servo().desiredTorque()[h];
        const double scale = std::abs(wanted) + std::abs(m.hinge_torque_offset[h]);
        worst = std::max(worst, std::abs(tau - wanted) / scale);
      }
    }
    run.stepAfterUpdate();
    if (updated) {
      // What the engine applied in the step's last force evaluation.
      for (int h = 0; h < m.num_hinges; ++h) {
        const double wanted = run.servo().desiredTorque()[h];
        const double scale = std::abs(wanted) + std::abs(m.hinge_torque_offset[h]);
        worst = std::max(worst, std::abs(run.workspace().hinge_motor_torque[h] - wanted) / scale);
      }
    }
  }
  std::printf("[measured] servo vs motor torque: worst relative difference %.3g\n", worst);
  EXPECT_LT(worst, 1e-9);
}

// ---- bending --------------------------------------------------------------------

// The 10 s bend: 20 000 steps of 0.5 ms, about 0.5 s wall. One run checks tracking,
// flat feet, no sliding, the centre of pressure and the hinges' axes.
TEST(Humanoid, Jvrc1BendsForwardAndBack) {
  ServoRun run(SUITSIM_SOURCE_DIR "/scenes/jvrc1_bend.xml");
  const Model& m = run.model();
  const io::RobotSetup& robot = run.robot();
  ASSERT_GT(robot.motion.duration(), 7.0);
  std::vector<int> servoed;
  for (int h = 0; h < m.num_hinges; ++h) {
    if (robot.gains[h].kp > 0.0) servoed.push_back(h);
  }
  ASSERT_EQ(static_cast<int>(servoed.size()), m.num_hinges);
  std::vector<Vector3d> parent_B(m.num_hinges), child_B(m.num_hinges);
  for (int h = 0; h < m.num_hinges; ++h) hingeAxes(m, run.state(), h, false, &parent_B[h], &child_B[h]);
  OffAxis at_start;
  at_start.measure(m, run.state(), parent_B, child_B);
  EXPECT_LT(at_start.from_poses, 1e-9);  // the compiled pose is exact
  EXPECT_LT(at_start.from_points, 1e-9);

  const long settle = run.stepsFor(1.0), steps = run.stepsFor(run.scene().simulation.duration);
  const int waist = findHinge(m, "WAIST_P");
  double sum_sq = 0.0, worst_error = 0.0, slide = 0.0, least_normal = 1e300;
  double deepest_bend = 0.0, cop_lo = 1e300, cop_hi = -1e300;
  long samples = 0;
  OffAxis off_axis;
  std::vector<Vector3d> feet;
  for (long k = 1; k <= steps; ++k) {
    run.updateServo();
    if (k % 100 == 1) {
      // Right after a servo update: the reference and the angle at one time.
      for (int h : servoed) {
        const double e = run.servo().referenceAngle()[h] - jointAngle(m, run.state(), h);
        sum_sq += e * e;
        worst_error = std::max(worst_error, std::abs(e));
      }
      ++samples;
      deepest_bend = std::max(deepest_bend, jointAngle(m, run.state(), waist));
      off_axis.measure(m, run.state(), parent_B, child_B);
    }
    run.stepAfterUpdate();
    if (k == settle) feet = contactPositions(m, run.state());
    if (k % 100 == 0 && k >= settle) {
      // Flat feet: every sole corner presses on the ground, so the centre
      // of pressure (the ZMP) is strictly inside the support polygon.
      double fz = 0.0, moment_x = 0.0;
      for (int c = 0; c < m.numContacts(); ++c) {
        const Vec3 f = groundForce(m, run.state(), c);
        least_normal = std::min(least_normal, f[2]);
        fz += f[2];
        moment_x += f[2] * contactPosition(m, run.state(), c).x();
      }
      // Centre of pressure along x from the middle of the soles (contacts
      // 0 and 1 are the right sole's heel and toe corners; the feet are
      // side by side).
      const double mid = 0.5 * (feet[0].x() + feet[1].x());
      cop_lo = std::min(cop_lo, moment_x / fz - mid);
      cop_hi = std::max(cop_hi, moment_x / fz - mid);
      slide = std::max(slide, worstSlide(m, run.state(), feet));
    }
  }
  ASSERT_TRUE(stateIsFinite(run.state()));
  const double rms = std::sqrt(sum_sq / (static_cast<double>(samples) * servoed.size()));
  std::printf(
      "[measured] bend: WAIST_P reached %.3f rad; RMS joint error %.3g deg (worst %.3g deg); least corner normal "
      "force %.3g N; centre of pressure x from %.3g to %.3g m about the soles' middle; foot slide %.3g m; worst "
      "off-axis rotation from hinge points %.3g rad (%s), from body poses %.3g rad (%s)\n",
      deepest_bend, rms * 180.0 / M_PI, worst_error * 180.0 / M_PI, least_normal, cop_lo, cop_hi, slide,
      off_axis.from_points, m.hinge_name[off_axis.worst_point_hinge].c_str(), off_axis.from_poses,
      m.hinge_name[off_axis.worst_pose_hinge].c_str());
  EXPECT_GT(deepest_bend, 0.45);  // the motion did happen
  EXPECT_LT(rms, 1.0 * M_PI / 180.0);
  EXPECT_GT(least_normal, 0.0);
  EXPECT_LT(slide, 2e-3);
  // The hinges themselves hold their axes (measured: 4.5e-8 rad; 1.2e-5
  // before the hinge solve repeated itself through cascades of
  // static-friction breakaways).
  EXPECT_LT(off_axis.from_points, 1e-4);
  // So do the best-fit poses of the bodies: every force acts on each
  // hinged body as on a rigid body, so nothing strains the links (measured
  // 3.1e-8 rad). When hinge forces were handed to the particles by the
  // hinge points' weights, a light link carrying the robot strained visibly
  // (ANKLE_R_S, 2.2e-3 rad off axis).
  EXPECT_LT(off_axis.from_poses, 1e-4);
}

// ---- momentum ---------------------------------------------------------------------

// 0.5 s of the floating JVRC-1, about 0.3 s wall.
TEST(Humanoid, FloatingJvrc1ConservesMomentumUnderRandomMotorCurrents) {
  RobotDescription robot = io::loadUrdf(SUITSIM_SOURCE_DIR "/models/jvrc1/jvrc1.urdf");
  for (const char* name : {"R_UTHUMB", "R_LTHUMB", "R_UINDEX", "R_LINDEX", "R_ULITTLE", "R_LLITTLE", "L_UTHUMB",
                           "L_LTHUMB", "L_UINDEX", "L_LINDEX", "L_ULITTLE", "L_LLITTLE"}) {
    const int j = robot.findJoint(name);
    ASSERT_GE(j, 0) << name;
    robot.joints[j].type = JointType::kFixed;  // frozen at angle 0
  }
  robot.floating_base = true;
  ModelBuilder builder;
  builder.setGravity({0.0, 0.0, 0.0});  // and no ground: nothing external
  addRobot(builder, robot, {}, {}, {});
  const Model model = builder.build();
  ASSERT_EQ(model.num_hinges, 32);
  State state = makeState(model);
  Workspace ws(model);
  for (int i = 0; i < model.num_particles; ++i) state.velocity.set(i, {0.2, -0.1, 0.05});
  testing::MomentumDrift drift(model, state);
  const Vec3& l0 = drift.initialLinear();
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int k = 0; k < 5000; ++k) {
    if (k % 100 == 0) {
      // Default k_T = 1 N m/A: up to 2 N m, enough to swing every link.
      for (int h = 0; h < model.num_hinges; ++h) state.hinge_current[h] = 2.0 * u(rng);
    }
    step(model, state, ws, Integrator::kVelocityVerlet, 1e-4);
    drift.add(state);
  }
  const double worst_l = drift.linear(), worst_h = drift.angular();
  ASSERT_TRUE(stateIsFinite(state));
  std::printf("[measured] floating JVRC-1: momentum drift linear %.3g kg m/s, angular %.3g kg m^2/s (|P| = %.3g)\n",
              worst_l, worst_h, std::sqrt(l0[0] * l0[0] + l0[1] * l0[1] + l0[2] * l0[2]));
  // Internal forces cancel to round-off: 5000 steps of sums over 132
  // particles of order-1 momenta.
  EXPECT_LT(worst_l, 1e-10);
  EXPECT_LT(worst_h, 1e-10);
}

// ---- joint friction ------------------------------------------------------------------

// A horizontal pendulum arm loads its hinge with the gravity torque m g l.
//
// Gravity is phased in: at first applied forces cancel it on the arm's
// particles, then they fade out over 0.5 s (minimum-jerk), so the hinge
// takes the load statically. (With links held by stiff springs alone, a
// weight released at once was a step load on the link's lowest elastic
// mode, which swung the hinge's reaction torque between 0 and 2 m g l; the
// arm is now a rigid body, and the ramp keeps the test's load a static
// one.) 1.5 s at 0.1 ms, 0.1 s wall each.
// Returns the largest change of the joint angle.
double pendulumSwing(double static_max, double coulomb) {
  RobotDescription robot = testing::singlePendulum();
  JointActuation& a = robot.joints[0].actuation;
  a.static_max = static_max;
  a.coulomb = coulomb;
  a.viscous = 0.0;
  ModelBuilder builder;
  builder.setGravity({0.0, 0.0, -9.81});
  RobotPose pose;
  pose.joint_angles = {M_PI / 2.0};  // CoM at (-l, 0, 0): the arm is horizontal
  addRobot(builder, robot, pose, {}, {});
  const Model model = builder.build();
  State state = makeState(model);
  Workspace ws(model);
  EXPECT_EQ(state.hinge_sticking[0], 1);  // at rest with friction: stuck
  const double start = jointAngle(model, state, 0);
  const double dt = 1e-4, ramp = 0.5;
  double worst = 0.0;
  for (int k = 0; k < 15000; ++k) {
    const double s = std::min(1.0, k * dt / ramp);
    const double blend = s * s * s * (10.0 - 15.0 * s + 6.0 * s * s);
    for (int i = 0; i < model.num_particles; ++i) {
      state.applied_force.set(i, {0.0, 0.0, (1.0 - blend) * 9.81 * model.particle_mass[i]});
    }
    step(model, state, ws, Integrator::kVelocityVerlet, dt);
    worst = std::max(worst, std::abs(jointAngle(model, state, 0) - start));
  }
  return worst;
}

TEST(Humanoid, StaticFrictionHoldsAHingeBelowItsLimitAndSlipsAbove) {
  const RobotDescription robot = testing::singlePendulum();
  const double load = robot.links[1].inertial.mass * 9.81 * 0.6;  // m g l = 7.65 N m
  // A(7): at rest the joint holds any torque up to tau_s^max ...
  const double held = pendulumSwing(1.2 * load, 0.8 * load);
  // ... and beyond it slips; Coulomb friction below the load cannot stop it.
  const double slipped = pendulumSwing(0.9 * load, 0.6 * load);
  std::printf("[measured] friction: load %.3g N m; held arm moved %.3g rad, released arm %.3g rad\n", load, held,
              slipped);
  EXPECT_LT(held, 1e-5);
  EXPECT_GT(slipped, 0.1);
}

TEST(Humanoid, MimicFingersFollowTheServoedThumbs) {
  // scenes/jvrc1_hand_mimic.xml: the fingers are not frozen, only the
  // thumbs are servoed, and the URDF's ten <mimic> joints follow them.
  ServoRun run(SUITSIM_SOURCE_DIR "/scenes/jvrc1_hand_mimic.xml");
  const Model& m = run.model();
  ASSERT_EQ(m.num_couplings, 10);
  ASSERT_EQ(m.num_hinges, 44);
  const int thumb = findHinge(m, "R_UTHUMB");
  double worst = 0.0, lowest = 0.0;
  for (long k = 0; k < run.stepsFor(3.0); ++k) {
    run.advance();
    ASSERT_TRUE(stateIsFinite(run.state())) << "step " << k;
    for (int c = 0; c < m.num_couplings; ++c) {
      const double e = jointAngle(m, run.state(), m.coupling_follower[c]) -
                       m.coupling_multiplier[c] * jointAngle(m, run.state(), m.coupling_leader[c]) -
                       m.coupling_offset[c];
      worst = std::max(worst, std::abs(e));
    }
    lowest = std::min(lowest, jointAngle(m, run.state(), thumb));
  }
  const double index = jointAngle(m, run.state(), findHinge(m, "R_UINDEX"));
  std::printf("[measured] mimic hand: thumb down to %.3g rad, worst coupling error %.3g rad, R_UINDEX ends at %.3g "
              "rad (-2 x thumb %.3g)\n",
              lowest, worst, index, -2.0 * jointAngle(m, run.state(), thumb));
  EXPECT_LT(lowest, -0.45);  // the thumb closed
  EXPECT_LT(worst, 1e-4);
}

// Velocity Verlet reuses a step's closing force evaluation as the next
// step's opening one. Whatever a caller edits between steps (a motor current,
// an external force, a particle, a friction state), the next step must be the
// one a state with no cached acceleration takes, bit for bit; left alone, the
// cache must be used. Until the cache checked its own inputs, callers had to
// clear a flag, and an edit without it stepped with stale forces.
TEST(Humanoid, VerletCacheFollowsEveryEditBetweenSteps) {
  ServoRun run(SUITSIM_SOURCE_DIR "/scenes/jvrc1_stand.xml");
  for (int k = 0; k < 200; ++k) run.advance();  // on the ground, friction anchored, servo acting
  const Model& model = run.model();
  ASSERT_EQ(run.scene().simulation.integrator, Integrator::kVelocityVerlet);
  ASSERT_NE(cachedAcceleration(run.state()), nullptr);

  auto stepOnce = [&](State s) {
    Workspace ws(model, 1);
    step(model, s, ws, Integrator::kVelocityVerlet, run.dt());
    return s;
  };
  auto sameBits = [&](const State& a, const State& b) {
    for (int i = 0; i < model.num_particles; ++i) {
      if (a.position.get(i) != b.position.get(i) || a.velocity.get(i) != b.velocity.get(i)) return false;
    }
    return true;
  };
  const std::vector<std::pair<std::string, std::function<void(State&)>>> edits = {
      {"a motor current", [](State& s) { s.hinge_current[3] += 0.5; }},
      {"an applied force", [](State& s) { s.applied_force.x[7] += 2.0; }},
      {"a velocity", [](State& s) { s.velocity.y[11] += 0.01; }},
      {"a position", [](State& s) { s.position.z[5] += 1e-4; }},
      {"a contact anchor", [](State& s) { s.anchor_u[0] += 1e-4; }},
      {"a hinge's stick state", [](State& s) { s.hinge_sticking[2] ^= 1; }},
  };
  for (const auto& [what, edit] : edits) {
    State cached = run.state();
    edit(cached);
    State fresh = cached;
    fresh.acceleration_cache.filled = false;
    EXPECT_EQ(cachedAcceleration(cached), nullptr) << what;
    EXPECT_TRUE(sameBits(stepOnce(cached), stepOnce(fresh))) << "after editing " << what;
  }
  // Left alone, the cache is used: it holds the evaluation at the half-step
  // velocity (damping), so a step from it differs from a fresh one.
  State fresh = run.state();
  fresh.acceleration_cache.filled = false;
  EXPECT_FALSE(sameBits(stepOnce(run.state()), stepOnce(fresh)));
}

}  // namespace
}  // namespace suitsim
