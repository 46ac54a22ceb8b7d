// An independent cross-check of the engine: JVRC-1 on a fixed base under a
// PD servo on all 44 joints, simulated by suitsim (particle clusters and
// rotation-plane hinges) and by MuJoCo 2.2.2 (generalized coordinates),
// each reading models/jvrc1/jvrc1.urdf itself. No contact, no friction, no
// limits, no bands: the two must then integrate the same ODE.
//
// The PD law is the same in both: tau = kp (q_ref - q) + kd (qd_ref - qd),
// computed from the simulator's own state before every step and held over
// the step (suitsim: JointServo at 1 / dt; MuJoCo: qfrc_applied, which its
// RK4 holds over the four stages). The reference is one Motion (smooth
// sinusoids sampled every 10 ms, cubic between samples) read by both.
// MuJoCo 2.2.2's URDF reader makes no equality of the fingers' <mimic>
// tags, so suitsim's couplings are dropped here too (the description's
// mimic fields cleared): the fingers are ordinary PD-held joints on both
// sides.
//
// Measured (3 s, worst joint-angle difference over the 44 joints, sampled
// every millisecond; printed as [measured] lines):
//   RK4 in both at dt = 2e-5 s:                          2.2e-12 rad
//   at the protocol's step, dt = 1e-4 s (a 10 kHz servo):
//     suitsim velocity Verlet vs MuJoCo RK4:             1.8e-5 rad
//     MuJoCo's semi-implicit Euler vs MuJoCo RK4:        7.3e-4 rad
// The first is round-off: the two engines integrate the same ODE (one
// link's mass changed by one part per million on one side, R_KNEE_S, makes
// it 4.2e-9 rad, so the check sees the model, not only the integrator). The
// second is mostly velocity Verlet's truncation error at 1e-4 s (second
// order, against fourth-order RK4 under the same held torques), 40 times
// smaller than that of MuJoCo's default integrator at the same step. Both are asserted with a margin (kRk4Bound,
// kVerletBound); MuJoCo's Euler figure is printed only.
#include <gtest/gtest.h>

#ifndef SUITSIM_HAVE_MUJOCO

TEST(MujocoFidelity, Jvrc1FixedBaseUnderPdServo) {
  GTEST_SKIP() << "MuJoCo was not found (or SUITSIM_WITH_MUJOCO was OFF) when this build was configured "
                  "(apt-get install libmujoco-dev, "
                  "or scripts/setup.sh, then configure again): the cross-check against MuJoCo is not built";
}

#else

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "mujoco_urdf.h"
#include "suitsim/articulated.h"
#include "suitsim/io/urdf.h"
#include "suitsim/servo.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

const std::string kUrdf = SUITSIM_SOURCE_DIR "/models/jvrc1/jvrc1.urdf";
constexpr double kDuration = 3.0;  // (s)
constexpr double kGravity = -9.81;

// PD gains per joint, as the JVRC-1 scenes scale them to what each joint
// moves (scenes/jvrc1_stand.xml), with the fingers added.
ServoGains gainsFor(const std::string& joint) {
  auto has = [&](const char* part) { return joint.find(part) != std::string::npos; };
  if (has("ANKLE")) return {1500.0, 4.0};
  if (has("HIP") || has("KNEE") || has("WAIST")) return {3000.0, 30.0};
  if (has("SHOULDER")) return {500.0, 5.0};
  if (has("ELBOW") || has("NECK")) return {200.0, 1.0};
  if (has("WRIST")) return {30.0, 0.1};
  return {5.0, 0.02};  // fingers: 0.2 kg links
}

// Armature (kg m^2) per joint for the armature variant: the rotor inertia
// times the gear ratio squared of an HRP-class robot's motors (legs and
// waist about 1.3e-5 kg m^2 at 1:160, shoulders 3.3e-6, elbows, neck and
// wrists 1e-6 to 5e-7 at 1:100; fingers 1e-3).
double armatureFor(const std::string& joint) {
  auto has = [&](const char* part) { return joint.find(part) != std::string::npos; };
  if (has("ANKLE") || has("HIP") || has("KNEE") || has("WAIST")) return 0.33;
  if (has("SHOULDER")) return 0.085;
  if (has("ELBOW") || has("NECK")) return 0.01;
  if (has("WRIST")) return 0.005;
  return 1e-3;
}

// The reference: about the middle of each joint's range, a sinusoid of a
// quarter of the half-range (at most 0.3 rad), a different frequency and
// phase per joint, sampled every 10 ms.
struct Reference {
  std::vector<std::string> joints;  // movable description joints, in tree order
  std::vector<double> start;        // q_ref(0) per joint (rad)
  std::vector<double> time, angles;  // Motion samples, row-major (time x joints)
};

Reference makeReference(const RobotDescription& robot) {
  Reference ref;
  for (int j : robot.movableJoints()) ref.joints.push_back(robot.joints[j].name);
  const int n = static_cast<int>(ref.joints.size());
  std::vector<double> centre(n), amplitude(n), omega(n), phase(n);
  for (int k = 0; k < n; ++k) {
    const RobotJoint& joint = robot.joints[robot.findJoint(ref.joints[k])];
    centre[k] = 0.5 * (joint.lower + joint.upper);
    amplitude[k] = std::min(0.3, 0.25 * 0.5 * (joint.upper - joint.lower));
    omega[k] = 2.0 * M_PI * (0.4 + 0.037 * k);
    phase[k] = 0.7 * k;
  }
  for (int s = 0; s <= static_cast<int>(std::lround(kDuration / 0.01)); ++s) {
    const double t = 0.01 * s;
    ref.time.push_back(t);
    for (int k = 0; k < n; ++k) ref.angles.push_back(centre[k] + amplitude[k] * std::sin(omega[k] * t + phase[k]));
  }
  ref.start.assign(ref.angles.begin(), ref.angles.begin() + n);
  return ref;
}

// suitsim's side: the URDF through our reader and the particle compiler.
class SuitsimJvrc {
 public:
  SuitsimJvrc(const RobotDescription& robot, const Reference& ref, double dt, Integrator integrator)
      : integrator_(integrator), dt_(dt) {
    ModelBuilder builder;
    builder.setGravity({0.0, 0.0, kGravity});  // and no ground
    RobotPose pose;
    pose.joint_angles.assign(robot.joints.size(), 0.0);
    for (std::size_t k = 0; k < ref.joints.size(); ++k) pose.joint_angles[robot.findJoint(ref.joints[k])] = ref.start[k];
    addRobot(builder, robot, pose, {}, {});
    model_ = builder.build();
    state_ = makeState(model_);
    ws_ = std::make_unique<Workspace>(model_);
    std::vector<int> hinges;
    for (const std::string& name : ref.joints) hinges.push_back(findHinge(model_, name));
    hinge_ = hinges;
    std::vector<ServoGains> gains(model_.num_hinges);
    for (std::size_t k = 0; k < ref.joints.size(); ++k) gains[hinges[k]] = gainsFor(ref.joints[k]);
    motion_ = Motion(hinges, ref.time, ref.angles);
    servo_ = std::make_unique<JointServo>(model_, state_, motion_, gains, 1.0 / dt);
    reference_.resize(hinges.size());
    reference_rate_.resize(hinges.size());
  }

  int numHinges() const { return model_.num_hinges; }
  const std::vector<int>& hinges() const { return hinge_; }
  double angle(int k) const { return jointAngle(model_, state_, hinge_[k]); }

  // One servo update and one step. Returns false when the servo skipped its
  // update (its period drifted against the step): then the PD laws differ.
  bool step() {
    servo_->update(model_, state_);
    motion_.sample(state_.time, reference_.data(), reference_rate_.data());
    bool updated = true;
    for (std::size_t k = 0; k < hinge_.size(); ++k) updated &= servo_->referenceAngle()[hinge_[k]] == reference_[k];
    suitsim::step(model_, state_, *ws_, integrator_, dt_);
    return updated;
  }

 private:
  Integrator integrator_;
  double dt_;
  Model model_;
  State state_;
  std::unique_ptr<Workspace> ws_;
  std::vector<int> hinge_;
  Motion motion_;
  std::unique_ptr<JointServo> servo_;
  std::vector<double> reference_, reference_rate_;
};

// MuJoCo's side: the same URDF through MuJoCo's own reader.
class MujocoJvrc {
 public:
  MujocoJvrc(const Reference& ref, double dt, mjtIntegrator integrator, const Motion& motion, bool armature = false)
      : model_(testing::loadMujocoText(testing::mujocoUrdfText(kUrdf), "jvrc1_fixed.urdf")), motion_(motion) {
    mjModel* m = model_.get();
    m->opt.timestep = dt;
    m->opt.integrator = integrator;
    m->opt.gravity[0] = m->opt.gravity[1] = 0.0;
    m->opt.gravity[2] = kGravity;
    // No constraint rows at all: the URDF's joint limits would become limit
    // constraints in MuJoCo, while suitsim's limit springs are off here.
    m->opt.disableflags |= mjDSBL_CONSTRAINT;
    data_.reset(mj_makeData(m));
    for (const std::string& name : ref.joints) {
      const int j = mj_name2id(m, mjOBJ_JOINT, name.c_str());
      qpos_.push_back(j < 0 ? -1 : m->jnt_qposadr[j]);
      dof_.push_back(j < 0 ? -1 : m->jnt_dofadr[j]);
      gains_.push_back(gainsFor(name));
      if (armature && j >= 0) m->dof_armature[m->jnt_dofadr[j]] = armatureFor(name);
    }
    for (std::size_t k = 0; k < ref.joints.size(); ++k) {
      if (qpos_[k] >= 0) data_->qpos[qpos_[k]] = ref.start[k];
    }
    mj_forward(m, data_.get());
    reference_.resize(ref.joints.size());
    reference_rate_.resize(ref.joints.size());
  }

  const mjModel* model() const { return model_.get(); }
  bool hasJoint(int k) const { return qpos_[k] >= 0; }
  double angle(int k) const { return data_->qpos[qpos_[k]]; }

  // The PD law from MuJoCo's state, then one step. Always true (the law is
  // applied every step), like SuitsimJvrc::step.
  bool step() {
    mjData* d = data_.get();
    motion_.sample(d->time, reference_.data(), reference_rate_.data());
    for (std::size_t k = 0; k < qpos_.size(); ++k) {
      d->qfrc_applied[dof_[k]] = gains_[k].kp * (reference_[k] - d->qpos[qpos_[k]]) +
                                 gains_[k].kd * (reference_rate_[k] - d->qvel[dof_[k]]);
    }
    mj_step(model_.get(), d);
    return true;
  }

 private:
  testing::MujocoModel model_;
  testing::MujocoData data_;
  Motion motion_;  // the same samples as suitsim's, indexed by reference joint
  std::vector<int> qpos_, dof_;
  std::vector<ServoGains> gains_;
  std::vector<double> reference_, reference_rate_;
};

RobotDescription fixedJvrc(bool armature = false) {
  RobotDescription robot = io::loadUrdf(kUrdf);
  robot.floating_base = false;
  for (RobotJoint& joint : robot.joints) {
    joint.actuation = JointActuation{};  // k_T 1, no friction
    joint.mimic = JointMimic{};          // as MuJoCo reads the URDF: no coupling
    if (armature) joint.actuation.armature = armatureFor(joint.name);
  }
  return robot;
}

Motion referenceMotion(const Reference& ref) {
  std::vector<int> columns(ref.joints.size());
  for (std::size_t k = 0; k < columns.size(); ++k) columns[k] = static_cast<int>(k);
  return Motion(columns, ref.time, ref.angles);
}

// Worst joint-angle difference (rad) over all `num_joints` joints, every
// millisecond for kDuration, between two simulations stepped in lockstep.
// Counts the steps where a side's PD law did not update (step() false).
template <class A, class B>
double worstDifference(A& a, B& b, int num_joints, double dt, int* skipped_updates, double duration = kDuration) {
  const long per_ms = std::max(1L, std::lround(1e-3 / dt));
  double worst = 0.0;
  *skipped_updates = 0;
  for (long ms = 0; ms < std::lround(duration / (per_ms * dt)); ++ms) {
    for (long s = 0; s < per_ms; ++s) {
      if (!a.step()) ++*skipped_updates;
      if (!b.step()) ++*skipped_updates;
    }
    for (int k = 0; k < num_joints; ++k) {
      worst = std::max(worst, std::abs(std::remainder(a.angle(k) - b.angle(k), 2.0 * M_PI)));
    }
  }
  return worst;
}

TEST(MujocoFidelity, BothReadTheSameMassesInertiasAndAxes) {
  const RobotDescription robot = fixedJvrc();
  const Reference ref = makeReference(robot);
  MujocoJvrc mj(ref, 2e-5, mjINT_RK4, referenceMotion(ref));
  const mjModel* m = mj.model();
  ASSERT_EQ(m->nv, static_cast<int>(ref.joints.size()));  // fixed base: one dof per joint
  EXPECT_EQ(m->neq, 0);    // <mimic> made no equality constraint
  EXPECT_EQ(m->ngeom, 0);  // no geometry: nothing to collide
  double total = 0.0;
  for (int b = 0; b < m->nbody; ++b) total += m->body_mass[b];
  EXPECT_NEAR(total, robot.totalMass(), 1e-12);
  std::printf("[measured] mass: suitsim %.15g kg, MuJoCo %.15g kg\n", robot.totalMass(), total);
  // Per link: MuJoCo keeps the inertia as principal moments and the
  // principal axes' quaternion; rebuilt, it must be the URDF's tensor.
  for (const RobotLink& link : robot.links) {
    const int b = mj_name2id(m, mjOBJ_BODY, link.name.c_str());
    ASSERT_GE(b, 0) << link.name;
    EXPECT_NEAR(m->body_mass[b], link.inertial.mass, 1e-14) << link.name;
    if (link.inertial.mass == 0.0) continue;
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(m->body_ipos[3 * b + a], link.inertial.com[a], 1e-14) << link.name;
    mjtNum R[9];
    mju_quat2Mat(R, m->body_iquat + 4 * b);
    auto entry = [&](int r, int c) {
      double sum = 0.0;
      for (int k = 0; k < 3; ++k) sum += R[3 * r + k] * m->body_inertia[3 * b + k] * R[3 * c + k];
      return sum;
    };
    const std::array<double, 6>& I = link.inertial.inertia;  // ixx iyy izz ixy ixz iyz
    const double rebuilt[6] = {entry(0, 0), entry(1, 1), entry(2, 2), entry(0, 1), entry(0, 2), entry(1, 2)};
    for (int e = 0; e < 6; ++e) EXPECT_NEAR(rebuilt[e], I[e], 1e-12 * (1.0 + I[0] + I[1] + I[2])) << link.name;
  }
  for (const std::string& name : ref.joints) {
    const RobotJoint& joint = robot.joints[robot.findJoint(name)];
    const int j = mj_name2id(m, mjOBJ_JOINT, name.c_str());
    ASSERT_GE(j, 0) << name;
    EXPECT_EQ(m->jnt_type[j], mjJNT_HINGE) << name;
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(m->jnt_axis[3 * j + a], joint.axis[a], 1e-15) << name;
    // MuJoCo's armature, damping and friction loss would be terms suitsim does not have.
    EXPECT_EQ(m->dof_armature[m->jnt_dofadr[j]], 0.0) << name;
    EXPECT_EQ(m->dof_damping[m->jnt_dofadr[j]], 0.0) << name;
    EXPECT_EQ(m->dof_frictionloss[m->jnt_dofadr[j]], 0.0) << name;
  }
}

// Bounds: 2.2e-12 and 1.8e-5 rad measured, about 50 and 5 times below.
constexpr double kRk4Bound = 1e-10;
constexpr double kVerletBound = 1e-4;

TEST(MujocoFidelity, Jvrc1FixedBaseUnderPdServoRk4) {
  const double dt = 2e-5;
  const RobotDescription robot = fixedJvrc();
  const Reference ref = makeReference(robot);
  const int n = static_cast<int>(ref.joints.size());
  SuitsimJvrc ours(robot, ref, dt, Integrator::kRk4);
  MujocoJvrc theirs(ref, dt, mjINT_RK4, referenceMotion(ref));
  ASSERT_EQ(ours.numHinges(), 44);
  for (int k = 0; k < n; ++k) ASSERT_TRUE(theirs.hasJoint(k)) << ref.joints[k];
  int skipped = 0;
  const double worst = worstDifference(ours, theirs, n, dt, &skipped);
  std::printf("[measured] JVRC-1 fixed base, PD on 44 joints, 3 s, RK4 in both at dt %g s: worst joint-angle "
              "difference %.3g rad\n", dt, worst);
  EXPECT_EQ(skipped, 0);
  EXPECT_LT(worst, kRk4Bound);
}

TEST(MujocoFidelity, Jvrc1FixedBaseUnderPdServoAtTheProtocolStep) {
  const double dt = 1e-4;
  const RobotDescription robot = fixedJvrc();
  const Reference ref = makeReference(robot);
  const int n = static_cast<int>(ref.joints.size());
  int skipped = 0;
  SuitsimJvrc ours(robot, ref, dt, Integrator::kVelocityVerlet);
  MujocoJvrc rk4(ref, dt, mjINT_RK4, referenceMotion(ref));
  const double worst = worstDifference(ours, rk4, n, dt, &skipped);
  EXPECT_EQ(skipped, 0);
  // MuJoCo against itself: its default integrator at this step.
  MujocoJvrc rk4_again(ref, dt, mjINT_RK4, referenceMotion(ref));
  MujocoJvrc euler(ref, dt, mjINT_EULER, referenceMotion(ref));
  const double worst_euler = worstDifference(euler, rk4_again, n, dt, &skipped);
  std::printf("[measured] JVRC-1 fixed base, 3 s at dt %g s: suitsim velocity Verlet vs MuJoCo RK4 %.3g rad; "
              "MuJoCo Euler vs MuJoCo RK4 %.3g rad\n", dt, worst, worst_euler);
  EXPECT_LT(worst, kVerletBound);
}

// With armature on every joint (MuJoCo's dof_armature, suitsim's rotor
// row): the two must again integrate the same ODE, here over 1 s.
TEST(MujocoFidelity, Jvrc1FixedBaseWithArmatureRk4) {
  const double dt = 2e-5;
  const RobotDescription robot = fixedJvrc(true);
  const Reference ref = makeReference(robot);
  const int n = static_cast<int>(ref.joints.size());
  SuitsimJvrc ours(robot, ref, dt, Integrator::kRk4);
  MujocoJvrc theirs(ref, dt, mjINT_RK4, referenceMotion(ref), true);
  int skipped = 0;
  const double worst = worstDifference(ours, theirs, n, dt, &skipped, 1.0);
  // Without the armature on MuJoCo's side the difference is of the order
  // of the motion itself: the check sees the rotors.
  SuitsimJvrc ours_again(robot, ref, dt, Integrator::kRk4);
  MujocoJvrc without(ref, dt, mjINT_RK4, referenceMotion(ref), false);
  const double worst_without = worstDifference(ours_again, without, n, dt, &skipped, 0.2);
  std::printf("[measured] JVRC-1 fixed base with armature, PD on 44 joints, 1 s, RK4 in both at dt %g s: worst "
              "joint-angle difference %.3g rad (%.3g rad after 0.2 s against MuJoCo without armature)\n",
              dt, worst, worst_without);
  EXPECT_EQ(skipped, 0);
  EXPECT_LT(worst, kRk4Bound);
  EXPECT_GT(worst_without, 1e3 * kRk4Bound);
}

// The long step armature allows: suitsim's velocity Verlet at 0.5 and 1 ms,
// the servo updated every step, against MuJoCo's RK4 at the same step (the
// same held PD torques), 2 s. Without armature these steps diverge (the
// wrists' kd T / I_eff is far past 2).
TEST(MujocoFidelity, Jvrc1WithArmatureAtOneMillisecond) {
  const RobotDescription robot = fixedJvrc(true);
  const Reference ref = makeReference(robot);
  const int n = static_cast<int>(ref.joints.size());
  for (const double dt : {5e-4, 1e-3}) {
    SuitsimJvrc ours(robot, ref, dt, Integrator::kVelocityVerlet);
    MujocoJvrc rk4(ref, dt, mjINT_RK4, referenceMotion(ref), true);
    int skipped = 0;
    const double worst = worstDifference(ours, rk4, n, dt, &skipped, 2.0);
    std::printf("[measured] JVRC-1 fixed base with armature, 2 s: suitsim velocity Verlet at dt %g s vs MuJoCo RK4 "
                "at the same step: worst joint-angle difference %.3g rad\n", dt, worst);
    EXPECT_EQ(skipped, 0);
    EXPECT_LT(worst, 1e-3) << "dt " << dt;
  }
}

}  // namespace
}  // namespace suitsim

#endif
