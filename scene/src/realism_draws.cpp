// What the scene's <realism> (docs/realism.md) does to the truth: the suit
// as worn (via points, straps, hysteresis, capstan friction), the gear
// trains (losses, windings, compliance) and the causal sensor chain
// (filters, timing, bias walks, force-sensor calibration). Every draw comes
// from a named RandomStream (core/random.h), so it is the same on any
// standard library and in every trial that shares the hardware.
#include "robot_reading.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "suitsim/core/random.h"

namespace suitsim::io {

void drawBandRealism(RobotReading& in) {
  SceneRobot& setup = in.setup;
  const Realism& realism = in.realism;
  // The suit as worn (docs/realism.md): each via point moved by a random
  // vector of RMS length via_point_offset, drawn per band name and via
  // point so that a band sits the same in every trial that wears it.
  for (RobotBand& band : setup.bands) {
    // Compliant attachments (docs/realism.md): the straps at the band's two
    // ends, each departing from the nominal by a spread drawn per band (so
    // that a band sits the same in every trial that wears it); the band
    // feels their series, 2 / k_a = 1 / k_1 + 1 / k_2.
    band.attachment_stiffness = realism.attachment_stiffness;
    if (realism.attachment_stiffness > 0.0 && realism.attachment_spread > 0.0) {
      RandomStream rng({static_cast<std::uint64_t>(realism.seed), std::uint64_t{0x7374726170ull}, nameHash64(band.name)});
      const double k1 = realism.attachment_stiffness * std::max(0.5, 1.0 + realism.attachment_spread * rng.normal());
      const double k2 = realism.attachment_stiffness * std::max(0.5, 1.0 + realism.attachment_spread * rng.normal());
      band.attachment_stiffness = 2.0 / (1.0 / k1 + 1.0 / k2);
    }
    // Hysteresis (docs/realism.md): a Maxwell arm in the band's material.
    band.relaxing_stiffness = realism.hysteresis_fraction * band.stiffness;
    band.relaxation_time = realism.hysteresis_relaxation_time;
    // Capstan friction (docs/realism.md): the band over the body at its via points.
    band.capstan_friction = realism.capstan_friction;
    setup.band_designed_points.push_back(band.points);
    if (!(realism.via_point_offset > 0.0)) continue;
    RandomStream rng({static_cast<std::uint64_t>(realism.seed), nameHash64(band.name)});
    const double sigma = realism.via_point_offset / std::sqrt(3.0);  // per axis
    for (Vec3& p : band.points) {
      for (double& x : p) x += sigma * rng.normal();
    }
  }

}

void drawJointRealism(RobotReading& in) {
  const ElementReader& r = in.r;
  RobotDescription& robot = in.setup.truth;
  const TrialSpec& trial = in.trial;
  const Realism& realism = in.realism;
  // The gear trains (docs/realism.md): every joint of the truth; the
  // a-priori set was copied before and keeps ideal gears.
  for (RobotJoint& joint : robot.joints) {
    joint.actuation.gear_efficiency = realism.gear_efficiency;
    joint.actuation.backdrive_efficiency = realism.backdrive_efficiency;
    joint.actuation.gear_transition_velocity = realism.gear_transition_velocity;
  }
  // The windings' heating (docs/realism.md): km from the rise the winding
  // would reach holding the joint's effort limit, R_th = 1 K/W; the rise at
  // the trial's start drawn per trial and joint.
  if (realism.heating_rise_at_effort > 0.0) {
    for (RobotJoint& joint : robot.joints) {
      if (!joint.mimic.joint.empty() || joint.type == JointType::kFixed) continue;  // no motor of its own
      if (!std::isfinite(joint.effort_limit)) {
        r.fail("<realism><motor_heating> needs every motorised joint's effort limit; joint '" + joint.name +
               "' has none (URDF <limit effort>)");
      }
      JointActuation& a = joint.actuation;
      a.thermal_resistance = 1.0;
      a.km = joint.effort_limit * std::sqrt(a.thermal_resistance / realism.heating_rise_at_effort);
      a.thermal_time_constant = realism.heating_time_constant;
      a.magnet_coefficient = realism.heating_magnet_coefficient;
      RandomStream rng({static_cast<std::uint64_t>(realism.seed), nameHash64(trial.name), nameHash64(joint.name)});
      a.initial_winding_rise = rng.uniform(0.0, realism.heating_initial_rise);
    }
  }

  // The gear trains' compliance (docs/realism.md): every motorised joint of
  // the truth; k from its effort limit, the damper from its rotor.
  if (realism.compliance_stiffness_per_effort > 0.0) {
    for (RobotJoint& joint : robot.joints) {
      if (!joint.mimic.joint.empty() || joint.type == JointType::kFixed) continue;  // no motor of its own
      if (!std::isfinite(joint.effort_limit) || !(joint.effort_limit > 0.0)) {
        r.fail("<realism><compliance> needs every motorised joint's effort limit; joint '" + joint.name +
               "' has none (URDF <limit effort>)");
      }
      JointActuation& a = joint.actuation;
      if (!(a.armature > 0.0)) {
        r.fail("<realism><compliance> needs every motorised joint's rotor inertia; joint '" + joint.name +
               "' has none (<actuation armature>): a compliant gear's rotor is a degree of freedom of its own");
      }
      // The datasheet's stiffness (the a-priori set's, below) and this
      // unit's: catalogues give typical values, each unit departs from them
      // by a relative spread drawn per joint.
      RandomStream rng({static_cast<std::uint64_t>(realism.seed), std::uint64_t{0x6765617273ull}, nameHash64(joint.name)});
      const double draw = rng.normal();
      a.gear_stiffness = realism.compliance_stiffness_per_effort * joint.effort_limit *
                         std::max(0.5, 1.0 + realism.compliance_spread * draw);
      a.gear_backlash = realism.compliance_backlash;
      a.gear_damping = 2.0 * realism.compliance_damping_ratio * std::sqrt(a.gear_stiffness * a.armature);
      a.encoder_on_motor = realism.compliance_encoder_on_motor;
    }
  }

}

void drawSensorChain(RobotReading& in) {
  const std::string& scene_path = in.scene_path;
  const tinyxml2::XMLElement* element = in.element;
  const ElementReader& r = in.r;
  SceneRobot& setup = in.setup;
  const Realism& realism = in.realism;
  // The causal sensor chain (docs/realism.md): the logger's filters, timing
  // and IMU bias walk, and each force sensor's calibration crosstalk drawn
  // per sensor name (the same hardware in every trial).
  if (realism.sensor_chain) {
    if (!setup.declared_sensors) r.fail("<realism><sensor_chain> needs the robot's <sensors>: there is no logger to make causal");
    SensorSpec& spec = *setup.declared_sensors;
    spec.chain.causal = true;
    spec.chain.imu_cutoff = realism.chain_imu_cutoff;
    spec.chain.force_cutoff = realism.chain_force_cutoff;
    spec.chain.current_cutoff = realism.chain_current_cutoff;
    spec.chain.jitter = realism.chain_jitter;
    spec.chain.gyro_bias_walk = realism.chain_gyro_bias_walk;
    spec.chain.accel_bias_walk = realism.chain_accel_bias_walk;
    // The filters run at the run's step (--dt included): its Nyquist bound.
    const double nyquist = 0.45 / in.simulation.dt;
    for (const auto& [name, cutoff] : {std::pair<const char*, double>{"imu_cutoff", spec.chain.imu_cutoff},
                                       {"force_cutoff", spec.chain.force_cutoff},
                                       {"current_cutoff", spec.chain.current_cutoff}}) {
      if (cutoff >= nyquist) {
        char message[200];
        std::snprintf(message, sizeof message,
                      "<realism><sensor_chain> %s %.9g Hz must be below 0.45 / dt = %.9g Hz: the filter runs at the "
                      "simulation's step",
                      name, cutoff, nyquist);
        checkedReader(scene_path, element->FirstChildElement("sensors")).fail(message);
      }
    }
    for (ForceSensorSpec& fs : spec.force_sensors) {
      RandomStream rng(streamSeed(realism.seed, "crosstalk." + fs.name));
      const auto unit = [](RandomStream& stream) { return stream.normal(); };
      for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 6; ++j) {
          // Forces couple into forces and moments into moments; the
          // diagonal is each axis's gain (below).
          if (i != j && (i < 3) == (j < 3)) fs.crosstalk[static_cast<std::size_t>(6 * i + j)] = realism.chain_force_crosstalk * unit(rng);
        }
      }
      // The gains, drawn after the crosstalk so that a gain error leaves
      // the crosstalk's draws as they were.
      if (realism.chain_force_gain > 0.0) {
        for (int i = 0; i < 6; ++i) fs.crosstalk[static_cast<std::size_t>(7 * i)] = 1.0 + realism.chain_force_gain * unit(rng);
      }
    }
  }
}

}  // namespace suitsim::io
