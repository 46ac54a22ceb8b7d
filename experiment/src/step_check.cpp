#include "step_check.h"

#include <algorithm>
#include <cstdio>

namespace suitsim::experiment {

namespace {

std::string format(const char* fmt, double a, double b = 0.0, double c = 0.0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

// The element that made input spring `index`: the last source that began at
// or before it.
const io::Scene::SpringSource* springSource(const io::Scene& scene, int index) {
  const io::Scene::SpringSource* found = nullptr;
  for (const io::Scene::SpringSource& s : scene.spring_sources) {
    if (s.first_spring <= index) found = &s;
  }
  return found;
}

int storedSpring(const Model& model, int input_index) {
  for (int s = 0; s < model.num_springs; ++s) {
    if (model.spring_input_index[s] == input_index) return s;
  }
  return -1;
}

int robotLine(const io::Scene& scene) { return scene.robot ? scene.robot->line : 0; }

std::string at(const io::Scene& scene, int line) {
  return line > 0 ? scene.path + ":" + std::to_string(line) : scene.path;
}

// What the element is and which of its attributes sets the step, without
// its line (the caller puts the line first in a refusal, inside otherwise).
std::string elementWords(const io::Scene& scene, const StepLimit& l, int* line) {
  const Model& m = scene.model;
  const bool damper = l.dampingDominates();
  switch (l.kind) {
    case StepLimit::Kind::kSpring: {
      const io::Scene::SpringSource* source = springSource(scene, l.index);
      *line = source ? source->line : 0;
      const int s = storedSpring(m, l.index);
      const std::string what = source && source->tag != "spring"
                                   ? "spring " + std::to_string(l.index - source->first_spring) + " of the <" +
                                         source->tag + ">"
                                   : std::string("the <spring>");
      return what + (s >= 0 ? format(" (stiffness %.4g N/m, damping %.4g N s/m)", m.spring_stiffness[s],
                                     m.spring_damping[s])
                            : std::string()) +
             (damper ? ", its damping setting the bound," : "");
    }
    case StepLimit::Kind::kGround: {
      *line = scene.ground_line;
      std::string on;
      if (l.index >= 0 && l.index < static_cast<int>(m.body_name.size())) on = " on body '" + m.body_name[l.index] + "'";
      return "the <ground>'s " + std::string(damper ? "damping" : "stiffness") +
             format(" (stiffness %.4g N/m, damping %.4g N s/m)", m.ground.stiffness, m.ground.damping) + on;
    }
    case StepLimit::Kind::kConstraints:
      *line = robotLine(scene);
      return format("the <robot>'s constraint_frequency (%.4g rad/s: the hinges' constraint stabilisation)",
                    m.hinge_constraint_frequency);
    case StepLimit::Kind::kJointLimit:
      *line = robotLine(scene);
      return "the <robot>'s joint limits " +
             format("(limit_stiffness %.4g N m/rad, limit_damping %.4g N m s/rad)", m.hinge_limit_stiffness,
                    m.hinge_limit_damping) +
             " on joint '" + m.hinge_name[l.index] + "'" + (damper ? ", their damping setting the bound," : "");
    case StepLimit::Kind::kLinkSprings:
      *line = robotLine(scene);
      return "body '" + (l.index < static_cast<int>(m.body_name.size()) ? m.body_name[l.index] : std::string("?")) +
             "' on its link springs (the <robot>'s link_frequency)";
  }
  return "";
}

// With the lower bound's share where omega is an upper bound: a refusal
// rests on that one.
std::string numbers(const StepLimit& l, double dt) {
  return format("omega dt = %.3g at dt = %.3g s", l.omega * dt, dt) +
         format(" against its bound %.3g (explicit integrators need omega dt below it)", l.bound) +
         (l.certain_share < 1.0
              ? format("; on the whole robot locked into one body, %.3g of the bound", l.certainFraction(dt))
              : std::string());
}

}  // namespace

std::optional<StepLimit> fastestStepLimit(const io::Scene& scene) {
  const std::vector<StepLimit> limits = stepLimits(scene.model);
  if (limits.empty()) return std::nullopt;
  // By the share that is certain: the ground on one ankle body alone is
  // several times its rate on the robot (JVRC-1 at 1 ms: 2.6 of its bound
  // on the foot alone, and it stands), so it would take the blame from the
  // coupled servos that did diverge.
  return *std::max_element(limits.begin(), limits.end(), [](const StepLimit& a, const StepLimit& b) {
    return a.certain_share * a.omega / a.bound < b.certain_share * b.omega / b.bound;
  });
}

std::string describeStepLimit(const io::Scene& scene, const StepLimit& limit, double dt) {
  int line = 0;
  const std::string what = elementWords(scene, limit, &line);
  return what + " (" + at(scene, line) + ") has " + numbers(limit, dt);
}

void checkStepLimits(const io::Scene& scene, const io::SimulationSettings& sim, const std::string& scene_path,
                     std::vector<std::string>* warnings) {
  for (const StepLimit& l : stepLimits(scene.model)) {
    const double fraction = l.fraction(sim.dt);
    // Refused only where the bound is passed for certain (the ground's lower
    // bound, the constraints' exact rate); the springs' and the joint
    // limits' are upper bounds (Gershgorin's; the joint's least inertia),
    // so past them is a warning.
    const bool refused = l.certainFraction(sim.dt) >= 1.0 &&
                         (l.kind == StepLimit::Kind::kGround || l.kind == StepLimit::Kind::kConstraints);
    // Warned of when near the bound by an estimate that can be trusted that
    // far: the springs as before this check named them (omega dt > 1, their
    // Gershgorin bound is up to sqrt 2 high), the ground by its lower bound
    // at half the bound, the constraints' exact rate at three quarters (the
    // shipped robots run at 0.6 of it), a joint limit's upper bound past it.
    bool near = false;
    switch (l.kind) {
      case StepLimit::Kind::kSpring: near = l.omega * sim.dt > 1.0; break;
      case StepLimit::Kind::kGround: near = l.certainFraction(sim.dt) >= 0.5; break;
      case StepLimit::Kind::kConstraints: near = fraction >= 0.75; break;
      case StepLimit::Kind::kJointLimit: near = fraction >= 1.0; break;
      case StepLimit::Kind::kLinkSprings: break;  // refused or warned of by their own checks
    }
    if (!refused && !(near && warnings)) continue;
    int line = 0;
    const std::string what = elementWords(scene, l, &line);
    // The step that keeps it at half its bound, and what else to change.
    const std::string remedy =
        format("; take dt below %.3g s", 0.5 * l.bound / l.omega) +
        (l.dampingDominates() ? " or less damping" : l.kind == StepLimit::Kind::kSpring ? " or softer springs" : " or a lower value");
    if (refused) {
      throw io::SceneError(scene_path + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + what +
                           " has " + numbers(l, sim.dt) +
                           ": the run would diverge" + remedy);
    }
    warnings->push_back(what + " (" + scene_path + (line > 0 ? ":" + std::to_string(line) : std::string()) +
                        ") has " + numbers(l, sim.dt) +
                        format(", %.2f of it", fraction) + remedy);
  }
}

}  // namespace suitsim::experiment
