// The scene reader: every bad input has a fixture in scenes/invalid/ and
// must give one SceneError naming the file, the line and the culprit; the
// shipped scenes load with the particle and spring counts their generators
// imply; defaults and references by name or index work.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "error_message.h"
#include "suitsim/scene/scene.h"

namespace {

namespace fs = std::filesystem;
using suitsim::io::loadScene;
using suitsim::io::SceneError;

std::string invalidScene(const std::string& name) {
  return std::string(SUITSIM_SOURCE_DIR) + "/scenes/invalid/" + name + ".xml";
}

std::string shippedScene(const std::string& name) {
  return std::string(SUITSIM_SOURCE_DIR) + "/scenes/" + name + ".xml";
}

/// Loads `path`, expecting a SceneError whose message holds the path, ":line:"
/// and every fragment. The message is printed on failure.
::testing::AssertionResult failsWith(const std::string& path, int line, const std::vector<std::string>& fragments) {
  try {
    loadScene(path);
  } catch (const SceneError& e) {
    const std::string message = e.what();
    std::vector<std::string> wanted = fragments;
    wanted.push_back(path);
    if (line > 0) wanted.push_back(path + ":" + std::to_string(line) + ":");
    return suitsim::testing::namesAllOnOneLine(message, wanted);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw something other than SceneError: " << e.what();
  }
  return ::testing::AssertionFailure() << path << " loaded without error";
}

// ---- bad input: one fixture each ---------------------------------------------

struct BadScene {
  const char* fixture;                 // scenes/invalid/<fixture>.xml
  int line;                            // where the error is
  std::vector<std::string> fragments;  // the culprit, as the message must name it
};

void PrintTo(const BadScene& c, std::ostream* out) { *out << c.fixture; }

class SceneReaderBadInput : public ::testing::TestWithParam<BadScene> {};

TEST_P(SceneReaderBadInput, ThrowsNamingFileLineAndCulprit) {
  const BadScene& c = GetParam();
  EXPECT_TRUE(failsWith(invalidScene(c.fixture), c.line, c.fragments));
}

const std::vector<BadScene>& badScenes() {
  static const std::vector<BadScene> cases = {
      // The XML itself.
      {"malformed_unclosed_tag", 5, {"<particle>", "malformed XML", "not closed"}},
      {"empty_file", 1, {"malformed XML", "empty"}},
      {"comment_double_hyphen", 5, {"malformed XML", "'--' inside a comment", "(got '--dt 1e-3')"}},
      {"undeclared_prefix_element", 6,
       {"malformed XML", "element <xacro:property>", "the prefix 'xacro'", "no xmlns:xacro declares"}},
      // Declared on a sibling only, and named at the attribute's own line.
      {"undeclared_prefix_attribute", 8,
       {"malformed XML", "<particle> attribute 'tool:note'", "the prefix 'tool'", "no xmlns:tool declares"}},
      {"second_root", 7, {"<scene>", "second top-level element"}},
      {"wrong_root", 3, {"<sceen>", "root element must be <scene>"}},
      // Unknown elements, attributes and text.
      {"unknown_element", 6, {"<partcle>", "unknown element"}},
      {"unknown_attribute", 7, {"<spring>", "unknown attribute 'stifness'"}},
      {"element_inside_particle", 6, {"<spring>", "inside <particle>"}},
      {"text_inside_element", 5, {"<particle>", "unexpected text", "'heavy'"}},
      // Missing elements and attributes.
      {"particle_missing_mass", 5, {"<particle>", "missing required attribute 'mass'"}},
      {"spring_missing_stiffness", 7, {"<spring>", "missing required attribute 'stiffness'"}},
      {"simulation_missing_dt", 4, {"<simulation>", "missing required attribute 'dt'"}},
      {"missing_simulation", 3, {"<scene>", "missing required element <simulation>"}},
      {"no_particles", 3, {"<scene>", "no particles"}},
      // Wrong counts and malformed values.
      {"duplicate_simulation", 5, {"<simulation>", "only once", "first at line 4"}},
      {"mass_not_a_number", 5, {"<particle>", "'mass'", "(got 'heavy')"}},
      {"mass_with_unit", 5, {"<particle>", "'mass'", "(got '1.0kg')"}},
      {"pos_two_numbers", 5, {"<particle>", "'pos'", "three numbers", "(got '1 2')"}},
      {"mass_nan", 5, {"<particle>", "'mass'", "finite", "(got 'nan')"}},
      {"pos_inf", 5, {"<particle>", "'pos'", "finite", "(got '0 inf 0')"}},
      {"cloth_count_one_number", 5, {"<cloth>", "'count'", "2 integers", "(got '5')"}},
      {"fixed_yes", 5, {"<particle>", "'fixed'", "true, false, 1 or 0", "(got 'yes')"}},
      // Values that are well formed but wrong.
      {"mass_zero", 5, {"<particle>", "'mass'", "> 0", "(got '0')"}},
      {"mass_negative", 5, {"<particle>", "'mass'", "> 0", "(got '-2')"}},
      {"dt_zero", 4, {"<simulation>", "'dt'", "> 0", "(got '0')"}},
      {"threads_too_many", 3, {"<simulation>", "'threads'", "from 0 to 1024", "(got '100000')"}},
      {"block_count_overflow", 4, {"<block>", "'count'", "too large (over 1e7 particles)"}},
      {"text_before_root", 2, {"text outside the <scene> element", "(got 'stray text"}},
      {"dt_negative", 4, {"<simulation>", "'dt'", "> 0", "(got '-1e-3')"}},
      {"duration_zero", 4, {"<simulation>", "'duration'", "> 0", "(got '0')"}},
      {"spring_negative_damping", 7, {"<spring>", "'damping'", ">= 0", "(got '-0.5')"}},
      {"unknown_integrator", 4, {"<simulation>", "'integrator'", "velocity_verlet", "(got 'leapfrog')"}},
      {"unknown_arithmetic", 4, {"<simulation>", "'arithmetic'", "separate or fused", "(got 'fma')"}},
      {"output_rate_above_one_over_dt", 4, {"<simulation>", "'output_rate'", "1/dt", "(got '2000')"}},
      {"ground_mu_kinetic_above_static", 5, {"<ground>", "'mu_kinetic'", "mu_static", "(got '0.5')"}},
      {"cloth_count_too_small", 5, {"<cloth>", "'count'", "at least 2", "(got '1 5')"}},
      // References and names.
      {"spring_to_itself", 7, {"<spring>", "'b'", "same particle", "(got 'a')"}},
      {"spring_index_out_of_range", 7, {"<spring>", "'b'", "out of range", "(got '2')"}},
      {"spring_unknown_particle", 7, {"<spring>", "'b'", "names no particle", "(got 'c')"}},
      {"spring_particle_defined_later", 6, {"<spring>", "'b'", "before this line", "(got 'b')"}},
      {"duplicate_particle_name", 6, {"<particle>", "'name'", "repeats", "(got 'a')"}},
      {"particle_name_with_comma", 5, {"<particle>", "'name'", "commas", "(got 'a,b')"}},
      {"block_name_clash", 6, {"<block>", "'name'", "earlier body name", "(got 'box')"}},
      {"block_particle_name_clash", 6, {"<block>", "'name'", "'box.0'", "(got 'box')"}},
      {"record_unknown_particle", 6, {"<record>", "'particle'", "names no particle", "(got 'bob')"}},
      {"record_unknown_spring", 8, {"<record>", "'spring'", "names no spring", "(got 'coil')"}},
      {"record_unknown_body", 6, {"<record>", "'body'", "names no cloth, block or robot body", "(got 'sheet')"}},
      {"record_wrong_quantity", 6, {"<record>", "'quantity'", "position or velocity", "(got 'tension')"}},
      {"record_balance_without_ground", 6, {"<record>", "'quantity'", "'dcm' needs a <ground>", "(got 'dcm')"}},
      {"record_unknown_whole_quantity", 6, {"<record>", "'quantity'", "com, com_velocity, cop, omega, dcm, vrp, ecmp or", "(got 'capture_point')"}},
      // The link model, rigid or Toda and Sankai's springs.
      {"robot_link_model_unknown", 4, {"<robot>", "'link_model'", "rigid or springs", "(got 'spring')"}},
      {"inertial_unknown_link", 8, {"<inertial>", "'link'", "names no link of the robot ('hand')"}},
      {"inertial_not_physical", 8, {"<inertial>", "'inertia'", "is not a physical inertia"}},
      // A point mass set by the scene: refused where the particle cluster is
      // built, naming the scene's line that gave it and the remedy.
      {"inertial_point_mass", 8, {"body 'upper' is flat or a line", "<inertial link mass com inertia>"}},
      {"apriori_inertial_spread_one", 8, {"<apriori>", "'inertial_spread'", "must be below 1", "(got '1')"}},
      {"apriori_inertial_spread_negative", 8, {"<apriori>", "'inertial_spread'", "must be >= 0", "(got '-0.2')"}},
      // Suit bands inside <robot>, A(21)-(25).
      {"band_one_via_point", 8, {"<band>", "'links'", "at least two via points", "(got 'upper')"}},
      {"band_count_mismatch", 8, {"<band>", "'points'", "one point per link", "3 links, 2 points"}},
      {"band_bad_point", 8, {"<band>", "'points'", "'x y z'", "bad point ' 0 -0.2'"}},
      {"band_unknown_link", 8, {"<band>", "'links'", "names no link", "('uper')"}},
      {"band_negative_stiffness", 8, {"<band>", "'stiffness'", ">= 0", "(got '-3')"}},
      {"band_negative_natural_length", 8, {"<band>", "'natural_length'", ">= 0", "(got '-0.1')"}},
      {"band_natural_length_word", 8, {"<band>", "'natural_length'", "auto", "(got 'taut')"}},
      {"band_duplicate_name", 9, {"<band>", "'name'", "repeats an earlier band name", "(got 'b')"}},
      {"band_record_unknown", 10, {"<record>", "'band'", "names no band", "(got 'c')"}},
      // Stiffness groups: declared, never guessed from band names.
      {"band_group_empty", 8, {"<band>", "'group'", "must not be empty", "(got '')"}},
      {"band_group_with_space", 8, {"<band>", "'group'", "spaces", "(got 'type A')"}},
      {"band_group_names_other_band", 9, {"<band>", "'group'", "band 'a'", "in group 'front'", "(got 'a')"}},
      {"band_name_is_other_group", 9, {"<band>", "'name'", "group 'b' of band 'a'", "in group 'back'", "(got 'b')"}},
      {"band_group_stiffness_mismatch", 9, {"<band>", "'stiffness'", "band 'a'", "group 'front'", "(200 N/m)", "(got '300')"}},
      // Robot sensors inside <robot>.
      {"sensor_unknown_link", 10, {"<imu>", "'link'", "names no link", "(got 'uper')"}},
      {"sensor_unknown_joint", 10, {"<encoders>", "'joints'", "names no joint", "('elbow')"}},
      {"sensor_negative_noise", 10, {"<imu>", "'gyro_noise'", ">= 0", "(got '-0.01')"}},
      {"sensor_band_lengths_without_bands", 10, {"<band_lengths>", "wears no <band>", "no band length to measure"}},
      {"sensor_band_lengths_negative_noise", 11, {"<band_lengths>", "'noise'", ">= 0", "(got '-0.0002')"}},
      {"sensor_rate_zero", 9, {"<sensors>", "'rate'", "> 0", "(got '0')"}},
      {"sensor_rate_not_whole_steps", 9, {"<sensors>", "'rate'", "whole number", "dt = 0.0001 s", "(got '300')"}},
      {"sensor_noise_word", 9, {"<sensors>", "'noise'", "on or off", "(got 'quiet')"}},
      {"sensor_anti_alias_word", 9, {"<sensors>", "'anti_alias'", "on or off", "(got 'yes')"}},
      // URDF <mimic> followers have no motor and no motion of their own: a
      // value for one that contradicts the coupling is refused with both
      // (agreeing ones load: tests/scene/mimic_follower_test.cpp).
      {"mimic_servo_follower", 6, {"<servo>", "'joints'", "'R_LTHUMB'", "mimics 'R_UTHUMB'", "no motor", "kp 30", "kp 20"}},
      {"mimic_initial_follower", 5, {"<initial>", "'angles'", "'R_UINDEX'", "mimics 'R_UTHUMB'", "0.5", "0.4"}},
      {"mimic_keyframe_follower", 8, {"<keyframe>", "'angles'", "'R_LLITTLE'", "mimics 'R_UTHUMB'", "0.7", "0.6"}},
      {"sensor_force_no_contact", 10, {"<force_sensor>", "'link'", "no <contact> points", "(got 'base')"}},
      {"sensor_duplicate_name", 10, {"<force_sensor>", "'name'", "repeats an earlier sensor name", "(got 's')"}},
      // Experiments: <experiment> trials, named <motion>s and <suit>s, <hold>.
      {"trial_unknown_motion", 14, {"<trial>", "'motion'", "names no <motion>", "(got 'lfit')"}},
      // Evaluation settings: a named joint must exist, never a fallback.
      {"motion_fit_joints_unknown", 9, {"<motion>", "'fit_joints'", "no movable joint", "(got 'elbow')"}},
      {"motion_fit_joints_empty", 9, {"<motion>", "'fit_joints'", "names no joint"}},
      {"evaluation_validation_unknown_joint", 15, {"<evaluation>", "'validation_joints'", "no movable joint", "(got 'knee')"}},
      {"evaluation_twice", 16, {"<evaluation>", "only once", "first at line 15"}},
      {"trial_unknown_suit", 17, {"<trial>", "'suit'", "names no <suit>", "(got 'sfot')"}},
      {"trial_purpose_word", 14, {"<trial>", "'purpose'", "evaluation or identification", "(got 'calibration')"}},
      {"trial_identification_with_suit", 18, {"<trial>", "'suit'", "must be none for an identification trial", "(got 'soft')"}},
      {"trial_duplicate_name", 15, {"<trial>", "'name'", "repeats trial 't1'", "(got 't1')"}},
      {"trial_name_with_slash", 15, {"<trial>", "'name'", "letters, digits", "(got '../t2')"}},
      {"trial_name_dotdot", 15, {"<trial>", "'name'", "must not be '.' or '..'", "(got '..')"}},
      {"trial_name_with_space", 14, {"<trial>", "'name'", "letters, digits", "(got 'lift once')"}},
      {"experiment_no_trial", 13, {"<experiment>", "lists no <trial>"}},
      {"experiment_no_robot", 5, {"<experiment>", "needs a <robot>"}},
      {"motion_unnamed_in_experiment", 12, {"<motion>", "needs a name inside an experiment"}},
      {"motion_two_without_experiment", 12, {"<motion>", "only once outside an experiment", "first at line 9"}},
      {"motion_duplicate_name", 12, {"<motion>", "'name'", "repeats an earlier name", "(got 'lift')"}},
      {"motion_name_with_slash", 9, {"<motion>", "'name'", "letters, digits", "(got 'lift/up')"}},
      {"suit_duplicate_name", 15, {"<suit>", "'name'", "repeats an earlier name", "(got 'soft')"}},
      {"suit_missing_name", 12, {"<suit>", "missing required attribute 'name'"}},
      // The first trial wears no suit and no trial wears 'stiff': its band is checked all the same.
      {"suit_band_unknown_link", 16, {"<band>", "'links'", "names no link", "('uper')"}},
      {"suit_band_repeats_robot_band", 14, {"<band>", "'name'", "repeats an earlier band name", "(got 'b')"}},
      // The motion holding it is not the loaded trial's: every <hold> is checked.
      {"hold_unknown_link", 13, {"<hold>", "'link'", "names no link", "(got 'uper')"}},
      {"hold_mass_zero", 10, {"<hold>", "'mass'", "> 0", "(got '0')"}},
      {"payload_mass_huge", 10, {"<payload>", "'mass'", "at most 1000 times the robot's own mass (1.2 kg)", "(got '1e308')"}},
      {"payload_radius_huge", 10, {"<payload>", "'radius'", "moment of inertia", "not finite", "(got '1e200')"}},
      {"hold_mass_negative", 10, {"<hold>", "'mass'", "> 0", "(got '-0.5')"}},
      // Task-space keyframes (scene/src/task_keyframe.h), all on line 17.
      {"keyframe_link_unknown", 17, {"<keyframe>", "'link'", "names no link", "('chest')"}},
      {"keyframe_rpy_without_link", 17, {"<keyframe>", "'rpy'", "needs a link attribute"}},
      {"keyframe_height_without_link", 17, {"<keyframe>", "'height'", "needs a link", "(got '0.5')"}},
      {"keyframe_height_link_without_height", 17, {"<keyframe>", "'height_link'", "needs a height attribute"}},
      {"keyframe_link_without_target", 17, {"<keyframe>", "'link'", "no target", "(got 'torso')"}},
      {"keyframe_feet_alone", 17, {"<keyframe>", "'feet'", "asks nothing else", "(got 'fixed')"}},
      {"keyframe_feet_unknown", 17, {"<keyframe>", "'feet'", "names no link", "('hoof')"}},
      {"keyframe_feet_not_on_ground", 17, {"<keyframe>", "'feet'", "'torso'", "no <contact> point on the ground"}},
      {"keyframe_com_bad", 17, {"<keyframe>", "'com'", "over_feet, inside", "(got 'middle')"}},
      {"keyframe_com_margin_without_inside", 17, {"<keyframe>", "'com_margin'", "needs com=\"inside\""}},
      {"keyframe_com_margin_negative", 17, {"<keyframe>", "'com_margin'", ">= 0", "(got '-0.01')"}},
      {"keyframe_com_margin_too_large", 17, {"<keyframe>", "'com_margin'", "leaves nothing", "(got '0.2')"}},
      {"keyframe_unreachable", 17, {"<keyframe>", "at t=0.1 s: cannot reach", "orientation of 'torso'", "residual"}},
      {"keyframe_fixed_base_com", 17, {"<keyframe>", "'com'", "floating-base", "(got 'over_feet')"}},
      // A worn device (<exoskeleton>, exoskeleton.h).
      {"exo_joint_not_between", 12, {"segment 'cuff'", "joint 'elbow' does not lie between", "'base'", "'upper'"}},
      {"exo_unknown_link", 12, {"<segment>", "'link'", "names no link", "(got 'uper')"}},
      {"exo_segment_without_strap", 12, {"segment 'cuff' has no strap"}},
      {"exo_missing_virtual_gravity", 12, {"<segment>", "missing required attribute 'virtual_gravity'"}},
      {"exo_virtual_gravity_out_of_range", 12, {"<segment>", "'virtual_gravity'", "[0, 1]", "(got '1.5')"}},
      {"exo_root_with_joint", 11, {"<segment>", "'joint'", "the first segment is the device's root"}},
      {"exo_strap_unknown_segment", 16, {"<strap>", "'segment'", "names no segment", "(got 'cufff')"}},
      {"exo_trial_unknown_device", 22, {"<trial>", "'device'", "names no <exoskeleton>", "(got 'devv')"}},
      {"exo_identification_with_device", 22, {"<trial>", "'device'", "must be none for an identification trial"}},
      // Precedence (STYLE.md, Errors): each fixture holds two faults and the
      // more basic one is reported although it comes later in the file.
      {"precedence_unknown_before_missing", 6, {"<particle>", "unknown attribute 'colour'"}},
      {"precedence_missing_before_count", 6, {"<particle>", "missing required attribute 'mass'"}},
      {"precedence_count_before_physical", 6, {"<particle>", "'pos'", "(got '1 0')"}},
  };
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SceneReaderBadInput, ::testing::ValuesIn(badScenes()),
                         [](const ::testing::TestParamInfo<BadScene>& info) { return std::string(info.param.fixture); });

// A fixture nobody asserts on is a bad-input case nobody checks.
TEST(SceneReader, EveryInvalidFixtureHasATest) {
  std::set<std::string> tested;
  for (const BadScene& c : badScenes()) tested.insert(c.fixture);
  for (const auto& entry : fs::directory_iterator(std::string(SUITSIM_SOURCE_DIR) + "/scenes/invalid")) {
    if (entry.path().extension() != ".xml") continue;
    EXPECT_TRUE(tested.count(entry.path().stem().string())) << entry.path() << " has no test";
  }
}

TEST(SceneReader, MissingFileNamesThePath) {
  EXPECT_TRUE(failsWith(invalidScene("does_not_exist"), 0, {"cannot open file"}));
}

TEST(SceneReader, DirectoryIsRefused) {
  EXPECT_TRUE(failsWith(std::string(SUITSIM_SOURCE_DIR) + "/scenes", 0, {"is a directory"}));
}

// ---- the shipped scenes ------------------------------------------------------

// The generator rules of builder.cpp, written as closed forms so that a
// change in the generator shows up here.
int clothSprings(int nu, int nv, bool bending) {
  const int structural = 2 * nu * nv - nu - nv;
  const int shear = 2 * (nu - 1) * (nv - 1);
  const int bend = nv * (nu - 2) + nu * (nv - 2);
  return structural + shear + (bending ? bend : 0);
}

// Each particle joined to its 26 lattice neighbours, each pair counted once:
// 3 axis, 6 face-diagonal and 4 body-diagonal directions.
int blockSprings(int nx, int ny, int nz) {
  const int axis = (nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1);
  const int face = 2 * ((nx - 1) * (ny - 1) * nz + (nx - 1) * ny * (nz - 1) + nx * (ny - 1) * (nz - 1));
  const int body = 4 * (nx - 1) * (ny - 1) * (nz - 1);
  return axis + face + body;
}

int numFixed(const suitsim::Model& m) {
  return static_cast<int>(std::count(m.particle_fixed.begin(), m.particle_fixed.end(), 1));
}

TEST(SceneReader, SpringMassLoads) {
  const auto scene = loadScene(shippedScene("spring_mass"));
  EXPECT_EQ(scene.name, "spring_mass");
  EXPECT_EQ(scene.model.num_particles, 2);
  EXPECT_EQ(scene.model.num_springs, 1);
  EXPECT_EQ(numFixed(scene.model), 1);
  EXPECT_EQ(scene.simulation.integrator, suitsim::Integrator::kVelocityVerlet);
  EXPECT_DOUBLE_EQ(scene.simulation.dt, 1e-4);
  EXPECT_DOUBLE_EQ(scene.simulation.duration, 10.0);
  EXPECT_DOUBLE_EQ(scene.simulation.output_rate, 200.0);
  EXPECT_DOUBLE_EQ(scene.model.spring_rest_length[0], 0.3);  // given, not the initial 0.35
  EXPECT_DOUBLE_EQ(scene.model.spring_stiffness[0], 200.0);
  EXPECT_DOUBLE_EQ(scene.model.gravity[2], 0.0);
  EXPECT_FALSE(scene.model.ground.enabled);
  ASSERT_EQ(scene.channels.size(), 3u);
  EXPECT_EQ(scene.channels[0].kind, suitsim::ChannelSpec::Kind::kParticlePosition);
  EXPECT_EQ(scene.channels[0].index, scene.model.findParticle("bob"));
  EXPECT_EQ(scene.channels[1].kind, suitsim::ChannelSpec::Kind::kSpringTension);
  EXPECT_EQ(scene.channels[1].label, "coil");
  EXPECT_EQ(scene.channels[2].kind, suitsim::ChannelSpec::Kind::kEnergy);
}

TEST(SceneReader, ChainPendulumLoads) {
  const auto scene = loadScene(shippedScene("chain_pendulum"));
  EXPECT_EQ(scene.model.num_particles, 6);
  EXPECT_EQ(scene.model.num_springs, 5);
  EXPECT_EQ(numFixed(scene.model), 1);
  EXPECT_EQ(scene.model.particle_fixed[scene.model.findParticle("pivot")], 1);
  // No rest_length given: each link's rest length is its initial 0.2 m.
  for (int s = 0; s < scene.model.num_springs; ++s) EXPECT_NEAR(scene.model.spring_rest_length[s], 0.2, 1e-12);
  EXPECT_EQ(scene.channels.size(), 3u);
}

TEST(SceneReader, ClothLoads) {
  const auto scene = loadScene(shippedScene("cloth"));
  EXPECT_EQ(scene.model.num_particles, 30 * 30);
  EXPECT_EQ(scene.model.num_springs, clothSprings(30, 30, true));
  EXPECT_EQ(scene.model.num_springs, 5102);  // as the scene's comment says
  EXPECT_EQ(numFixed(scene.model), 2);       // pin="top_corners"
  EXPECT_NE(scene.model.findParticle("cloth.0"), -1);
  EXPECT_NE(scene.model.findParticle("cloth.899"), -1);
  EXPECT_EQ(scene.model.findParticle("cloth.900"), -1);
  ASSERT_EQ(scene.channels.size(), 3u);
  EXPECT_EQ(scene.channels[0].kind, suitsim::ChannelSpec::Kind::kCentreOfMass);
  EXPECT_EQ(scene.channels[0].particles.size(), 900u);
  EXPECT_NEAR(scene.model.totalMass(), 0.5, 1e-12);
}

TEST(SceneReader, BoxDropLoads) {
  const auto scene = loadScene(shippedScene("box_drop"));
  EXPECT_EQ(scene.model.num_particles, 6 * 6 * 6);
  EXPECT_EQ(scene.model.num_springs, blockSprings(6, 6, 6));
  EXPECT_EQ(scene.model.num_springs, 1940);
  EXPECT_EQ(numFixed(scene.model), 0);
  ASSERT_TRUE(scene.model.ground.enabled);
  EXPECT_DOUBLE_EQ(scene.model.ground.mu_static, 0.6);
  EXPECT_DOUBLE_EQ(scene.model.ground.mu_kinetic, 0.4);
  EXPECT_EQ(scene.model.numContacts(), 216);
  EXPECT_NEAR(scene.model.totalMass(), 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(scene.model.particle_initial_velocity.x[0], 2.0);
}

// Every shipped scene loads, including ones added after this test was written.
TEST(SceneReader, EveryShippedSceneLoads) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(std::string(SUITSIM_SOURCE_DIR) + "/scenes")) {
    if (!entry.is_regular_file() || entry.path().extension() != ".xml") continue;
    ++count;
    EXPECT_NO_THROW({
      const auto scene = loadScene(entry.path().string());
      EXPECT_GT(scene.model.num_particles, 0) << entry.path();
    }) << entry.path();
  }
  EXPECT_GE(count, 4);
}

// ---- defaults and references, on scenes written by the test -----------------

class SceneReaderWritten : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / ("suitsim_io_" + std::string(info->name()) + "_" +
                                             std::to_string(static_cast<long>(::getpid())));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }

  fs::path dir_;
};

// docs/commands.md: a line longer than 1 MiB is refused at that line, in
// scenes as in motion CSVs (a file without line breaks would otherwise be
// taken whole). A line of exactly 1 MiB is still read.
TEST_F(SceneReaderWritten, LineOverOneMiBIsRefusedAtItsLine) {
  const std::string head = "<scene>\n  <simulation integrator=\"verlet\" dt=\"1e-3\" duration=\"2\"/>\n";
  const std::string tail = "  <particle name=\"p\" pos=\"0 0 0\" mass=\"1\"/>\n</scene>\n";
  const std::size_t mib = std::size_t{1} << 20;
  auto commentLine = [](std::size_t length) { return "<!--" + std::string(length - 7, 'x') + "-->\n"; };
  EXPECT_NO_THROW(loadScene(write("at_limit.xml", head + commentLine(mib) + tail)));
  const std::string path = write("over_limit.xml", head + commentLine(mib + 1) + tail);
  EXPECT_TRUE(failsWith(path, 3, {"a line longer than 1048576 characters"}));
}

TEST_F(SceneReaderWritten, DefaultsApply) {
  const std::string path = write("plain.xml", R"(<scene>
  <simulation integrator="verlet" dt="1e-3" duration="2"/>
  <particle name="p" pos="0 0 0" mass="1"/>
  <particle name="q" pos="3 4 0" mass="2"/>
  <spring a="p" b="q" stiffness="10"/>
  <ground stiffness="500" mu_static="0.5"/>
</scene>
)");
  const auto scene = loadScene(path);
  EXPECT_EQ(scene.name, "plain");  // the file's stem when <scene> has no name
  EXPECT_EQ(scene.path, path);
  EXPECT_EQ(scene.simulation.integrator, suitsim::Integrator::kVelocityVerlet);  // alias
  EXPECT_DOUBLE_EQ(scene.simulation.output_rate, 100.0);
  EXPECT_EQ(scene.simulation.threads, 0);
  EXPECT_EQ(scene.model.spring_arithmetic, suitsim::SpringArithmetic::kSeparate);
  const auto& m = scene.model;
  EXPECT_EQ(m.gravity, (suitsim::Vec3{0.0, 0.0, -9.81}));  // no <world>
  EXPECT_DOUBLE_EQ(m.spring_rest_length[0], 5.0);          // the initial distance
  EXPECT_DOUBLE_EQ(m.spring_damping[0], 0.0);
  EXPECT_EQ(m.particle_fixed[0], 0);
  EXPECT_DOUBLE_EQ(m.particle_initial_velocity.x[1], 0.0);
  EXPECT_DOUBLE_EQ(m.particle_force_z[1], 0.0);
  EXPECT_DOUBLE_EQ(m.ground.mu_kinetic, 0.5);           // defaults to mu_static
  EXPECT_DOUBLE_EQ(m.ground.friction_stiffness, 500.0);  // defaults to the normal stiffness
  EXPECT_DOUBLE_EQ(m.ground.offset, 0.0);
  EXPECT_EQ(m.numContacts(), 2);  // contact defaults to true
  EXPECT_TRUE(scene.channels.empty());
}

// <simulation arithmetic> reaches the Model the engine steps (docs/engine.md).
TEST_F(SceneReaderWritten, ArithmeticReachesTheModel) {
  const std::string path = write("fused.xml", R"(<scene>
  <simulation integrator="verlet" dt="1e-3" duration="2" arithmetic="fused"/>
  <particle name="p" pos="0 0 0" mass="1"/>
  <particle name="q" pos="3 4 0" mass="2"/>
  <spring a="p" b="q" stiffness="10"/>
</scene>
)");
  const auto scene = loadScene(path);
  EXPECT_EQ(scene.simulation.arithmetic, suitsim::SpringArithmetic::kFused);
  EXPECT_EQ(scene.model.spring_arithmetic, suitsim::SpringArithmetic::kFused);
}

TEST_F(SceneReaderWritten, ParticlesByNameOrIndex) {
  const std::string path = write("refs.xml", R"(<scene name="refs">
  <simulation integrator="rk4" dt="1e-3" duration="1" output_rate="50" threads="2"/>
  <particle name="p" pos="0 0 0" mass="1" fixed="1"/>
  <particle name="q" pos="1 0 0" mass="1" fixed="false"/>
  <particle name="r" pos="2 0 0" mass="1" contact="0"/>
  <spring a="0" b="q" stiffness="10" name="first"/>
  <spring a="q" b="2" stiffness="20" rest_length="0.5"/>
  <record particle="1" quantity="velocity"/>
  <record particle="r" quantity="position"/>
  <record spring="1" quantity="length"/>
  <record spring="first" quantity="tension"/>
</scene>
)");
  const auto scene = loadScene(path);
  const auto& m = scene.model;
  EXPECT_EQ(scene.name, "refs");
  EXPECT_EQ(scene.simulation.integrator, suitsim::Integrator::kRk4);
  EXPECT_EQ(scene.simulation.threads, 2);
  EXPECT_EQ(m.particle_fixed[0], 1);
  EXPECT_EQ(m.particle_fixed[1], 0);
  // Springs are stored sorted by colour; find them by input order.
  const int s0 = m.springIndexFromInput(0);
  const int s1 = m.springIndexFromInput(1);
  EXPECT_EQ(m.spring_a[s0], 0);
  EXPECT_EQ(m.spring_b[s0], 1);
  EXPECT_DOUBLE_EQ(m.spring_stiffness[s0], 10.0);
  EXPECT_EQ(m.spring_a[s1], 1);
  EXPECT_EQ(m.spring_b[s1], 2);
  EXPECT_DOUBLE_EQ(m.spring_rest_length[s1], 0.5);
  ASSERT_EQ(scene.channels.size(), 4u);
  EXPECT_EQ(scene.channels[0].index, 1);
  EXPECT_EQ(scene.channels[0].label, "q");  // labelled by name even when given by index
  EXPECT_EQ(scene.channels[1].index, 2);
  EXPECT_EQ(scene.channels[2].index, s1);
  EXPECT_EQ(scene.channels[3].index, s0);
  EXPECT_EQ(scene.channels[3].label, "first");
}

TEST_F(SceneReaderWritten, RecordMayNameAParticleDefinedLater) {
  // Records are read once the whole model is known, unlike springs.
  const std::string path = write("late.xml", R"(<scene>
  <simulation integrator="rk4" dt="1e-3" duration="1"/>
  <record particle="z" quantity="position"/>
  <particle name="z" pos="0 0 0" mass="1"/>
</scene>
)");
  EXPECT_EQ(loadScene(path).channels.at(0).index, 0);
}

TEST_F(SceneReaderWritten, GeneratedBodiesCanBeReferenced) {
  const std::string path = write("bodies.xml", R"(<scene>
  <simulation integrator="rk4" dt="1e-3" duration="1"/>
  <cloth name="sheet" origin="0 0 1" count="4 3" spacing="0.1" mass="1" stiffness="100" bend_stiffness="5"/>
  <cloth name="flat" origin="0 0 2" count="3 3" spacing="0.1" mass="1" stiffness="100"/>
  <block name="cube" origin="0 0 0" count="2 3 4" spacing="0.1" mass="1" stiffness="100"/>
  <particle name="extra" pos="5 5 5" mass="1"/>
  <spring a="sheet.0" b="extra" stiffness="1"/>
  <record body="cube" quantity="com"/>
  <record particle="cube.23" quantity="position"/>
</scene>
)");
  const auto scene = loadScene(path);
  EXPECT_EQ(scene.model.num_particles, 12 + 9 + 24 + 1);
  EXPECT_EQ(scene.model.num_springs, clothSprings(4, 3, true) + clothSprings(3, 3, false) + blockSprings(2, 3, 4) + 1);
  EXPECT_EQ(scene.channels.at(0).particles.size(), 24u);
  EXPECT_EQ(scene.channels.at(1).index, scene.model.findParticle("cube.23"));
}

// Twenty blocks at the particle cap need about 300 GB: the scene is refused
// at a block's line before that block is built, never with std::bad_alloc;
// readScene builds none of them, so it reads the scene fine. The compile
// builds each lattice before it reads the next, so under the
// machine's memory alone (MemAvailable, 22 GB here) the first block, which
// needs about 15 GB, is built before the second is refused: 50 s and
// gigabytes for a refusal. An address-space limit below the first block's
// need (the compile takes the lower of the two) makes it the one refused, on
// any machine; the limit is lifted again before the test ends.
TEST(SceneReader, SceneBeyondTheMachinesMemoryIsRefusedBeforeBuilding) {
  const std::string path = std::string(SUITSIM_SOURCE_DIR) + "/tests/scene/data/blocks_beyond_memory.xml";
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &saved), 0);
  rlimit limited = saved;
  // The sanitizers reserve terabytes of address space: no limit can hold
  // them, and that build keeps the slow way (the machine's memory decides).
#ifndef SUITSIM_SANITIZE_BUILD
  const rlim_t kFourGigabytes = rlim_t{4} << 30;
  if (limited.rlim_cur == RLIM_INFINITY || limited.rlim_cur > kFourGigabytes) limited.rlim_cur = kFourGigabytes;
#endif
  ASSERT_EQ(setrlimit(RLIMIT_AS, &limited), 0);
  // Reading builds no particle: the scene reads fine under the limit, and
  // only its compile (loadScene = readScene + compileScene) refuses it.
  std::string read_error, m;
  try {
    suitsim::io::readScene(path);
  } catch (const suitsim::io::SceneError& e) {
    read_error = e.what();
  }
  try {
    suitsim::io::loadScene(path);
  } catch (const suitsim::io::SceneError& e) {
    m = e.what();
  }
  ASSERT_EQ(setrlimit(RLIMIT_AS, &saved), 0);
  EXPECT_EQ(read_error, "") << "reading the scene built its particles";
  if (m.empty()) {
    ADD_FAILURE() << "no error";
  } else {
    EXPECT_EQ(m.rfind(path + ":", 0), 0u) << m;
    const int line = std::stoi(m.substr(path.size() + 1));
    EXPECT_GE(line, 4) << m;
    EXPECT_LE(line, 23) << m;
#ifndef SUITSIM_SANITIZE_BUILD
    EXPECT_EQ(line, 4) << m;  // the first block: nothing was built
#endif
    for (const char* f : {"<block>", "'count'", "GB of memory to build and run", "this process can have"}) {
      EXPECT_NE(m.find(f), std::string::npos) << m;
    }
  }
}

}  // namespace
