// The error sources of a real evaluation as one switchboard
// (docs/realism.md): which are on, the `realistic` preset, and a <realism>
// element written back out for the scenes `suitsim budget` runs.
#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "suitsim/scene/scene.h"
#include "suitsim/core/number_text.h"

namespace suitsim::io {

namespace {

bool isOn(const Realism& r, const std::string& source) {
  if (source == "via_points") return r.via_point_offset > 0.0;
  if (source == "gear") return r.gear_efficiency < 1.0 || r.backdrive_efficiency < 1.0;
  if (source == "motor_heating") return r.heating_rise_at_effort > 0.0;
  if (source == "sensor_chain") return r.sensor_chain;
  if (source == "attachments") return r.attachment_stiffness > 0.0;
  if (source == "hysteresis") return r.hysteresis_fraction > 0.0;
  if (source == "compliance") return r.compliance_stiffness_per_effort > 0.0;
  if (source == "capstan") return r.capstan_friction > 0.0;
  return false;
}

bool known(const std::string& source) {
  return std::find_if(std::begin(kRealismSources), std::end(kRealismSources),
                      [&](const char* s) { return source == s; }) != std::end(kRealismSources);
}

}  // namespace

std::vector<std::string> Realism::activeSources() const {
  std::vector<std::string> on;
  for (const char* s : kRealismSources) {
    if (isOn(*this, s)) on.emplace_back(s);
  }
  return on;
}

Realism realisticPreset() {
  Realism r;
  r.preset = "realistic";
  // A fabric suit is put on to about half a centimetre: its bands sink into
  // a soft cover or slide over it by a few millimetres (docs/realism.md:
  // 2 and 5 mm measured).
  r.via_point_offset = 0.005;
  // Harmonic drives near rated load: 70-85 % driving in their makers'
  // efficiency curves, less when backdriven (the link must overcome the
  // losses too).
  r.gear_efficiency = 0.8;
  r.backdrive_efficiency = 0.7;
  // Servo motors are rated so that their continuous torque brings the
  // winding to its insulation limit, about 100 K above a 25 C ambient; a
  // URDF's effort limit is usually that rating. A small motor's winding
  // settles in tens of seconds; NdFeB loses 0.12 %/K of its remanence. A
  // session whose trials follow at their own pace starts each one up to
  // 10 K warmer or cooler than the others.
  r.heating_rise_at_effort = 100.0;
  r.heating_time_constant = 30.0;
  r.heating_magnet_coefficient = -0.0012;
  r.heating_initial_rise = 10.0;
  // A logger's channels pass their anti-alias filters: a MEMS IMU's own
  // digital low-pass set for a 200 Hz output is about 40 Hz (42 Hz in
  // InvenSense's tables, 4.8 ms of delay), and an analogue anti-alias
  // filter is commonly put at a quarter of the sample rate (50 Hz at
  // 200 Hz). A soft real-time logging loop reads its devices 0.1 ms early
  // or late. Industrial MEMS gyros' biases wander by about 1e-4 rad/s and
  // accelerometers' by about 1e-3 m/s^2 (100 ug) over tens of seconds. A
  // six-axis sensor's calibration leaves about 1 % coupling between axes
  // (makers quote 1-2 % of full scale).
  r.sensor_chain = true;
  r.chain_imu_cutoff = 42.0;
  r.chain_force_cutoff = 50.0;
  r.chain_current_cutoff = 50.0;
  r.chain_jitter = 1e-4;
  r.chain_gyro_bias_walk = 3e-5;
  r.chain_accel_bias_walk = 2e-4;
  r.chain_force_crosstalk = 0.01;
  // Its gains: calibration certificates state about 0.5 % per axis.
  r.chain_force_gain = 0.005;
  // A band's end is sewn to a strap of webbing a few centimetres long that
  // presses into the cover under it: together they give way by about a
  // millimetre per 10 N.
  r.attachment_stiffness = 10000.0;
  // No two straps sit alike: how deep each presses into the cover and how
  // much webbing lies free differ from end to end. 20 % is our assumption
  // (no survey of worn suits gives it).
  r.attachment_spread = 0.2;
  // Knitted elastic and rubber bands relax: held stretched, they lose some
  // 10-20 % of their pull within seconds and more over minutes, and a
  // cyclic tensile test traces a loop whose area is a fifth to a third of
  // the work put in. One Maxwell arm of 0.15 k with a 1 s time constant
  // gives both on the seconds scale of a trial's motions (a loss of about
  // 0.44 of the peak stored energy per cycle where w tau = 1).
  r.hysteresis_fraction = 0.15;
  r.hysteresis_relaxation_time = 1.0;
  // Harmonic drives twist under load: their makers' catalogues give a
  // torsional stiffness of about 100 (lightly loaded) to 250 (near rated
  // load) N m/rad per N m of repeated peak torque across their sizes, a URDF's
  // effort limit being usually that peak; 150 sits in the loaded range a
  // standing robot works in. Their lost motion is about an arc minute
  // (3e-4 rad). The flexspline and the motor's bearings damp the mode by a
  // few to ten per cent of critical. HRP-class robots read their joints
  // with incremental encoders on the motors.
  r.compliance_stiffness_per_effort = 150.0;
  r.compliance_backlash = 3e-4;
  r.compliance_damping_ratio = 0.1;
  r.compliance_encoder_on_motor = true;
  // Catalogues give typical stiffnesses; we take each unit within about
  // 10 % of its datasheet (an assumption: makers do not state a tolerance).
  r.compliance_spread = 0.1;
  // A knitted elastic band slides over a knitted or woven cover where it
  // turns at a via point: textile-on-textile kinetic friction coefficients
  // lie about 0.2-0.5 (cotton and polyester knits on each other, dry), and
  // fabric on skin about 0.3-0.5. 0.3 is the middle of the fabric-on-fabric
  // range; a band turning through 0.5 rad then holds a tension ratio of
  // exp(0.15) = 1.16 across the turn.
  r.capstan_friction = 0.3;
  return r;
}

Realism keepSources(const Realism& r, const std::vector<std::string>& sources) {
  for (const std::string& s : sources) {
    if (!known(s)) {
      std::string names;
      for (const char* k : kRealismSources) names += std::string(names.empty() ? "" : ", ") + k;
      throw std::invalid_argument("'" + s + "' is not a source (" + names + ", or all or none)");
    }
    if (!isOn(r, s)) throw std::invalid_argument("source '" + s + "' has no magnitude: give its element or a preset");
  }
  const auto kept = [&](const char* s) { return std::find(sources.begin(), sources.end(), s) != sources.end(); };
  const Realism ideal;
  Realism out = r;
  if (!kept("via_points")) out.via_point_offset = ideal.via_point_offset;
  if (!kept("gear")) {
    out.gear_efficiency = ideal.gear_efficiency;
    out.backdrive_efficiency = ideal.backdrive_efficiency;
    out.gear_transition_velocity = ideal.gear_transition_velocity;
  }
  if (!kept("motor_heating")) {
    out.heating_rise_at_effort = ideal.heating_rise_at_effort;
    out.heating_time_constant = ideal.heating_time_constant;
    out.heating_magnet_coefficient = ideal.heating_magnet_coefficient;
    out.heating_initial_rise = ideal.heating_initial_rise;
  }
  if (!kept("sensor_chain")) {
    out.sensor_chain = ideal.sensor_chain;
    out.chain_imu_cutoff = ideal.chain_imu_cutoff;
    out.chain_force_cutoff = ideal.chain_force_cutoff;
    out.chain_current_cutoff = ideal.chain_current_cutoff;
    out.chain_jitter = ideal.chain_jitter;
    out.chain_gyro_bias_walk = ideal.chain_gyro_bias_walk;
    out.chain_accel_bias_walk = ideal.chain_accel_bias_walk;
    out.chain_force_crosstalk = ideal.chain_force_crosstalk;
    out.chain_force_gain = ideal.chain_force_gain;
  }
  if (!kept("attachments")) {
    out.attachment_stiffness = ideal.attachment_stiffness;
    out.attachment_spread = ideal.attachment_spread;
  }
  if (!kept("hysteresis")) {
    out.hysteresis_fraction = ideal.hysteresis_fraction;
    out.hysteresis_relaxation_time = ideal.hysteresis_relaxation_time;
  }
  if (!kept("compliance")) {
    out.compliance_stiffness_per_effort = ideal.compliance_stiffness_per_effort;
    out.compliance_backlash = ideal.compliance_backlash;
    out.compliance_damping_ratio = ideal.compliance_damping_ratio;
    out.compliance_encoder_on_motor = ideal.compliance_encoder_on_motor;
    out.compliance_spread = ideal.compliance_spread;
  }
  if (!kept("capstan")) out.capstan_friction = ideal.capstan_friction;
  return out;
}

std::string realismXml(const Realism& r) {
  std::string xml = "<realism seed=\"" + std::to_string(r.seed) + "\">\n";
  if (isOn(r, "via_points")) xml += "    <via_points offset=\"" + significantText(r.via_point_offset, 10) + "\"/>\n";
  if (isOn(r, "gear")) {
    xml += "    <gear efficiency=\"" + significantText(r.gear_efficiency, 10) + "\" backdrive_efficiency=\"" +
           significantText(r.backdrive_efficiency, 10) + "\" transition_velocity=\"" + significantText(r.gear_transition_velocity, 10) + "\"/>\n";
  }
  if (isOn(r, "motor_heating")) {
    xml += "    <motor_heating rise_at_effort=\"" + significantText(r.heating_rise_at_effort, 10) + "\" time_constant=\"" +
           significantText(r.heating_time_constant, 10) + "\" magnet_coefficient=\"" + significantText(r.heating_magnet_coefficient, 10) +
           "\" initial_rise=\"" + significantText(r.heating_initial_rise, 10) + "\"/>\n";
  }
  if (isOn(r, "sensor_chain")) {
    xml += "    <sensor_chain imu_cutoff=\"" + significantText(r.chain_imu_cutoff, 10) + "\" force_cutoff=\"" +
           significantText(r.chain_force_cutoff, 10) + "\" current_cutoff=\"" + significantText(r.chain_current_cutoff, 10) + "\" jitter=\"" +
           significantText(r.chain_jitter, 10) + "\" gyro_bias_walk=\"" + significantText(r.chain_gyro_bias_walk, 10) +
           "\" accel_bias_walk=\"" + significantText(r.chain_accel_bias_walk, 10) + "\" force_crosstalk=\"" +
           significantText(r.chain_force_crosstalk, 10) + "\" force_gain=\"" + significantText(r.chain_force_gain, 10) + "\"/>\n";
  }
  if (isOn(r, "attachments")) {
    xml += "    <attachments stiffness=\"" + significantText(r.attachment_stiffness, 10) + "\" spread=\"" +
           significantText(r.attachment_spread, 10) + "\"/>\n";
  }
  if (isOn(r, "hysteresis")) {
    xml += "    <hysteresis relaxing_fraction=\"" + significantText(r.hysteresis_fraction, 10) + "\" relaxation_time=\"" +
           significantText(r.hysteresis_relaxation_time, 10) + "\"/>\n";
  }
  if (isOn(r, "compliance")) {
    xml += "    <compliance stiffness_per_effort=\"" + significantText(r.compliance_stiffness_per_effort, 10) + "\" backlash=\"" +
           significantText(r.compliance_backlash, 10) + "\" damping_ratio=\"" + significantText(r.compliance_damping_ratio, 10) +
           "\" spread=\"" + significantText(r.compliance_spread, 10) + "\" encoder=\"" +
           (r.compliance_encoder_on_motor ? "motor" : "link") + "\"/>\n";
  }
  if (isOn(r, "capstan")) xml += "    <capstan friction=\"" + significantText(r.capstan_friction, 10) + "\"/>\n";
  return xml + "  </realism>";
}

}  // namespace suitsim::io
