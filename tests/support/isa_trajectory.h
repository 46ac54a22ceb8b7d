// A run through every engine function cloned per CPU (engine/src/isa_clones.h):
// the floating humanoid-like tree of robots.h with rotors on half its joints
// (the angle row as the rotor's), joint friction that holds and gives way
// (the stick row, repeated solves), viscous friction, motor currents that
// reverse, each integrator in turn; then a cloth of two spring tiles with
// varied parameters and irregular springs besides (the spring kernel, one
// per CPU too: its fused blocks, gathered and run loads, the scalar tail). Shared by the baseline program
// (isa_baseline_main.cpp, linked to the engine built without clones) and the
// test that compares it with the engine as built (isa_clones_test.cpp).
#pragma once

#include <random>
#include <vector>

#include "robots.h"
#include "spring_networks.h"
#include "suitsim/articulated.h"
#include "suitsim/builder.h"
#include "suitsim/state.h"
#include "suitsim/step.h"

namespace suitsim::testing {

/// Every particle's position and velocity after 60 steps of each
/// integrator on a cloth of 70 x 60 particles (two of the kernel's tiles)
/// with springs of varied stiffness and damping, 301 irregular springs
/// besides, every particle given a random velocity.
inline void appendClothTrajectory(std::vector<double>& out) {
  ModelBuilder builder;
  builder.setGravity({0.0, 0.0, -9.81});
  addVariedCloth(builder, "cloth", {0.0, 0.0, 0.0}, 70, 60, 0.01, 100.0, 0.01);
  addRandomSprings(builder, 301, 5, 20.0, 0.02);
  const Model model = builder.build();
  for (Integrator integrator : {Integrator::kVelocityVerlet, Integrator::kRk4, Integrator::kSemiImplicitEuler}) {
    State state = makeState(model);
    std::mt19937 velocities(9);
    for (int i = 0; i < model.num_particles; ++i) {
      const double v[3] = {(velocities() % 2001) * 1e-3 - 1.0, (velocities() % 2001) * 1e-3 - 1.0,
                           (velocities() % 2001) * 1e-3 - 1.0};
      state.velocity.set(i, {v[0], v[1], v[2]});
    }
    Workspace ws(model);
    for (int k = 0; k < 60; ++k) step(model, state, ws, integrator, 1e-4);
    for (int i = 0; i < model.num_particles; ++i) {
      for (const Vec3Array* a : {&state.position, &state.velocity}) {
        out.push_back(a->x[i]);
        out.push_back(a->y[i]);
        out.push_back(a->z[i]);
      }
    }
  }
}

/// Every particle's position and velocity, and every joint's angle and
/// rate, after each integrator's run, in one array.
inline std::vector<double> isaTrajectory() {
  RobotDescription robot = floatingHumanoid();
  for (std::size_t j = 0; j < robot.joints.size(); ++j) {
    JointActuation& a = robot.joints[j].actuation;
    a.armature = j % 2 == 0 ? 0.05 : 0.0;
    a.viscous = 0.02;
    a.coulomb = 0.03;
    a.static_max = 0.05;
  }
  ModelBuilder builder;
  builder.setGravity({0.0, 0.0, -9.81});
  addRobot(builder, robot, {}, {}, {});
  const Model model = builder.build();
  std::vector<double> out;
  for (Integrator integrator : {Integrator::kVelocityVerlet, Integrator::kPositionVerlet, Integrator::kRk4,
                                Integrator::kSemiImplicitEuler}) {
    State state = makeState(model);
    Workspace ws(model);
    for (int k = 0; k < 400; ++k) {
      for (int h = 0; h < model.num_hinges; ++h) {
        state.hinge_current[h] = ((k / 40 + h) % 3 - 1) * (0.5 + 0.1 * h);
      }
      step(model, state, ws, integrator, 2e-4);
    }
    for (int i = 0; i < model.num_particles; ++i) {
      for (const Vec3Array* a : {&state.position, &state.velocity}) {
        out.push_back(a->x[i]);
        out.push_back(a->y[i]);
        out.push_back(a->z[i]);
      }
    }
    for (int h = 0; h < model.num_hinges; ++h) {
      out.push_back(jointAngle(model, state, h));
      out.push_back(jointVelocity(model, state, h));
    }
  }
  appendClothTrajectory(out);
  return out;
}

}  // namespace suitsim::testing
