// The fixed-base JVRC-1 PD cross-check against MuJoCo 2.2.2
// (tests/engine/mujoco_fidelity_test.cpp, whose header says what it
// compares), shared with bench/mujoco_bench.cpp, which reports the spring
// link model's error for several link_frequency / dt pairs. Include it
// only where SUITSIM_HAVE_MUJOCO is defined.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "mujoco_urdf.h"
#include "suitsim/articulated.h"
#include "suitsim/scene/urdf.h"
#include "suitsim/servo.h"
#include "suitsim/step.h"

namespace suitsim::testing {

inline const std::string kUrdf = SUITSIM_SOURCE_DIR "/models/jvrc1/jvrc1.urdf";
inline constexpr double kDuration = 3.0;  // (s)
inline constexpr double kGravity = -9.81;

// PD gains per joint, as the JVRC-1 scenes scale them to what each joint
// moves (scenes/jvrc1_stand.xml), with the fingers added.
inline ServoGains gainsFor(const std::string& joint) {
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
inline double armatureFor(const std::string& joint) {
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

inline Reference makeReference(const RobotDescription& robot) {
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
  SuitsimJvrc(const RobotDescription& robot, const Reference& ref, double dt, Integrator integrator,
              const RobotCompileOptions& options = {}, SpringArithmetic arithmetic = SpringArithmetic::kSeparate)
      : integrator_(integrator), dt_(dt) {
    ModelBuilder builder;
    builder.setGravity({0.0, 0.0, kGravity});  // and no ground
    RobotPose pose;
    pose.joint_angles.assign(robot.joints.size(), 0.0);
    for (std::size_t k = 0; k < ref.joints.size(); ++k) pose.joint_angles[robot.findJoint(ref.joints[k])] = ref.start[k];
    addRobot(builder, robot, pose, {}, options);
    model_ = builder.build();
    model_.spring_arithmetic = arithmetic;
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
  const Model& model() const { return model_; }
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
      : model_(loadMujocoText(mujocoUrdfText(kUrdf), "jvrc1_fixed.urdf")), motion_(motion) {
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
  MujocoModel model_;
  MujocoData data_;
  Motion motion_;  // the same samples as suitsim's, indexed by reference joint
  std::vector<int> qpos_, dof_;
  std::vector<ServoGains> gains_;
  std::vector<double> reference_, reference_rate_;
};

inline RobotDescription fixedJvrc(bool armature = false) {
  RobotDescription robot = io::loadUrdf(kUrdf);
  robot.floating_base = false;
  for (RobotJoint& joint : robot.joints) {
    joint.actuation = JointActuation{};  // k_T 1, no friction
    joint.mimic = JointMimic{};          // as MuJoCo reads the URDF: no coupling
    if (armature) joint.actuation.armature = armatureFor(joint.name);
  }
  return robot;
}

inline Motion referenceMotion(const Reference& ref) {
  std::vector<int> columns(ref.joints.size());
  for (std::size_t k = 0; k < columns.size(); ++k) columns[k] = static_cast<int>(k);
  return Motion(columns, ref.time, ref.angles);
}

// Worst joint-angle difference (rad) over all `num_joints` joints, every
// millisecond for kDuration, between two simulations stepped in lockstep.
// Counts the steps where a side's PD law did not update (step() false).
template <class A, class B>
inline double worstDifference(A& a, B& b, int num_joints, double dt, int* skipped_updates, double duration = kDuration) {
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


}  // namespace suitsim::testing
