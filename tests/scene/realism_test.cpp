// <realism> (docs/realism.md): the suit as worn. The truth's band via points
// move by the declared RMS offset, reproducibly, the same in every trial
// that wears the band, and the evaluator's inputs keep the design.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "suitsim/eval/load_inputs.h"
#include "suitsim/scene/scene.h"
#include "suitsim/step.h"

namespace {

namespace fs = std::filesystem;
using suitsim::io::loadScene;
using suitsim::io::SceneError;

std::string source(const std::string& rel) { return std::string(SUITSIM_SOURCE_DIR) + "/" + rel; }

// The protocol with a <realism> element (and absolute model paths).
std::string protocolWith(const std::string& realism, const std::string& name) {
  std::ifstream in(source("scenes/jvrc1_protocol.xml"));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  for (std::size_t at = text.find("../models/"); at != std::string::npos; at = text.find("../models/", at)) {
    text.replace(at, 10, source("models/"));
  }
  text.insert(text.find("<simulation"), realism + "\n  ");
  const fs::path path = fs::path(::testing::TempDir()) / (name + ".xml");
  std::ofstream(path) << text;
  return path.string();
}

double rmsOffset(const suitsim::io::RobotSetup& robot, int* count) {
  double sum = 0.0;
  *count = 0;
  for (std::size_t b = 0; b < robot.bands.size(); ++b) {
    for (std::size_t j = 0; j < robot.bands[b].points.size(); ++j) {
      for (int k = 0; k < 3; ++k) {
        const double d = robot.bands[b].points[j][k] - robot.band_designed_points[b][j][k];
        sum += d * d;
      }
      ++*count;
    }
  }
  return std::sqrt(sum / *count);
}

TEST(Realism, ViaPointsSitTheirRmsOffsetAwayAndTheEvaluatorKeepsTheDesign) {
  const std::string plain = protocolWith("", "plain");
  const std::string worn = protocolWith(R"(<realism seed="3"><via_points offset="0.005"/></realism>)", "worn");
  const suitsim::io::Scene a = loadScene(plain, "bend_normal"), b = loadScene(worn, "bend_normal");
  ASSERT_TRUE(a.robot && b.robot);
  ASSERT_EQ(a.robot->bands.size(), b.robot->bands.size());
  // The design is the file's, and the plain scene wears it as designed.
  for (std::size_t k = 0; k < a.robot->bands.size(); ++k) {
    EXPECT_EQ(b.robot->band_designed_points[k], a.robot->bands[k].points);
    EXPECT_EQ(a.robot->band_designed_points[k], a.robot->bands[k].points);
  }
  int n = 0;
  const double rms = rmsOffset(*b.robot, &n);
  std::printf("[measured] %d via points, RMS offset %.4g m (declared 0.005)\n", n, rms);
  ASSERT_GE(n, 8);
  EXPECT_GT(rms, 0.6 * 0.005);
  EXPECT_LT(rms, 1.4 * 0.005);
  // Every point moved; the same band sits the same in another trial.
  const suitsim::io::Scene twist = loadScene(worn, "twist_normal");
  for (std::size_t k = 0; k < b.robot->bands.size(); ++k) {
    for (std::size_t j = 0; j < b.robot->bands[k].points.size(); ++j) {
      EXPECT_NE(b.robot->bands[k].points[j], b.robot->band_designed_points[k][j]);
    }
    EXPECT_EQ(twist.robot->bands[k].points, b.robot->bands[k].points) << b.robot->bands[k].name;
  }
  // Another seed, another fit of the suit.
  const suitsim::io::Scene other =
      loadScene(protocolWith(R"(<realism seed="4"><via_points offset="0.005"/></realism>)", "other"), "bend_normal");
  EXPECT_NE(other.robot->bands[0].points, b.robot->bands[0].points);
  // The evaluator's inputs: the design, whatever the truth wears.
  const suitsim::eval::EvaluationInputs in = suitsim::eval::loadEvaluationInputs(worn);
  bool found = false;
  for (const suitsim::eval::TrialInfo& t : in.trials) {
    if (t.name != "bend_normal") continue;
    found = true;
    ASSERT_EQ(t.bands.size(), a.robot->bands.size());
    for (std::size_t k = 0; k < t.bands.size(); ++k) {
      for (std::size_t j = 0; j < t.bands[k].points.size(); ++j) {
        for (int c = 0; c < 3; ++c) EXPECT_EQ(t.bands[k].points[j][c], a.robot->bands[k].points[j][c]);
      }
    }
  }
  EXPECT_TRUE(found);
}

TEST(Realism, BadRealismNamesTheLine) {
  const auto fails = [](const std::string& realism, const std::string& fragment) {
    try {
      loadScene(protocolWith(realism, "bad"), "bend_normal");
      ADD_FAILURE() << "accepted: " << realism;
    } catch (const SceneError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad.xml:"), std::string::npos) << e.what();
    }
  };
  fails(R"(<realism><via_points offset="-0.001"/></realism>)", "'offset'");
  fails(R"(<realism><backlash width="0.01"/></realism>)", "unknown element");
  fails(R"(<realism seed="-2"/>)", "'seed'");
  fails(R"(<realism><via_points/></realism>)", "missing required attribute 'offset'");
  fails(R"(<realism><gear efficiency="1.2" backdrive_efficiency="0.7"/></realism>)", "'efficiency'");
  fails(R"(<realism><gear efficiency="0.8" backdrive_efficiency="0"/></realism>)", "'backdrive_efficiency'");
  fails(R"(<realism><gear efficiency="0.8"/></realism>)", "missing required attribute 'backdrive_efficiency'");
  fails(R"(<realism><gear efficiency="0.8" backdrive_efficiency="0.7" transition_velocity="0"/></realism>)",
        "'transition_velocity'");
  fails(R"(<realism><motor_heating time_constant="30" magnet_coefficient="-0.0012"/></realism>)",
        "missing required attribute 'rise_at_effort'");
  fails(R"(<realism><motor_heating rise_at_effort="300" time_constant="30" magnet_coefficient="-0.0012"/></realism>)",
        "runs the winding away");
  fails(R"(<realism><motor_heating rise_at_effort="80" time_constant="0" magnet_coefficient="-0.0012"/></realism>)",
        "'time_constant'");
  fails(R"(<realism><motor_heating rise_at_effort="80" time_constant="30" magnet_coefficient="-0.5"/></realism>)",
        "'magnet_coefficient'");
  fails(R"(<realism><motor_heating rise_at_effort="80" time_constant="30" magnet_coefficient="-0.0012" initial_rise="-1"/></realism>)",
        "'initial_rise'");
  fails(R"(<realism><sensor_chain imu_cutoff="-42"/></realism>)", "'imu_cutoff'");
  fails(R"(<realism><attachments stiffness="0"/></realism>)", "'stiffness'");
  fails(R"(<realism><attachments/></realism>)", "missing required attribute 'stiffness'");
  fails(R"(<realism><attachments stiffness="8000" spread="0.6"/></realism>)", "'spread' must be at most 0.5");
  fails(R"(<realism><attachments stiffness="8000" spread="-0.1"/></realism>)", "'spread'");
  fails(R"(<realism><hysteresis relaxing_fraction="0" relaxation_time="1"/></realism>)", "'relaxing_fraction'");
  fails(R"(<realism><hysteresis relaxing_fraction="12" relaxation_time="1"/></realism>)", "must be at most 10");
  fails(R"(<realism><hysteresis relaxing_fraction="0.2" relaxation_time="-1"/></realism>)", "'relaxation_time'");
  fails(R"(<realism><hysteresis relaxing_fraction="0.2"/></realism>)", "missing required attribute 'relaxation_time'");
  fails(R"(<realism><compliance stiffness_per_effort="0"/></realism>)", "'stiffness_per_effort'");
  fails(R"(<realism><compliance/></realism>)", "missing required attribute 'stiffness_per_effort'");
  fails(R"(<realism><compliance stiffness_per_effort="150" backlash="0.2"/></realism>)", "must be below 0.1 rad");
  fails(R"(<realism><compliance stiffness_per_effort="150" backlash="-1e-4"/></realism>)", "'backlash'");
  fails(R"(<realism><compliance stiffness_per_effort="150" damping_ratio="2"/></realism>)", "must be at most 1");
  fails(R"(<realism><compliance stiffness_per_effort="150" encoder="rotor"/></realism>)", "must be motor or link");
  fails(R"(<realism><capstan friction="-0.1"/></realism>)", "<capstan> attribute 'friction' must be >= 0 (got '-0.1')");
  fails(R"(<realism><capstan friction="2.5"/></realism>)", "'friction' must be at most 2");
  fails(R"(<realism><capstan friction="inf"/></realism>)", "'friction'");
  fails(R"(<realism><capstan friction="nan"/></realism>)", "'friction'");
  fails(R"(<realism><capstan friction="slippery"/></realism>)", "'friction'");
  fails(R"(<realism><capstan/></realism>)", "missing required attribute 'friction'");
  fails(R"(<realism><capstan friction="0.3" wrap="1"/></realism>)", "'wrap'");
  fails(R"(<realism><sensor_chain jitter="-1e-4"/></realism>)", "'jitter'");
  fails(R"(<realism><sensor_chain force_crosstalk="0.3"/></realism>)", "'force_crosstalk'");
  fails(R"(<realism><sensor_chain force_gain="0.25"/></realism>)", "'force_gain'");
  fails(R"(<realism><sensor_chain force_gain="-0.01"/></realism>)", "'force_gain'");
  fails(R"(<realism><sensor_chain gyro_bias_walk="fast"/></realism>)", "'gyro_bias_walk'");
  // The filters run at the simulation's step (5e-4 s here): 900 Hz is past 0.45 / dt.
  fails(R"(<realism><sensor_chain current_cutoff="900"/></realism>)", "current_cutoff 900 Hz must be below 0.45 / dt");
}

// <attachments>: every band of the truth gets the straps, the model's band
// pulls with the series stiffness (and the series damping), and the band's
// own k, what the truth scores against, stays the design's.
TEST(Realism, AttachmentsPutStrapsInSeriesWithEveryBandOfTheTruth) {
  const suitsim::io::Scene plain = loadScene(protocolWith("", "straps_plain"), "bend_normal");
  const suitsim::io::Scene worn =
      loadScene(protocolWith(R"(<realism><attachments stiffness="8000"/></realism>)", "straps"), "bend_normal");
  ASSERT_FALSE(worn.robot->bands.empty());
  ASSERT_EQ(worn.model.num_bands, static_cast<int>(worn.robot->bands.size()));
  for (const suitsim::RobotBand& band : worn.robot->bands) {
    SCOPED_TRACE(band.name);
    const int b = worn.model.findBand(band.name);
    ASSERT_GE(b, 0);
    EXPECT_EQ(band.attachment_stiffness, 8000.0);
    EXPECT_EQ(band.stiffness, plain.model.band_stiffness[plain.model.findBand(band.name)]);  // the design's k
    const double k = band.stiffness, expected = 1.0 / (1.0 / k + 2.0 / 8000.0);
    EXPECT_NEAR(worn.model.band_stiffness[b], expected, 1e-12 * k);
    EXPECT_LT(worn.model.band_stiffness[b], 0.96 * k);
    const double r = 4000.0 / (k + 4000.0);
    EXPECT_NEAR(worn.model.band_damping[b], band.damping * r * r, 1e-12 * (1.0 + band.damping));
  }
  for (const suitsim::RobotBand& band : plain.robot->bands) EXPECT_EQ(band.attachment_stiffness, 0.0);
}

// <attachments spread>: each band's two straps depart from the nominal, drawn
// per band (the same in every trial that wears it, another draw for another
// seed); the band feels their series.
TEST(Realism, AttachmentSpreadDrawsEachBandsStrapsOnce) {
  const std::string body = R"(<realism seed="SEED"><attachments stiffness="8000" spread="0.2"/></realism>)";
  auto withSeed = [&](const char* seed) {
    std::string b = body;
    b.replace(b.find("SEED"), 4, seed);
    return b;
  };
  const suitsim::io::Scene bend = loadScene(protocolWith(withSeed("3"), "spread_bend"), "bend_normal");
  const suitsim::io::Scene twist = loadScene(protocolWith(withSeed("3"), "spread_twist"), "twist_normal");
  const suitsim::io::Scene other = loadScene(protocolWith(withSeed("4"), "spread_other"), "bend_normal");
  ASSERT_FALSE(bend.robot->bands.empty());
  double lowest = 1e300, highest = 0.0;
  for (std::size_t i = 0; i < bend.robot->bands.size(); ++i) {
    const suitsim::RobotBand& band = bend.robot->bands[i];
    SCOPED_TRACE(band.name);
    EXPECT_EQ(band.attachment_stiffness, twist.robot->bands[i].attachment_stiffness);
    EXPECT_NE(band.attachment_stiffness, other.robot->bands[i].attachment_stiffness);
    EXPECT_GE(band.attachment_stiffness, 0.5 * 8000.0);
    lowest = std::min(lowest, band.attachment_stiffness);
    highest = std::max(highest, band.attachment_stiffness);
    const int b = bend.model.findBand(band.name);
    const double k = band.stiffness;
    EXPECT_NEAR(bend.model.band_stiffness[b], 1.0 / (1.0 / k + 2.0 / band.attachment_stiffness), 1e-12 * k);
  }
  EXPECT_LT(lowest, highest);  // no two bands' straps alike
}

// <apriori attachment_stiffness>: the straps' tensile test reaches the
// evaluator's inputs, whatever the truth's straps are.
TEST(Realism, AprioriAttachmentStiffnessIsTheTensileTestsNeverTheTruths) {
  const std::string path = protocolWith(R"(<realism><attachments stiffness="6000" spread="0.2"/></realism>)", "tensile");
  const suitsim::io::Scene scene = loadScene(path, "bend_normal");
  EXPECT_EQ(scene.robot->apriori_attachment_stiffness, 10000.0);  // the protocol's <apriori>
  EXPECT_EQ(suitsim::eval::loadEvaluationInputs(path).attachment_stiffness, 10000.0);
}

// <hysteresis>: every band of the truth gains the Maxwell arm, a fraction of
// its own k; with straps as well, the worn arm (articulated.h); k itself,
// what the truth scores against, stays the design's.
TEST(Realism, HysteresisGivesEveryBandOfTheTruthAMaxwellArm) {
  const suitsim::io::Scene plain = loadScene(protocolWith("", "sls_plain"), "bend_normal");
  const suitsim::io::Scene sls = loadScene(
      protocolWith(R"(<realism><hysteresis relaxing_fraction="0.2" relaxation_time="0.8"/></realism>)", "sls"),
      "bend_normal");
  const suitsim::io::Scene both = loadScene(
      protocolWith(R"(<realism><hysteresis relaxing_fraction="0.2" relaxation_time="0.8"/>)"
                   R"(<attachments stiffness="8000"/></realism>)",
                   "sls_straps"),
      "bend_normal");
  ASSERT_FALSE(sls.robot->bands.empty());
  for (std::size_t i = 0; i < sls.robot->bands.size(); ++i) {
    const suitsim::RobotBand& band = sls.robot->bands[i];
    SCOPED_TRACE(band.name);
    const int b = sls.model.findBand(band.name);
    ASSERT_GE(b, 0);
    EXPECT_EQ(band.stiffness, plain.model.band_stiffness[plain.model.findBand(band.name)]);
    EXPECT_EQ(sls.model.band_stiffness[b], band.stiffness);
    EXPECT_NEAR(sls.model.band_relaxing_stiffness[b], 0.2 * band.stiffness, 1e-12 * band.stiffness);
    EXPECT_EQ(sls.model.band_relaxation_time[b], 0.8);
    const int bb = both.model.findBand(band.name);
    EXPECT_NEAR(both.model.band_relaxing_stiffness[bb], suitsim::wornRelaxingStiffness(both.robot->bands[i]), 1e-9);
    EXPECT_GT(both.model.band_relaxation_time[bb], 0.8);  // the straps slow the relaxation
    EXPECT_EQ(plain.model.band_relaxing_stiffness[plain.model.findBand(band.name)], 0.0);
  }
}

// <capstan>: every band of the truth rubs on the body at its via points
// with the coefficient given; 0 is the frictionless band (the source off),
// and k, what the truth scores against, stays the design's.
TEST(Realism, CapstanGivesEveryBandOfTheTruthFrictionAtItsViaPoints) {
  const suitsim::io::Scene plain = loadScene(protocolWith("", "capstan_plain"), "bend_normal");
  const suitsim::io::Scene rubbing =
      loadScene(protocolWith(R"(<realism><capstan friction="0.35"/></realism>)", "capstan"), "bend_normal");
  const suitsim::io::Scene zero =
      loadScene(protocolWith(R"(<realism><capstan friction="0"/></realism>)", "capstan_zero"), "bend_normal");
  ASSERT_FALSE(rubbing.robot->bands.empty());
  EXPECT_EQ(rubbing.realism.capstan_friction, 0.35);
  EXPECT_EQ(rubbing.realism.activeSources(), std::vector<std::string>{"capstan"});
  EXPECT_TRUE(zero.realism.activeSources().empty());
  for (const suitsim::RobotBand& band : rubbing.robot->bands) {
    SCOPED_TRACE(band.name);
    const int b = rubbing.model.findBand(band.name), p = plain.model.findBand(band.name);
    ASSERT_GE(b, 0);
    EXPECT_EQ(band.capstan_friction, 0.35);
    EXPECT_EQ(rubbing.model.band_capstan_friction[b], 0.35);
    EXPECT_EQ(rubbing.model.band_stiffness[b], plain.model.band_stiffness[p]);
    EXPECT_EQ(plain.model.band_capstan_friction[p], 0.0);
    EXPECT_EQ(zero.model.band_capstan_friction[zero.model.findBand(band.name)], 0.0);
  }
  // Friction 0 is the frictionless band bit for bit; 0.35 is not, once the
  // robot moves under gravity and stretches its bands.
  suitsim::State a = suitsim::makeState(plain.model), z = suitsim::makeState(zero.model),
                 f = suitsim::makeState(rubbing.model);
  suitsim::Workspace wa(plain.model, 1), wz(zero.model, 1), wf(rubbing.model, 1);
  for (int n = 0; n < 300; ++n) {
    suitsim::step(plain.model, a, wa, plain.simulation.integrator, plain.simulation.dt);
    suitsim::step(zero.model, z, wz, zero.simulation.integrator, zero.simulation.dt);
    suitsim::step(rubbing.model, f, wf, rubbing.simulation.integrator, rubbing.simulation.dt);
  }
  EXPECT_EQ(z.position.x, a.position.x);
  EXPECT_EQ(z.position.z, a.position.z);
  EXPECT_EQ(z.velocity.x, a.velocity.x);
  EXPECT_EQ(wz.band_segment_tension, wa.band_segment_tension);
  EXPECT_NE(f.band_material, a.band_material);
}

// <sensor_chain> makes the truth's logger causal and gives each force
// sensor a crosstalk matrix: forces couple into forces and moments into
// moments by about the declared RMS, the diagonal stays one, and the draw
// is the sensor's own (the same in every trial, another seed another).
TEST(Realism, SensorChainMakesTheLoggerCausalWithEachForceSensorsCrosstalk) {
  const std::string plain = protocolWith("", "chain_plain");
  const auto chain = [](int seed) {
    return "<realism seed=\"" + std::to_string(seed) +
           "\"><sensor_chain imu_cutoff=\"42\" force_cutoff=\"50\" jitter=\"1e-4\" force_crosstalk=\"0.02\"/></realism>";
  };
  const suitsim::io::Scene a = loadScene(plain, "bend_normal");
  const suitsim::io::Scene b = loadScene(protocolWith(chain(3), "chain3"), "bend_normal");
  const suitsim::io::Scene b2 = loadScene(protocolWith(chain(3), "chain3"), "twist_normal");
  const suitsim::io::Scene c = loadScene(protocolWith(chain(4), "chain4"), "bend_normal");
  const suitsim::SensorSpec& sa = *a.robot->sensors;
  const suitsim::SensorSpec& sb = *b.robot->sensors;
  EXPECT_FALSE(sa.chain.causal);
  EXPECT_TRUE(sb.chain.causal);
  EXPECT_EQ(sb.chain.imu_cutoff, 42.0);
  EXPECT_EQ(sb.chain.force_cutoff, 50.0);
  EXPECT_EQ(sb.chain.current_cutoff, 0.0);  // absent: no filter
  EXPECT_EQ(sb.chain.jitter, 1e-4);
  ASSERT_FALSE(sb.force_sensors.empty());
  double sum = 0.0;
  int count = 0;
  for (std::size_t s = 0; s < sb.force_sensors.size(); ++s) {
    const auto& C = sb.force_sensors[s].crosstalk;
    EXPECT_EQ(sa.force_sensors[s].crosstalk, suitsim::ForceSensorSpec::identity6());
    EXPECT_EQ(C, b2.robot->sensors->force_sensors[s].crosstalk);      // the same hardware in every trial
    EXPECT_NE(C, c.robot->sensors->force_sensors[s].crosstalk);       // another seed, another calibration
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 6; ++j) {
        const double v = C[static_cast<std::size_t>(6 * i + j)];
        if (i == j) EXPECT_EQ(v, 1.0);
        else if ((i < 3) != (j < 3)) EXPECT_EQ(v, 0.0);
        else {
          sum += v * v;
          ++count;
        }
      }
    }
  }
  EXPECT_EQ(count, 12 * static_cast<int>(sb.force_sensors.size()));
  const double rms = std::sqrt(sum / count);
  EXPECT_GT(rms, 0.01);
  EXPECT_LT(rms, 0.035);
}

// force_gain: each axis's gain departs from 1 by about the declared RMS,
// drawn after the crosstalk, so the off-diagonal terms stay as they were.
TEST(Realism, SensorChainGainErrorsTouchOnlyTheDiagonal) {
  const suitsim::io::Scene b = loadScene(
      protocolWith(R"(<realism seed="3"><sensor_chain force_crosstalk="0.02"/></realism>)", "gain_off"), "bend_normal");
  const suitsim::io::Scene g = loadScene(
      protocolWith(R"(<realism seed="3"><sensor_chain force_crosstalk="0.02" force_gain="0.01"/></realism>)", "gain_on"),
      "bend_normal");
  const auto& without = b.robot->sensors->force_sensors;
  const auto& with = g.robot->sensors->force_sensors;
  ASSERT_EQ(without.size(), with.size());
  ASSERT_FALSE(with.empty());
  double sum = 0.0;
  int count = 0;
  for (std::size_t s = 0; s < with.size(); ++s) {
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 6; ++j) {
        const std::size_t k = static_cast<std::size_t>(6 * i + j);
        if (i != j) {
          EXPECT_EQ(with[s].crosstalk[k], without[s].crosstalk[k]);
          continue;
        }
        EXPECT_EQ(without[s].crosstalk[k], 1.0);
        EXPECT_NE(with[s].crosstalk[k], 1.0);
        sum += std::pow(with[s].crosstalk[k] - 1.0, 2);
        ++count;
      }
    }
  }
  const double rms = std::sqrt(sum / count);
  EXPECT_GT(rms, 0.004);
  EXPECT_LT(rms, 0.02);
}

// A joint without an effort limit cannot have its winding's heating
// derived: the scene is refused at the robot, naming the joint.
TEST(Realism, MotorHeatingNeedsEveryJointsEffortLimit) {
  const fs::path path = fs::path(::testing::TempDir()) / "no_effort.xml";
  std::ofstream(path) << R"(<scene name="no_effort">
  <realism><motor_heating rise_at_effort="80" time_constant="30" magnet_coefficient="-0.0012"/></realism>
  <simulation integrator="velocity_verlet" dt="1e-4" duration="0.1"/>
  <robot name="arm" base="fixed">
    <link name="base"/>
    <link name="upper" mass="1.2" com="0 0 -0.15" inertia="0.01 0.011 0.002 0 0 0"/>
    <joint name="shoulder" type="revolute" parent="base" child="upper" axis="0 1 0" lower="-2" upper="2"/>
  </robot>
</scene>
)";
  try {
    loadScene(path.string());
    ADD_FAILURE() << "accepted a joint without effort limit";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("no_effort.xml:4"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("joint 'shoulder' has none"), std::string::npos) << e.what();
  }
}

// <motor_heating> gives every motorised joint of the truth a winding whose
// steady rise at its effort limit is rise_at_effort (km = effort sqrt(R_th
// / rise), R_th = 1 K/W), starting each trial at its own rise below
// initial_rise; the a-priori set has none.
TEST(Realism, MotorHeatingReachesTheTruthWithItsOwnStartPerTrial) {
  const std::string path = protocolWith(
      R"(<realism seed="5"><motor_heating rise_at_effort="80" time_constant="30" magnet_coefficient="-0.0012" initial_rise="40"/></realism>)",
      "heating");
  const suitsim::io::Scene a = loadScene(path, "bend_normal"), b = loadScene(path, "twist_normal");
  ASSERT_TRUE(a.realism.any());
  int differ = 0, heated = 0;
  for (std::size_t j = 0; j < a.robot->truth.joints.size(); ++j) {
    const int h = a.robot->compiled.joint_hinge[j];
    if (h < 0) continue;
    ++heated;
    const suitsim::RobotJoint& joint = a.robot->truth.joints[j];
    ASSERT_TRUE(std::isfinite(joint.effort_limit)) << joint.name;
    const double km = a.model.hinge_km[h];
    // Holding the effort limit, the steady rise is effort^2 R_th / km^2.
    EXPECT_NEAR(joint.effort_limit * joint.effort_limit * a.model.hinge_thermal_resistance[h] / (km * km), 80.0, 1e-9);
    EXPECT_EQ(a.model.hinge_thermal_time_constant[h], 30.0);
    EXPECT_EQ(a.model.hinge_magnet_coefficient[h], -0.0012);
    EXPECT_GE(a.model.hinge_initial_winding_rise[h], 0.0);
    EXPECT_LE(a.model.hinge_initial_winding_rise[h], 40.0);
    differ += a.model.hinge_initial_winding_rise[h] != b.model.hinge_initial_winding_rise[h] ? 1 : 0;
  }
  EXPECT_EQ(heated, a.model.num_hinges);
  EXPECT_EQ(differ, heated);  // each trial starts from its own draw
  const suitsim::io::Scene again = loadScene(path, "bend_normal");
  EXPECT_EQ(again.model.hinge_initial_winding_rise, a.model.hinge_initial_winding_rise);  // reproducible
  for (const suitsim::RobotJoint& j : a.robot->apriori.joints) EXPECT_EQ(j.actuation.km, 0.0) << j.name;
}

// The gear trains of the truth lose what <gear> says; the a-priori set the
// evaluator starts from keeps ideal gears.
TEST(Realism, GearEfficiencyReachesEveryJointOfTheTruthOnly) {
  const suitsim::io::Scene scene = loadScene(
      protocolWith(R"(<realism><gear efficiency="0.75" backdrive_efficiency="0.6"/></realism>)", "gear"),
      "bend_normal");
  ASSERT_TRUE(scene.realism.any());
  ASSERT_GT(scene.model.num_hinges, 0);
  for (int h = 0; h < scene.model.num_hinges; ++h) {
    EXPECT_EQ(scene.model.hinge_gear_efficiency[h], 0.75);
    EXPECT_EQ(scene.model.hinge_backdrive_efficiency[h], 0.6);
  }
  for (const suitsim::RobotJoint& j : scene.robot->apriori.joints) {
    EXPECT_EQ(j.actuation.gear_efficiency, 1.0) << j.name;
    EXPECT_EQ(j.actuation.backdrive_efficiency, 1.0) << j.name;
  }
}

// <compliance> makes every motorised joint's gear of the truth compliant,
// k from its effort limit and the damper from its rotor; the a-priori set
// keeps rigid gears.
TEST(Realism, ComplianceReachesEveryMotorisedJointOfTheTruthOnly) {
  const suitsim::io::Scene scene = loadScene(
      protocolWith(R"(<realism><compliance stiffness_per_effort="150" backlash="3e-4" damping_ratio="0.1" encoder="motor"/></realism>)",
                   "compliance"),
      "bend_normal");
  ASSERT_TRUE(scene.realism.any());
  int compliant = 0;
  for (const suitsim::RobotJoint& j : scene.robot->truth.joints) {
    if (!j.mimic.joint.empty() || j.type == suitsim::JointType::kFixed) continue;
    EXPECT_EQ(j.actuation.gear_stiffness, 150.0 * j.effort_limit) << j.name;
    EXPECT_EQ(j.actuation.gear_backlash, 3e-4) << j.name;
    EXPECT_DOUBLE_EQ(j.actuation.gear_damping, 0.2 * std::sqrt(j.actuation.gear_stiffness * j.actuation.armature))
        << j.name;
    EXPECT_TRUE(j.actuation.encoder_on_motor) << j.name;
    ++compliant;
  }
  EXPECT_GT(compliant, 0);
  for (int h = 0; h < scene.model.num_hinges; ++h) EXPECT_GT(scene.model.hinge_gear_stiffness[h], 0.0);
  // The a-priori set has the datasheet's stiffness (<apriori
  // gear_stiffness_per_effort="150"> in the protocol), never a unit's.
  for (const suitsim::RobotJoint& j : scene.robot->apriori.joints) {
    if (!j.mimic.joint.empty() || j.type == suitsim::JointType::kFixed) continue;
    EXPECT_EQ(j.actuation.gear_stiffness, 150.0 * j.effort_limit) << j.name;
    EXPECT_FALSE(j.actuation.encoder_on_motor) << j.name;
  }
  // With a spread each unit departs from it, drawn per joint.
  const suitsim::io::Scene spread = loadScene(
      protocolWith(R"(<realism><compliance stiffness_per_effort="150" spread="0.1"/></realism>)", "compliance_spread"),
      "bend_normal");
  double sum_sq = 0.0;
  int n = 0;
  for (const suitsim::RobotJoint& j : spread.robot->truth.joints) {
    if (!j.mimic.joint.empty() || j.type == suitsim::JointType::kFixed) continue;
    const double ratio = j.actuation.gear_stiffness / (150.0 * j.effort_limit);
    EXPECT_GE(ratio, 0.5) << j.name;
    sum_sq += (ratio - 1.0) * (ratio - 1.0);
    ++n;
  }
  EXPECT_GT(std::sqrt(sum_sq / n), 0.05);
  EXPECT_LT(std::sqrt(sum_sq / n), 0.2);
}

TEST(Realism, ComplianceNeedsEveryJointsRotor) {
  const fs::path path = fs::path(::testing::TempDir()) / "no_rotor.xml";
  std::ofstream(path) << R"(<scene name="no_rotor">
  <realism><compliance stiffness_per_effort="150"/></realism>
  <simulation integrator="velocity_verlet" dt="1e-4" duration="0.1"/>
  <robot name="arm" base="fixed">
    <link name="base"/>
    <link name="upper" mass="1.2" com="0 0 -0.15" inertia="0.01 0.011 0.002 0 0 0"/>
    <joint name="shoulder" type="revolute" parent="base" child="upper" axis="0 1 0" lower="-2" upper="2" effort="40"/>
  </robot>
</scene>
)";
  try {
    loadScene(path.string());
    ADD_FAILURE() << "accepted a compliant gear without a rotor";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("no_rotor.xml:4"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("joint 'shoulder' has none (<actuation armature>)"), std::string::npos)
        << e.what();
  }
}

// The evaluator's magnet coefficient is the datasheet's (<apriori
// magnet_coefficient>, -0.0012 in the protocol), whatever the truth's
// magnets do; a coefficient beyond +-0.01 1/K is refused at its line.
TEST(Realism, AprioriMagnetCoefficientIsTheDatasheetsNeverTheTruths) {
  const suitsim::io::Scene scene = loadScene(
      protocolWith(R"(<realism><motor_heating rise_at_effort="80" time_constant="30" magnet_coefficient="-0.002"/></realism>)",
                   "datasheet"),
      "bend_normal");
  ASSERT_GT(scene.model.num_hinges, 0);
  EXPECT_EQ(scene.model.hinge_magnet_coefficient[0], -0.002);
  for (const suitsim::RobotJoint& j : scene.robot->apriori.joints) {
    EXPECT_EQ(j.actuation.magnet_coefficient, -0.0012) << j.name;
    EXPECT_EQ(j.actuation.km, 0.0) << j.name;
  }
  std::ifstream in(source("scenes/jvrc1_protocol.xml"));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const std::string good = "magnet_coefficient=\"-0.0012\"";
  text.replace(text.find(good), good.size(), "magnet_coefficient=\"0.05\"");
  for (std::size_t at = text.find("../models/"); at != std::string::npos; at = text.find("../models/", at)) {
    text.replace(at, 10, source("models/"));
  }
  const fs::path path = fs::path(::testing::TempDir()) / "bad_datasheet.xml";
  std::ofstream(path) << text;
  try {
    loadScene(path.string(), "bend_normal");
    ADD_FAILURE() << "a magnet coefficient of 5 %/K was accepted";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("magnet_coefficient"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("<apriori>"), std::string::npos) << e.what();
  }
}

// A realism file in the test's temporary folder.
std::string realismFile(const std::string& body, const std::string& name) {
  const fs::path path = fs::path(::testing::TempDir()) / (name + ".xml");
  std::ofstream(path) << body;
  return path.string();
}

// The presets: `ideal` switches nothing on; `realistic` every source, at the
// magnitudes docs/realism.md#presets gives (each stated there with its
// reason), so a change to them is a change to the documentation too.
TEST(RealismPresets, IdealIsOffAndRealisticSwitchesEverySourceOn) {
  const suitsim::io::Realism ideal = suitsim::io::realismOption("ideal");
  EXPECT_TRUE(ideal.activeSources().empty());
  EXPECT_EQ(ideal.source, "ideal");
  const suitsim::io::Realism r = suitsim::io::realismOption("realistic");
  EXPECT_EQ(r.source, "realistic");
  EXPECT_EQ(r.preset, "realistic");
  EXPECT_EQ(r.activeSources(), (std::vector<std::string>{"via_points", "gear", "motor_heating", "sensor_chain",
                                                         "attachments", "hysteresis", "capstan", "compliance"}));
  EXPECT_EQ(r.via_point_offset, 0.005);
  EXPECT_EQ(r.gear_efficiency, 0.8);
  EXPECT_EQ(r.backdrive_efficiency, 0.7);
  EXPECT_EQ(r.heating_rise_at_effort, 100.0);
  EXPECT_EQ(r.heating_time_constant, 30.0);
  EXPECT_EQ(r.heating_magnet_coefficient, -0.0012);
  EXPECT_EQ(r.heating_initial_rise, 10.0);
  EXPECT_TRUE(r.sensor_chain);
  EXPECT_EQ(r.chain_imu_cutoff, 42.0);
  EXPECT_EQ(r.chain_force_cutoff, 50.0);
  EXPECT_EQ(r.chain_current_cutoff, 50.0);
  EXPECT_EQ(r.chain_jitter, 1e-4);
  EXPECT_EQ(r.chain_gyro_bias_walk, 3e-5);
  EXPECT_EQ(r.chain_accel_bias_walk, 2e-4);
  EXPECT_EQ(r.chain_force_crosstalk, 0.01);
  EXPECT_EQ(r.chain_force_gain, 0.005);
  EXPECT_EQ(r.attachment_stiffness, 10000.0);
  EXPECT_EQ(r.attachment_spread, 0.2);
  EXPECT_EQ(r.hysteresis_fraction, 0.15);
  EXPECT_EQ(r.hysteresis_relaxation_time, 1.0);
  EXPECT_EQ(r.compliance_stiffness_per_effort, 150.0);
  EXPECT_EQ(r.compliance_backlash, 3e-4);
  EXPECT_EQ(r.compliance_damping_ratio, 0.1);
  EXPECT_TRUE(r.compliance_encoder_on_motor);
  EXPECT_EQ(r.capstan_friction, 0.3);
}

// A child overrides its source's magnitude in the preset; `sources` keeps
// only the named ones, the others return to ideal.
TEST(RealismPresets, ChildrenOverrideThePresetAndSourcesSwitchThemOneByOne) {
  const suitsim::io::Realism r = suitsim::io::loadRealism(realismFile(
      "<realism preset=\"realistic\" seed=\"4\">\n  <gear efficiency=\"0.9\" backdrive_efficiency=\"0.85\"/>\n"
      "</realism>\n",
      "override"));
  EXPECT_EQ(r.seed, 4u);
  EXPECT_EQ(r.gear_efficiency, 0.9);
  EXPECT_EQ(r.backdrive_efficiency, 0.85);
  EXPECT_EQ(r.via_point_offset, 0.005);  // the preset's
  const suitsim::io::Realism gear_only = suitsim::io::loadRealism(
      realismFile("<realism preset=\"realistic\" sources=\"gear\"/>\n", "gear_only"));
  EXPECT_EQ(gear_only.activeSources(), std::vector<std::string>{"gear"});
  EXPECT_EQ(gear_only.gear_efficiency, 0.8);
  EXPECT_EQ(gear_only.via_point_offset, 0.0);
  EXPECT_EQ(gear_only.heating_rise_at_effort, 0.0);
  EXPECT_FALSE(gear_only.sensor_chain);
  EXPECT_EQ(gear_only.chain_imu_cutoff, 0.0);
  EXPECT_EQ(gear_only.chain_force_crosstalk, 0.0);
  EXPECT_EQ(gear_only.chain_force_gain, 0.0);
  EXPECT_EQ(gear_only.attachment_stiffness, 0.0);
  EXPECT_EQ(gear_only.hysteresis_fraction, 0.0);
  EXPECT_EQ(gear_only.hysteresis_relaxation_time, 0.0);
  EXPECT_EQ(gear_only.compliance_stiffness_per_effort, 0.0);
  EXPECT_FALSE(gear_only.compliance_encoder_on_motor);
  EXPECT_EQ(gear_only.capstan_friction, 0.0);
  const suitsim::io::Realism two = suitsim::io::loadRealism(
      realismFile("<realism preset=\"realistic\" sources=\"motor_heating via_points\"/>\n", "two"));
  EXPECT_EQ(two.activeSources(), (std::vector<std::string>{"via_points", "motor_heating"}));
  const suitsim::io::Realism none = suitsim::io::loadRealism(
      realismFile("<realism preset=\"realistic\" sources=\"none\"/>\n", "none"));
  EXPECT_TRUE(none.activeSources().empty());
  EXPECT_FALSE(none.any());
}

// Bad presets and source lists name the file, the line and the attribute.
TEST(RealismPresets, BadPresetOrSourcesNameTheLine) {
  const std::pair<std::string, std::string> cases[] = {
      {"<realism\n preset=\"harsh\"/>\n", "must be ideal or realistic (got 'harsh')"},
      {"<realism preset=\"realistic\"\n sources=\"gears\"/>\n", "'gears' is not a source (via_points, gear, motor_heating, sensor_chain, attachments, hysteresis, capstan, compliance, or all or none)"},
      {"<realism\n sources=\"gear\"/>\n", "source 'gear' has no magnitude"},
      {"<realism preset=\"realistic\"\n sources=\" \"/>\n", "is empty"},
      {"<realism preset=\"realistic\"\n sources=\"all gear\"/>\n", "'all' is not a source"},
  };
  int k = 0;
  for (const auto& [body, message] : cases) {
    const std::string path = realismFile(body, "bad" + std::to_string(k++));
    try {
      suitsim::io::loadRealism(path);
      ADD_FAILURE() << body;
    } catch (const SceneError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path + ":"), std::string::npos) << what;
      EXPECT_NE(what.find(message), std::string::npos) << what;
    }
  }
}

// realismXml writes every magnitude out: read back, it is the same realism.
TEST(RealismPresets, WrittenOutItReadsBackTheSame) {
  suitsim::io::Realism r = suitsim::io::realisticPreset();
  r.seed = 9;
  r.gear_transition_velocity = 0.02;
  const suitsim::io::Realism back =
      suitsim::io::loadRealism(realismFile(suitsim::io::realismXml(r) + "\n", "written"));
  EXPECT_EQ(back.seed, 9u);
  EXPECT_EQ(back.activeSources(), r.activeSources());
  EXPECT_EQ(back.via_point_offset, r.via_point_offset);
  EXPECT_EQ(back.gear_efficiency, r.gear_efficiency);
  EXPECT_EQ(back.backdrive_efficiency, r.backdrive_efficiency);
  EXPECT_EQ(back.gear_transition_velocity, r.gear_transition_velocity);
  EXPECT_EQ(back.heating_rise_at_effort, r.heating_rise_at_effort);
  EXPECT_EQ(back.heating_time_constant, r.heating_time_constant);
  EXPECT_EQ(back.heating_magnet_coefficient, r.heating_magnet_coefficient);
  EXPECT_EQ(back.heating_initial_rise, r.heating_initial_rise);
  EXPECT_EQ(back.sensor_chain, r.sensor_chain);
  EXPECT_EQ(back.chain_imu_cutoff, r.chain_imu_cutoff);
  EXPECT_EQ(back.chain_force_cutoff, r.chain_force_cutoff);
  EXPECT_EQ(back.chain_current_cutoff, r.chain_current_cutoff);
  EXPECT_EQ(back.chain_jitter, r.chain_jitter);
  EXPECT_EQ(back.chain_gyro_bias_walk, r.chain_gyro_bias_walk);
  EXPECT_EQ(back.chain_accel_bias_walk, r.chain_accel_bias_walk);
  EXPECT_EQ(back.chain_force_crosstalk, r.chain_force_crosstalk);
  EXPECT_EQ(back.chain_force_gain, r.chain_force_gain);
  EXPECT_EQ(back.attachment_stiffness, r.attachment_stiffness);
  EXPECT_EQ(back.attachment_spread, r.attachment_spread);
  EXPECT_EQ(back.hysteresis_fraction, r.hysteresis_fraction);
  EXPECT_EQ(back.hysteresis_relaxation_time, r.hysteresis_relaxation_time);
  EXPECT_EQ(back.compliance_stiffness_per_effort, r.compliance_stiffness_per_effort);
  EXPECT_EQ(back.compliance_backlash, r.compliance_backlash);
  EXPECT_EQ(back.compliance_damping_ratio, r.compliance_damping_ratio);
  EXPECT_EQ(back.compliance_encoder_on_motor, r.compliance_encoder_on_motor);
  EXPECT_EQ(back.capstan_friction, r.capstan_friction);
  EXPECT_EQ(back.preset, "ideal");  // self-contained: no preset needed
}

}  // namespace
