// Reading a simulated robot back from its particles: joint angles and
// rates, what the encoders read, and the bodies' poses and velocities
// (bodies.cpp, hinges' geometry). The compile that makes the robot is
// articulated.h.
#pragma once

#include <array>
#include <string>

#include "suitsim/core/vec3.h"
#include "suitsim/model.h"
#include "suitsim/state.h"

namespace suitsim {

/// Joint angle of hinge h (rad): the turn from the parent's arm to the child's
/// about the parent-carried axis; 0 in the pose the robot was compiled at
/// with all joint angles zero. Continuous (not wrapped to (-pi, pi]): the
/// geometric angle moved by the multiple of 2 pi nearest to the tracked
/// State::hinge_angle, so it reads on past +-pi.
double jointAngle(const Model& model, const State& state, int hinge);
/// Joint rate (rad/s).
double jointVelocity(const Model& model, const State& state, int hinge);
/// What the joint's encoder reads (rad): the joint angle, or, with the
/// encoder on the motor of a compliant gear (JointActuation::encoder_on_motor),
/// the rotor's angle over the gear ratio, which differs from the joint's by
/// the gear's twist and backlash.
double encoderAngle(const Model& model, const State& state, int hinge);
/// Its rate (rad/s), from the same side of the gear.
double encoderVelocity(const Model& model, const State& state, int hinge);
/// Hinge index by joint name, or -1.
int findHinge(const Model& model, const std::string& name);
/// Body index by name, or -1.
int findBody(const Model& model, const std::string& name);

/// A rigid pose: world-from-body rotation (row-major 3 x 3) and origin (m).
struct Pose {
  std::array<double, 9> R{1, 0, 0, 0, 1, 0, 0, 0, 1};
  Vec3 p{0.0, 0.0, 0.0};
  Vec3 apply(const Vec3& x) const {
    return {R[0] * x[0] + R[1] * x[1] + R[2] * x[2] + p[0], R[3] * x[0] + R[4] * x[1] + R[5] * x[2] + p[1],
            R[6] * x[0] + R[7] * x[1] + R[8] * x[2] + p[2]};
  }
};

/// The body's pose that best fits its particles (mass-weighted least
/// squares over rotations: the polar factor of the cross-covariance).
Pose bodyPose(const Model& model, const State& state, int body);
/// Velocity of the body's centre of mass and its angular velocity (world
/// axes), the rigid motion that best fits the particle velocities.
void bodyVelocity(const Model& model, const State& state, int body, Vec3* v_com, Vec3* omega);

}  // namespace suitsim
