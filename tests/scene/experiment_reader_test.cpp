// Experiments in the scene format: listTrials gives the trials in file order
// with their defaults; loadScene(path, trial) builds each trial's own scene,
// wearing the bands of its suit (plus the robot's own bands), following its
// motion, with its held objects in the truth and not in the a-priori set,
// and recording only bands it wears. The bad-input fixtures are in
// scene_reader_test.cpp's table; the errors of the trial argument are here.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "suitsim/scene/scene.h"

namespace {

namespace fs = std::filesystem;
using suitsim::io::listTrials;
using suitsim::io::loadScene;
using suitsim::io::Scene;
using suitsim::io::SceneError;
using suitsim::io::TrialSpec;
using Kind = suitsim::ChannelSpec::Kind;

std::string dataScene(const std::string& name) {
  return std::string(SUITSIM_SOURCE_DIR) + "/tests/scene/data/" + name + ".xml";
}

const std::string& experimentPath() {
  static const std::string path = dataScene("arm_experiment");
  return path;
}

std::vector<std::string> bandNames(const Scene& scene) {
  std::vector<std::string> names;
  for (const auto& b : scene.robot->bands) names.push_back(b.name);
  return names;
}

const suitsim::RobotLink& link(const suitsim::RobotDescription& robot, const std::string& name) {
  const int l = robot.findLink(name);
  EXPECT_GE(l, 0) << name;
  return robot.links.at(l);
}

/// The labels of the scene's channels of `kind`.
std::vector<std::string> channelLabels(const Scene& scene, Kind kind) {
  std::vector<std::string> labels;
  for (const auto& c : scene.channels) {
    if (c.kind == kind) labels.push_back(c.label);
  }
  return labels;
}

/// The SceneError message of `f()`, or "" (and a failure) when it does not throw one.
template <typename F>
std::string sceneError(F f) {
  try {
    f();
  } catch (const SceneError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no SceneError";
  return "";
}

// ---- listTrials ---------------------------------------------------------------

TEST(ExperimentReader, ListTrialsInFileOrderWithDefaults) {
  const std::vector<TrialSpec> trials = listTrials(experimentPath());
  ASSERT_EQ(trials.size(), 4u);
  struct Expected {
    const char* name;
    const char* motion;
    const char* suit;
    const char* purpose;
    int line;
  };
  const Expected expected[] = {
      {"ident", "swing", "none", "identification", 38},
      {"lift_none", "lift", "none", "evaluation", 39},  // suit and purpose by default
      {"lift_soft", "lift", "soft", "evaluation", 40},
      {"swing_stiff", "swing", "stiff", "evaluation", 41},
  };
  for (std::size_t k = 0; k < trials.size(); ++k) {
    SCOPED_TRACE(expected[k].name);
    EXPECT_EQ(trials[k].name, expected[k].name);
    EXPECT_EQ(trials[k].motion, expected[k].motion);
    EXPECT_EQ(trials[k].suit, expected[k].suit);
    EXPECT_EQ(trials[k].purpose, expected[k].purpose);
    EXPECT_EQ(trials[k].line, expected[k].line);
  }
}

TEST(ExperimentReader, SceneWithoutExperimentListsNoTrials) {
  EXPECT_TRUE(listTrials(dataScene("arm_native_scene")).empty());
  const Scene scene = loadScene(dataScene("arm_native_scene"));
  EXPECT_TRUE(scene.trial.name.empty());
}

TEST(ExperimentReader, ListTrialsRefusesABadExperiment) {
  const std::string path = std::string(SUITSIM_SOURCE_DIR) + "/scenes/invalid/trial_unknown_motion.xml";
  const std::string message = sceneError([&] { listTrials(path); });
  EXPECT_NE(message.find(path + ":14:"), std::string::npos) << message;
}

// ---- one Scene per trial --------------------------------------------------------

TEST(ExperimentReader, NoTrialNameLoadsTheFirstTrial) {
  const Scene scene = loadScene(experimentPath());
  EXPECT_EQ(scene.trial.name, "ident");
  EXPECT_EQ(scene.trial.purpose, "identification");
  EXPECT_EQ(bandNames(scene), (std::vector<std::string>{"strap"}));
}

TEST(ExperimentReader, EachTrialLoadsItsOwnScene) {
  for (const TrialSpec& t : listTrials(experimentPath())) {
    SCOPED_TRACE(t.name);
    const Scene scene = loadScene(experimentPath(), t.name);
    EXPECT_EQ(scene.name, "arm_experiment");
    EXPECT_EQ(scene.trial.name, t.name);
    EXPECT_EQ(scene.trial.motion, t.motion);
    EXPECT_EQ(scene.trial.suit, t.suit);
    EXPECT_EQ(scene.trial.purpose, t.purpose);
    EXPECT_EQ(scene.trial.line, t.line);
    ASSERT_TRUE(scene.robot.has_value());
  }
}

// The robot's own band is worn in every trial; a suit's bands only in the
// trials that wear it, with that suit's stiffness and stiffness groups (a
// band without a declared group is a group of its own, named as the band).
TEST(ExperimentReader, TrialsWearTheirSuitsBands) {
  struct Expected {
    const char* trial;
    std::vector<std::string> bands;
    std::vector<double> stiffness;
    std::vector<std::string> groups;
  };
  const Expected cases[] = {
      {"ident", {"strap"}, {50.0}, {"strap"}},
      {"lift_none", {"strap"}, {50.0}, {"strap"}},
      {"lift_soft", {"strap", "front"}, {50.0, 100.0}, {"strap", "front"}},
      {"swing_stiff", {"strap", "front", "back"}, {50.0, 300.0, 300.0}, {"strap", "pair", "pair"}},
  };
  for (const Expected& c : cases) {
    SCOPED_TRACE(c.trial);
    const Scene scene = loadScene(experimentPath(), c.trial);
    EXPECT_EQ(bandNames(scene), c.bands);
    ASSERT_EQ(scene.model.num_bands, static_cast<int>(c.bands.size()));
    for (std::size_t k = 0; k < c.bands.size(); ++k) {
      const int b = scene.model.findBand(c.bands[k]);
      ASSERT_GE(b, 0) << c.bands[k];
      EXPECT_EQ(b, scene.robot->compiled.band[k]);
      EXPECT_DOUBLE_EQ(scene.model.band_stiffness[b], c.stiffness[k]) << c.bands[k];
      EXPECT_DOUBLE_EQ(scene.robot->bands[k].stiffness, c.stiffness[k]) << c.bands[k];
      EXPECT_EQ(scene.robot->bands[k].group, c.groups[k]) << c.bands[k];
      // natural_length="auto": resolved to the initial length, just taut.
      EXPECT_GT(scene.robot->bands[k].natural_length, 0.0) << c.bands[k];
    }
    // The evaluator starts without bands (it identifies them, A(26)).
    EXPECT_EQ(scene.robot->apriori.totalMass(), loadScene(experimentPath(), "ident").robot->apriori.totalMass());
  }
}

TEST(ExperimentReader, TrialsFollowTheirMotion) {
  const Scene lift = loadScene(experimentPath(), "lift_soft");
  const Scene swing = loadScene(experimentPath(), "swing_stiff");
  EXPECT_DOUBLE_EQ(lift.robot->motion.duration(), 0.4);
  EXPECT_DOUBLE_EQ(swing.robot->motion.duration(), 0.6);
  const int shoulder = suitsim::findHinge(lift.model, "shoulder");
  const int elbow = suitsim::findHinge(lift.model, "elbow");
  ASSERT_GE(shoulder, 0);
  ASSERT_GE(elbow, 0);
  EXPECT_EQ(lift.robot->motion.hinges(), (std::vector<int>{shoulder}));
  EXPECT_EQ(swing.robot->motion.hinges(), (std::vector<int>{elbow}));
  double angle = 0.0, rate = 0.0;
  lift.robot->motion.sample(0.4, &angle, &rate);
  EXPECT_NEAR(angle, 0.3, 1e-12);
  swing.robot->motion.sample(0.3, &angle, &rate);
  EXPECT_NEAR(angle, -0.5, 1e-12);
}

// A held object is part of the truth of the trials whose motion holds it,
// never of the a-priori set (the evaluator adds it from RobotSetup::held).
TEST(ExperimentReader, HeldObjectsAddToTheTruthLinkOnly) {
  const Scene lift = loadScene(experimentPath(), "lift_none");
  const Scene swing = loadScene(experimentPath(), "ident");
  ASSERT_EQ(lift.robot->held.size(), 1u);
  const suitsim::io::HeldObject& held = lift.robot->held[0];
  EXPECT_EQ(held.link, "fore");
  EXPECT_DOUBLE_EQ(held.mass, 0.5);
  EXPECT_EQ(held.com, (suitsim::Vec3{0.0, 0.0, -0.2}));
  EXPECT_DOUBLE_EQ(held.radius, 0.03);
  EXPECT_TRUE(swing.robot->held.empty());

  // Truth: the fore link's 0.8 kg plus the 0.5 kg held, centres of mass combined.
  const auto& fore_truth = link(lift.robot->truth, "fore").inertial;
  EXPECT_NEAR(fore_truth.mass, 1.3, 1e-12);
  EXPECT_NEAR(fore_truth.com[2], (0.8 * -0.12 + 0.5 * -0.2) / 1.3, 1e-12);
  // I_yy about the new centre: the link's own, both parallel-axis shifts, the sphere.
  const double c = (0.8 * -0.12 + 0.5 * -0.2) / 1.3;
  const double iyy = 0.006 + 0.8 * (c + 0.12) * (c + 0.12) + 0.5 * (c + 0.2) * (c + 0.2) + 0.4 * 0.5 * 0.03 * 0.03;
  EXPECT_NEAR(fore_truth.inertia[1], iyy, 1e-12);
  EXPECT_NEAR(link(swing.robot->truth, "fore").inertial.mass, 0.8, 1e-12);
  // The particle model carries it too.
  EXPECT_NEAR(lift.model.totalMass() - swing.model.totalMass(), 0.5, 1e-9);

  // A priori: neither the held object nor the hidden payload.
  for (const Scene* s : {&lift, &swing}) {
    EXPECT_NEAR(link(s->robot->apriori, "fore").inertial.mass, 0.8, 1e-12);
    EXPECT_NEAR(link(s->robot->apriori, "upper").inertial.mass, 1.2, 1e-12);
    EXPECT_NEAR(link(s->robot->truth, "upper").inertial.mass, 1.5, 1e-12);
  }
}

// <apriori payloads="true"> gives the evaluator the hidden payloads; the
// held object is still left to RobotSetup::held (else an evaluator adding
// the held loads would count them twice).
TEST(ExperimentReader, AprioriWithPayloadsStillLacksHeldObjects) {
  std::ifstream in(experimentPath());
  std::stringstream text;
  text << in.rdbuf();
  std::string scene_text = text.str();
  const std::string anchor = "    <servo";
  const auto at = scene_text.find(anchor);
  ASSERT_NE(at, std::string::npos);
  scene_text.insert(at, "    <apriori payloads=\"true\"/>\n");
  const fs::path dir = fs::path(::testing::TempDir()) / ("suitsim_experiment_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path path = dir / "with_payloads.xml";
  std::ofstream(path) << scene_text;
  const Scene lift = loadScene(path.string(), "lift_none");
  fs::remove_all(dir);
  EXPECT_NEAR(link(lift.robot->apriori, "upper").inertial.mass, 1.5, 1e-12);  // the payload: known now
  EXPECT_NEAR(link(lift.robot->apriori, "fore").inertial.mass, 0.8, 1e-12);   // the held object: not
  EXPECT_NEAR(link(lift.robot->truth, "fore").inertial.mass, 1.3, 1e-12);
  ASSERT_EQ(lift.robot->held.size(), 1u);
}

// <apriori inertial_spread="s" seed>: Kang et al.'s initial model, each
// link's mass, first moments m c and inertia entries about the centre of
// mass within [1 - s, 1 + s] times the truth's, every inertia one a rigid
// body can have, the truth untouched, the same draw for the same seed and
// another for another.
TEST(ExperimentReader, AprioriInertialSpreadDrawsAroundTheTruthBySeed) {
  std::ifstream in(experimentPath());
  std::stringstream text;
  text << in.rdbuf();
  const fs::path dir = fs::path(::testing::TempDir()) / ("suitsim_spread_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto withSpread = [&](int seed) {
    std::string scene_text = text.str();
    const auto at = scene_text.find("    <servo");
    EXPECT_NE(at, std::string::npos);
    scene_text.insert(at, "    <apriori inertial_spread=\"0.3\" seed=\"" + std::to_string(seed) + "\"/>\n");
    const fs::path path = dir / ("spread_" + std::to_string(seed) + ".xml");
    std::ofstream(path) << scene_text;
    return loadScene(path.string(), "ident");
  };
  const Scene a = withSpread(5), b = withSpread(5), c = withSpread(6);
  const Scene plain = loadScene(experimentPath(), "ident");
  fs::remove_all(dir);
  const double s = 0.3;
  int moved = 0;
  for (std::size_t l = 0; l < a.robot->apriori.links.size(); ++l) {
    const suitsim::LinkInertial& drawn = a.robot->apriori.links[l].inertial;
    const suitsim::LinkInertial& cad = plain.robot->apriori.links[l].inertial;
    EXPECT_EQ(a.robot->truth.links[l].inertial.mass, plain.robot->truth.links[l].inertial.mass);
    EXPECT_EQ(drawn.mass, b.robot->apriori.links[l].inertial.mass);  // same seed, same draw
    if (cad.mass <= 0.0) {
      EXPECT_EQ(drawn.mass, cad.mass);
      continue;
    }
    moved += drawn.mass != c.robot->apriori.links[l].inertial.mass ? 1 : 0;
    EXPECT_GE(drawn.mass, (1.0 - s) * cad.mass - 1e-12);
    EXPECT_LE(drawn.mass, (1.0 + s) * cad.mass + 1e-12);
    for (int k = 0; k < 3; ++k) {
      const double first = drawn.mass * drawn.com[k], cad_first = cad.mass * cad.com[k];
      EXPECT_LE(std::abs(first - cad_first), s * std::abs(cad_first) + 1e-12) << k;
    }
    for (int k = 0; k < 6; ++k) EXPECT_LE(std::abs(drawn.inertia[k] - cad.inertia[k]), s * std::abs(cad.inertia[k]) + 1e-15);
    // Principal moments: positive, each at most the sum of the other two.
    const auto& i = drawn.inertia;
    Eigen::Matrix3d I;
    I << i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2];
    const Eigen::Vector3d e = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(I).eigenvalues();
    EXPECT_GT(e(0), 0.0);
    EXPECT_GE(e(0) + e(1), e(2));
  }
  EXPECT_GT(moved, 0);  // another seed, another draw
}

// A band of a suit the trial does not wear has nothing to record: its
// <record> is skipped, not an error.
TEST(ExperimentReader, RecordsOfUnwornBandsAreSkipped) {
  struct Expected {
    const char* trial;
    std::vector<std::string> tensions, lengths;
  };
  const Expected cases[] = {
      {"ident", {"strap"}, {}},
      {"lift_none", {"strap"}, {}},
      {"lift_soft", {"strap", "front"}, {}},
      {"swing_stiff", {"strap", "front"}, {"back"}},
  };
  for (const Expected& c : cases) {
    SCOPED_TRACE(c.trial);
    const Scene scene = loadScene(experimentPath(), c.trial);
    EXPECT_EQ(channelLabels(scene, Kind::kBandTension), c.tensions);
    EXPECT_EQ(channelLabels(scene, Kind::kBandLength), c.lengths);
    EXPECT_EQ(channelLabels(scene, Kind::kJointAngle), (std::vector<std::string>{"shoulder"}));
    for (const auto& ch : scene.channels) {
      if (ch.kind == Kind::kBandTension || ch.kind == Kind::kBandLength) {
        EXPECT_EQ(scene.model.band_name.at(ch.index), ch.label);
      }
    }
  }
}

// ---- the trial argument -----------------------------------------------------------

TEST(ExperimentReader, UnknownTrialNameIsRefused) {
  const std::string message = sceneError([] { loadScene(experimentPath(), "lift_hard"); });
  EXPECT_NE(message.find(experimentPath()), std::string::npos) << message;
  EXPECT_NE(message.find("no trial named 'lift_hard'"), std::string::npos) << message;
}

TEST(ExperimentReader, TrialNameOnASceneWithoutExperimentIsRefused) {
  const std::string path = dataScene("arm_native_scene");
  const std::string message = sceneError([&] { loadScene(path, "x"); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("no <experiment>"), std::string::npos) << message;
  EXPECT_NE(message.find("'x'"), std::string::npos) << message;
}

// Every suit's bands are checked whichever trial is loaded.
TEST(ExperimentReader, BadBandOfAnUnwornSuitFailsEveryTrial) {
  const std::string path = std::string(SUITSIM_SOURCE_DIR) + "/scenes/invalid/suit_band_unknown_link.xml";
  for (const char* trial : {"t1", "t2"}) {
    SCOPED_TRACE(trial);
    const std::string message = sceneError([&] { loadScene(path, trial); });
    EXPECT_NE(message.find(path + ":16:"), std::string::npos) << message;
    EXPECT_NE(message.find("'uper'"), std::string::npos) << message;
  }
}

// The shipped protocol scene: ten trials, each loads.
TEST(ExperimentReader, ProtocolSceneTrialsLoad) {
  const std::string path = std::string(SUITSIM_SOURCE_DIR) + "/scenes/jvrc1_protocol.xml";
  const std::vector<TrialSpec> trials = listTrials(path);
  ASSERT_EQ(trials.size(), 10u);
  EXPECT_EQ(std::count_if(trials.begin(), trials.end(), [](const TrialSpec& t) { return t.purpose == "identification"; }),
            4);
  const Scene modified = loadScene(path, "bend_modified");
  EXPECT_EQ(modified.model.num_bands, 4);
  EXPECT_DOUBLE_EQ(modified.model.band_stiffness[modified.model.findBand("bandA_R")], 395.6);
  // The suit declares its stiffness groups: type A and type B.
  std::vector<std::string> groups;
  for (const auto& b : modified.robot->bands) groups.push_back(b.name + ":" + b.group);
  EXPECT_EQ(groups, (std::vector<std::string>{"bandA_R:A", "bandA_L:A", "bandB_R:B", "bandB_L:B"}));
  EXPECT_EQ(modified.robot->held.size(), 2u);
  const Scene ident = loadScene(path, "ident_arms");
  EXPECT_EQ(ident.model.num_bands, 0);
  EXPECT_TRUE(ident.robot->held.empty());
  EXPECT_NEAR(modified.robot->truth.totalMass() - ident.robot->truth.totalMass(), 1.0, 1e-9);
  EXPECT_NEAR(modified.robot->apriori.totalMass(), ident.robot->apriori.totalMass(), 1e-12);
}

}  // namespace
