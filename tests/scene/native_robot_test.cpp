// A robot written in the scene (<link>, <joint>) and the same robot in a URDF
// file build the same description and the same particle model.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "suitsim/scene/scene.h"

namespace suitsim::io {
namespace {

const std::string kData = SUITSIM_SOURCE_DIR "/tests/scene/data/";

// A scene written elsewhere (a sweep's point) finds its robot through the
// root's relative_to, absolute or relative to the scene's own folder; without
// it the same file's robot is looked for beside the scene.
TEST(NativeRobot, RelativeToMovesWhereTheScenesFilesAreFound) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "suitsim_relative_to";
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& root_attrs) {
    std::ofstream(dir / name) << "<?xml version=\"1.0\"?>\n<scene name=\"moved\"" << root_attrs
                              << ">\n  <simulation integrator=\"velocity_verlet\" dt=\"1e-4\" duration=\"0.1\"/>\n"
                                 "  <robot urdf=\"arm.urdf\" base=\"fixed\"/>\n</scene>\n";
    return (dir / name).string();
  };
  const Scene absolute = loadScene(write("absolute.xml", " relative_to=\"" + kData + "\""));
  ASSERT_TRUE(absolute.robot);
  EXPECT_EQ(absolute.robot->truth.links.size(), loadScene(kData + "arm_urdf_scene.xml").robot->truth.links.size());
  const std::string up = std::filesystem::relative(kData, dir).string();
  EXPECT_TRUE(loadScene(write("relative.xml", " relative_to=\"" + up + "\"")).robot);
  try {
    loadScene(write("plain.xml", ""));
    ADD_FAILURE() << "the robot was found without relative_to";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "arm.urdf").string()), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(NativeRobot, SameTreeAsTheEquivalentUrdf) {
  const Scene from_urdf = loadScene(kData + "arm_urdf_scene.xml");
  const Scene native = loadScene(kData + "arm_native_scene.xml");
  ASSERT_TRUE(from_urdf.robot && native.robot);
  const RobotDescription& a = from_urdf.robot->truth;
  const RobotDescription& b = native.robot->truth;
  ASSERT_EQ(a.links.size(), b.links.size());
  ASSERT_EQ(a.joints.size(), b.joints.size());
  EXPECT_EQ(a.root_link, b.root_link);
  for (std::size_t l = 0; l < a.links.size(); ++l) {
    EXPECT_EQ(a.links[l].name, b.links[l].name);
    EXPECT_EQ(a.links[l].parent_joint, b.links[l].parent_joint);
    EXPECT_DOUBLE_EQ(a.links[l].inertial.mass, b.links[l].inertial.mass);
    for (int k = 0; k < 3; ++k) EXPECT_DOUBLE_EQ(a.links[l].inertial.com[k], b.links[l].inertial.com[k]);
    for (int k = 0; k < 6; ++k) EXPECT_DOUBLE_EQ(a.links[l].inertial.inertia[k], b.links[l].inertial.inertia[k]);
  }
  for (std::size_t j = 0; j < a.joints.size(); ++j) {
    EXPECT_EQ(a.joints[j].name, b.joints[j].name);
    EXPECT_EQ(a.joints[j].type, b.joints[j].type);
    EXPECT_EQ(a.joints[j].parent_link, b.joints[j].parent_link);
    EXPECT_EQ(a.joints[j].child_link, b.joints[j].child_link);
    for (int k = 0; k < 3; ++k) {
      EXPECT_DOUBLE_EQ(a.joints[j].origin_xyz[k], b.joints[j].origin_xyz[k]);
      EXPECT_DOUBLE_EQ(a.joints[j].origin_rpy[k], b.joints[j].origin_rpy[k]);
      EXPECT_NEAR(a.joints[j].axis[k], b.joints[j].axis[k], 1e-15);
    }
    EXPECT_EQ(a.joints[j].lower, b.joints[j].lower);
    EXPECT_EQ(a.joints[j].upper, b.joints[j].upper);
  }
  // And the particle models are the same to the bit.
  const Model& ma = from_urdf.model;
  const Model& mb = native.model;
  ASSERT_EQ(ma.num_particles, mb.num_particles);
  ASSERT_EQ(ma.num_hinges, mb.num_hinges);
  EXPECT_EQ(std::memcmp(ma.particle_initial_position.x.data(), mb.particle_initial_position.x.data(),
                        sizeof(double) * ma.num_particles),
            0);
  EXPECT_EQ(std::memcmp(ma.particle_mass.data(), mb.particle_mass.data(), sizeof(double) * ma.num_particles), 0);
}

}  // namespace
}  // namespace suitsim::io
