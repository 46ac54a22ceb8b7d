// The evaluator sees only the a-priori description and the streams (issue:
// "changing the true parameters in a scene without re-running the
// simulation changes nothing in the identification output"). The tiny
// experiment is simulated once; identify then reads the same streams with
// the original scene and with copies whose truth (hidden payload, joint
// friction, Stribeck, band stiffness) is changed: identification.json must
// be byte-identical. A copy with a changed a-priori set must differ, so the
// comparison can fail.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.h"

namespace {

namespace fs = std::filesystem;
using suitsim::testing::quoted;
using suitsim::testing::readFile;
using suitsim::testing::sourcePath;

class IdentifyTruth : public suitsim::testing::CliTest {
 protected:
  /// A copy of the tiny scene with `from` replaced by `to` (must occur).
  fs::path variant(const std::string& name, const std::string& from, const std::string& to) {
    std::string text = readFile(sourcePath("tests/cli/data/tiny_experiment.xml"));
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    const fs::path path = dir_ / (name + ".xml");
    std::ofstream(path) << text;
    return path;
  }

  std::string identify(const fs::path& scene, const fs::path& streams, const std::string& name) {
    const fs::path out = dir_ / ("id_" + name);
    const auto r = run({"identify", "--scene", scene.string(), "--streams", streams.string(), "--out", out.string(),
                        "--quiet"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return readFile(out / "identification.json");
  }
};

TEST_F(IdentifyTruth, ChangingOnlyTheTruthChangesNothing) {
  const fs::path streams = dir_ / "streams";
  const auto ran = run({"run", sourcePath("tests/cli/data/tiny_experiment.xml"), "--out", streams.string(),
                        "--quiet"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  const std::string original = identify(sourcePath("tests/cli/data/tiny_experiment.xml"), streams, "original");
  ASSERT_FALSE(original.empty());

  // Truth only: the hidden payload (not in the a-priori set), the joints'
  // friction (the a-priori set has none), Stribeck, the suit's stiffness.
  const fs::path heavier = variant("heavier", R"(<payload link="box" mass="0.5")", R"(<payload link="box" mass="1.7")");
  const fs::path friction = variant("friction", R"(viscous="0.02" coulomb="0.02" static="0.03")",
                                    R"(viscous="0.2" coulomb="0.1" static="0.3" stribeck_velocity="0.05")");
  const fs::path stiffer = variant("stiffer", R"(stiffness="80")", R"(stiffness="800")");
  EXPECT_EQ(identify(heavier, streams, "heavier"), original);
  EXPECT_EQ(identify(friction, streams, "friction"), original);
  EXPECT_EQ(identify(stiffer, streams, "stiffer"), original);

  // The a-priori set is what the evaluator starts from: changing it shows.
  const fs::path apriori = variant("apriori", R"(motor_constant_scale="1.05")", R"(motor_constant_scale="1.2")");
  EXPECT_NE(identify(apriori, streams, "apriori"), original);
}

}  // namespace
