#include "run_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "suitsim/servo.h"
#include "suitsim/servo_stability.h"
#include "step_check.h"

namespace suitsim::experiment {

namespace {

// The servo's check (servo_stability.h) for a trial, or nothing without a servo.
std::optional<ServoStability> servoCheck(const io::Scene& scene, const io::SimulationSettings& sim) {
  if (!scene.robot || !scene.robot->has_servo) return std::nullopt;
  const io::RobotSetup& r = *scene.robot;
  return checkServoStability(scene.model, r.gains, r.servo_rate, sim.dt, sim.integrator);
}

// The servo and joint friction on the whole tree (servo_stability.h's
// JointSpaceCheck): the coupled modes the per-joint check cannot see.
JointSpaceCheck jointSpaceCheck(const io::Scene& scene, const io::SimulationSettings& sim) {
  const bool servo = scene.robot && scene.robot->has_servo;
  return checkJointSpace(scene.model, servo ? scene.robot->gains : std::vector<ServoGains>{},
                         servo ? scene.robot->servo_rate : 0.0, sim.dt, sim.integrator);
}

}  // namespace

// Why a run diverged, as far as the checks can tell: the servoed joint
// closest to (or past) its bound, or the stiffest spring or contact, which
// ever is nearer its own limit (omega dt against about 2, step.h), unless
// the servo and friction on the whole tree grow where neither is past it.
// When nothing is past its limit, the message says so rather than blame one.
// What ran away first (runaway_watch.h), measured, comes before the checks'
// prediction.
std::string divergenceMessage(const io::Scene& scene, const io::SimulationSettings& sim, double time,
                              const std::string& runaway) {
  // The element nearest its bound, named with its line (step_check.h).
  const std::optional<StepLimit> fastest = fastestStepLimit(scene);
  const double limit_fraction = fastest ? fastest->certainFraction(sim.dt) : 0.0;
  char head[200];
  std::snprintf(head, sizeof head,
                "the simulation diverged at t = %.6g s (a position, velocity or recorded value became non-finite); ",
                time);
  std::string message = head;
  if (!runaway.empty()) message += runaway + "; ";
  const std::optional<ServoStability> servo = servoCheck(scene, sim);
  const ServoJointCheck* worst = servo && servo->worst >= 0 ? &servo->joints[servo->worst] : nullptr;
  const std::string springs =
      fastest ? describeStepLimit(scene, *fastest, sim.dt) : std::string("no spring, contact or constraint bounds the step");
  const bool servo_first = worst && worst->bound_fraction >= limit_fraction;
  const double nearest = servo_first ? worst->bound_fraction : limit_fraction;
  const JointSpaceCheck tree = jointSpaceCheck(scene, sim);
  if (nearest < 1.0 && tree.grows()) {
    return message + "likely culprit: " + describeJointSpaceCheck(scene.model, tree) + "; " + springs;
  }
  message += nearest >= 1.0 ? "likely culprit: "
                            : "no check put anything past its bound (they take the robot at its initial pose, "
                              "without contact); nearest to it: ";
  if (servo_first) {
    message += "the servo of " + describeServoCheck(scene.model, *servo, *worst) + "; " + springs;
  } else {
    message += springs + "; try a smaller --dt";
    if (worst) {
      char closest[160];
      std::snprintf(closest, sizeof closest, " (the servoed joint nearest its bound, '%s', is at %.3g of it)",
                    scene.model.hinge_name[worst->hinge].c_str(), worst->bound_fraction);
      message += closest;
    }
  }
  return message;
}

// Before anything runs: a servo loop that reverses (servo_stability.h) diverges
// whatever the rest of the robot does (its kd T / I_eff is a lower bound on
// the whole servo's largest mode), so the scene is refused at the <servo>
// that set the gain. A loop that only lags may be damped by the servos of
// the joints it is coupled to and by friction, which the 1-DOF model leaves
// out: that is a warning (once per joint).
void refuseDivergingServo(const io::Scene& scene, const io::SimulationSettings& sim, const std::string& scene_path,
                          std::vector<std::string>* warnings, std::vector<int>* warned) {
  const std::optional<ServoStability> servo = servoCheck(scene, sim);
  if (!servo) return;
  const io::RobotSetup& r = *scene.robot;
  for (const ServoJointCheck& j : servo->joints) {
    if (j.loop.reverses) {
      const int line = r.gain_line[j.hinge];
      const double value = j.gain == "kd" ? j.kd : j.kp;
      char got[64];
      std::snprintf(got, sizeof got, " (got %.6g)", value);
      throw io::SceneError(scene_path + (line > 0 ? ":" + std::to_string(line) : std::string()) +
                           ": <servo> attribute '" + j.gain + "' makes the servo loop diverge: " +
                           describeServoCheck(scene.model, *servo, j) + got);
    }
    if (j.loop.lags && warnings && std::find(warned->begin(), warned->end(), j.hinge) == warned->end()) {
      warned->push_back(j.hinge);
      warnings->push_back("the servo loop may diverge at " + describeServoCheck(scene.model, *servo, j));
    }
  }
}

// Before anything runs: the servo and friction on the whole tree
// (JointSpaceCheck), unless a joint fails alone (its own message says
// more). A coupled mode that grows under the linear model may
// be held by static friction (as stick-slip chatter) or by contact, so it
// is a warning naming the joints, not a refusal.
void warnGrowingJointSpace(const io::Scene& scene, const io::SimulationSettings& sim,
                           std::vector<std::string>* warnings) {
  if (!warnings) return;
  // A joint that fails alone was refused or warned of already (refuseDivergingServo).
  const std::optional<ServoStability> servo = servoCheck(scene, sim);
  if (servo && std::any_of(servo->joints.begin(), servo->joints.end(),
                           [](const ServoJointCheck& j) { return !j.loop.stable(); })) {
    return;
  }
  const JointSpaceCheck check = jointSpaceCheck(scene, sim);
  if (check.grows()) warnings->push_back("the run may chatter or diverge: " + describeJointSpaceCheck(scene.model, check));
}

// Before anything runs: with Toda and Sankai's link model the link springs
// hold the bodies, and an explicit step past a body's fastest spring mode
// (omega dt >= its bound) diverges whatever else the robot does, so the run
// is refused at the <robot> element, naming the body and the step it needs.
//
// The servo check takes the rigid robot's inertia (servo_stability.h); a
// joint sees it once its links have answered, within a few periods of their
// springs. A servo period not long against them (omega T < 10 at a servoed
// joint's body) is warned of: the H1 standing (ankle kd T / I_eff 1.15 of
// 2, T = 0.2 ms) diverged at link_frequency 2e4 and 3e4 rad/s (omega T 4
// and 6) and stood at 4e4 and 6e4 (8 and 12).
void refuseUnstableLinks(const io::Scene& scene, const io::SimulationSettings& sim, const std::string& scene_path,
                         std::vector<std::string>* warnings) {
  const std::vector<LinkMode> modes = linkModes(scene.model);
  const std::optional<ServoStability> servo = modes.empty() ? std::nullopt : servoCheck(scene, sim);
  if (servo && warnings) {
    std::vector<double> omega(scene.model.num_bodies, 0.0);
    for (const LinkMode& l : modes) omega[l.body] = l.omega;
    const ServoJointCheck* slowest = nullptr;
    int slowest_body = -1;
    double slowest_ratio = 10.0;
    for (const ServoJointCheck& j : servo->joints) {
      if (!(j.kd > 0.0)) continue;
      for (int b : {scene.model.hinge_parent_body[j.hinge], scene.model.hinge_child_body[j.hinge]}) {
        if (omega[b] > 0.0 && omega[b] * servo->period < slowest_ratio) {
          slowest_ratio = omega[b] * servo->period;
          slowest = &j;
          slowest_body = b;
        }
      }
    }
    if (slowest) {
      char message[600];
      std::snprintf(message, sizeof message,
                    "the servo of joint '%s' holds its torque T = %.3g s, not long against the link springs of body "
                    "'%s' (omega = %.4g rad/s, omega T = %.3g): the servo check takes the rigid robot's inertia, "
                    "which a joint sees once its links have answered, so with spring links the loop may diverge; "
                    "a stiffer link_frequency (omega T >= 10, with a step to match) keeps it",
                    scene.model.hinge_name[slowest->hinge].c_str(), servo->period,
                    scene.model.body_name[slowest_body].c_str(), omega[slowest_body], slowest_ratio);
      warnings->push_back(message);
    }
  }
  for (const LinkMode& l : modes) {
    if (l.omega * sim.dt < l.bound) continue;
    const int line = scene.robot ? scene.robot->line : 0;
    char message[560];
    std::snprintf(message, sizeof message,
                  ": <robot> attribute 'link_model' springs cannot run at dt = %.3g s: body '%s' on its link "
                  "springs oscillates at omega = %.4g rad/s (damping ratio %.3g), and omega dt = %.3g; the springs "
                  "are explicit and need omega dt < %.3g: take dt below %.3g s (<simulation dt>) or a lower "
                  "link_frequency (got 'springs')",
                  sim.dt, scene.model.body_name[l.body].c_str(), l.omega, l.damping_ratio, l.omega * sim.dt, l.bound,
                  l.bound / l.omega);
    throw io::SceneError(scene_path + (line > 0 ? ":" + std::to_string(line) : std::string()) + message);
  }
}

}  // namespace suitsim::experiment
