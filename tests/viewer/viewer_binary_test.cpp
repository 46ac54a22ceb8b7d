// The real suitsim-view binary: bad input at startup (no display needed,
// the scene is read before any window opens), and headless pictures under
// xvfb-run, decoded and checked pixel by pixel: the robot is there, the
// suit's bands are there in their tension colours, and the picture is a
// rendered scene, not a blank or one-colour frame.
#include <gtest/gtest.h>
#include <stb_image.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

bool haveXvfbRun() { return std::system("command -v xvfb-run >/dev/null 2>&1") == 0; }

class ViewerBinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("suitsim_view_bin_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(static_cast<long>(::getpid())));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);  // kept to look at when a check failed
  }

  // Runs the viewer from the source tree (scene paths as a user types them),
  // under xvfb-run when asked.
  Result run(const std::vector<std::string>& args, bool under_xvfb) {
    // Appended piece by piece: "literal" + std::string&& trips GCC 12's
    // false -Wrestrict warning.
    std::string command = "cd ";
    command.append(quoted(SUITSIM_SOURCE_DIR)).append(" && ");
    if (under_xvfb) command.append("xvfb-run -a -s '-screen 0 1280x800x24' ");
    command.append(quoted(SUITSIM_VIEW_BINARY));
    for (const std::string& a : args) command.append(" ").append(quoted(a));
    const fs::path err = dir_ / "stderr.txt";
    command.append(" >").append(quoted((dir_ / "stdout.txt").string()));
    command.append(" 2>").append(quoted(err.string())).append(" </dev/null");
    const int status = std::system(command.c_str());
    Result r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + status;
    r.out = readFile(dir_ / "stdout.txt");
    r.err = readFile(err);
    return r;
  }

  fs::path dir_;
};

TEST_F(ViewerBinaryTest, ABadSceneAtStartupExitsWithTwoNamingFileAndLine) {
  const Result r = run({"scenes/invalid/mass_negative.xml"}, false);
  EXPECT_EQ(r.exit_code, 2);
  // The scene reader's own message: path:line: <element> problem.
  EXPECT_NE(r.err.find("error: scenes/invalid/mass_negative.xml:5:"), std::string::npos) << r.err;
}

TEST_F(ViewerBinaryTest, AMissingSceneExitsWithTwo) {
  const Result r = run({"scenes/no_such_scene.xml"}, false);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("scenes/no_such_scene.xml"), std::string::npos) << r.err;
}

// The options are parsed before the scene is read and before any window
// opens, so none of this needs a display. The messages come from the command
// line `suitsim` has (cli/options): the option, what is wrong, the usage.
TEST_F(ViewerBinaryTest, BadOptionsExitWithTwoNamingTheOption) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"scenes/spring_mass.xml", "--frames", "zero"}, "--frames: needs a whole number >= 1 (got 'zero')"},
      {{"scenes/spring_mass.xml", "--frames", "0"}, "--frames: needs a whole number >= 1 (got '0')"},
      {{"scenes/spring_mass.xml", "--bogus"}, "not expected: --bogus"},
      {{"scenes/spring_mass.xml", "--threads", "0"}, "--threads: needs a whole number from 1 to 1024 (got '0')"},
      {{"scenes/spring_mass.xml", "--time", "-1"}, "--time: needs a number >= 0 (got '-1')"},
      {{"scenes/spring_mass.xml", "--speed", "2000"}, "--speed: needs a number > 0 and <= 1000 (got '2000')"},
      {{"scenes/spring_mass.xml", "--size", "32x32"}, "--size: needs WxH, 64 to 8192 pixels each (got '32x32')"},
      {{"scenes/spring_mass.xml", "--camera", "0,95,1"}, "--camera: needs AZ,EL,DIST"},
      {{"scenes/spring_mass.xml", "--screenshot", ""}, "--screenshot: needs a non-empty OUT.png (got '')"},
      {{"scenes/spring_mass.xml", "--trial"}, "--trial: 1 required NAME missing"},
      {{}, "SCENE is required"},
  };
  for (const auto& [args, message] : cases) {
    SCOPED_TRACE(message);
    const Result r = run(args, false);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.rfind("suitsim-view: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("usage: suitsim-view SCENE"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST_F(ViewerBinaryTest, HelpExitsWithZeroAndListsTheOptions) {
  for (const char* help : {"--help", "-h"}) {
    const Result r = run({help}, false);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    for (const char* option : {"usage: suitsim-view SCENE", "--trial NAME", "--frames N", "--screenshot OUT.png",
                               "--time S", "--speed X", "--size WxH", "--camera AZ,EL,DIST", "--threads N",
                               "--no-ui", "exit codes"}) {
      EXPECT_NE(r.out.find(option), std::string::npos) << option << "\n" << r.out;
    }
  }
}

// ---- pictures ------------------------------------------------------------------

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;
};

Image loadPng(const fs::path& path) {
  Image img;
  int channels = 0;
  unsigned char* data = stbi_load(path.c_str(), &img.width, &img.height, &channels, 3);
  if (data) {
    img.rgb.assign(data, data + static_cast<std::size_t>(img.width) * img.height * 3);
    stbi_image_free(data);
  }
  return img;
}

struct Hsv {
  float h, s, v;  // degrees, 0..1, 0..1
};

Hsv toHsv(const unsigned char* p) {
  const float r = p[0] / 255.0f, g = p[1] / 255.0f, b = p[2] / 255.0f;
  const float hi = std::max({r, g, b}), lo = std::min({r, g, b}), d = hi - lo;
  float h = 0.0f;
  if (d > 0.0f) {
    if (hi == r)
      h = 60.0f * std::fmod((g - b) / d + 6.0f, 6.0f);
    else if (hi == g)
      h = 60.0f * ((b - r) / d + 2.0f);
    else
      h = 60.0f * ((r - g) / d + 4.0f);
  }
  return {h, hi > 0.0f ? d / hi : 0.0f, hi};
}

// The viewer's colours, as scene_draw.cpp sets them: bands from green
// (slack, hue 120) to red (hue 0) at saturation 0.85; links steel blue
// (hue ~220, saturation 0.3), which nothing else in the 3-D view shares
// (the background's blue-grey stays below saturation 0.16, the ground is grey).
bool isBand(const Hsv& c) { return c.h <= 125.0f && c.s >= 0.6f && c.v >= 0.35f; }
bool isTautBand(const Hsv& c) { return c.h <= 75.0f && c.s >= 0.6f && c.v >= 0.35f; }  // yellow to red
bool isRedBand(const Hsv& c) { return c.h <= 30.0f && c.s >= 0.6f && c.v >= 0.35f; }
bool isYellowBand(const Hsv& c) { return c.h >= 45.0f && c.h <= 75.0f && c.s >= 0.6f && c.v >= 0.35f; }
bool isLink(const Hsv& c) { return c.h >= 200.0f && c.h <= 240.0f && c.s >= 0.2f && c.s <= 0.6f && c.v >= 0.3f; }

TEST_F(ViewerBinaryTest, HeadlessPictureShowsTheRobotAndItsBandsInTensionColours) {
  if (!haveXvfbRun()) GTEST_SKIP() << "xvfb-run is not installed (apt-get install xvfb xauth)";
  const fs::path png = dir_ / "suit.png";
  // 3 s into the bend (fast-forwarded), then 12 frames of 1/12 s each: the
  // bands are stretched, so they show warm colours, not only the slack green.
  // The 3-D view alone (--no-ui): the tension legend in the controls holds
  // every band colour and would pass the check by itself.
  const Result r = run({"scenes/jvrc1_bend_suit.xml", "--time", "3", "--frames", "12", "--speed", "5", "--no-ui",
                        "--screenshot", png.string()},
                       true);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Image img = loadPng(png);
  ASSERT_EQ(img.width, 1280);
  ASSERT_EQ(img.height, 800);

  std::unordered_map<std::uint32_t, long> histogram;
  long band = 0, taut = 0, red = 0, yellow = 0, link_middle = 0, middle = 0;
  for (int y = 0; y < img.height; ++y) {
    for (int x = 0; x < img.width; ++x) {
      const unsigned char* p = &img.rgb[3 * (static_cast<std::size_t>(y) * img.width + x)];
      ++histogram[(std::uint32_t(p[0]) << 16) | (std::uint32_t(p[1]) << 8) | p[2]];
      const Hsv c = toHsv(p);
      band += isBand(c);
      taut += isTautBand(c);
      red += isRedBand(c);
      yellow += isYellowBand(c);
      // The middle of the picture, where the camera frames the robot.
      if (x > img.width * 3 / 10 && x < img.width * 7 / 10 && y > img.height / 10 && y < img.height * 9 / 10) {
        ++middle;
        link_middle += isLink(c);
      }
    }
  }
  long most_common = 0;
  for (const auto& [colour, count] : histogram) most_common = std::max(most_common, count);
  const long pixels = static_cast<long>(img.width) * img.height;
  std::printf(
      "%zu colours (most common %ld of %ld pixels), %ld band pixels (%ld yellow to red: %ld red, %ld "
      "yellow), %ld of %ld middle pixels link-coloured\n",
      histogram.size(), most_common, pixels, band, taut, red, yellow, link_middle, middle);

  // Not blank, not one colour: shading, ground, shadows give thousands.
  EXPECT_GT(histogram.size(), 2000u);
  EXPECT_LT(most_common, pixels / 2);
  // The robot: a good share of the middle is link-coloured.
  EXPECT_GT(link_middle, middle / 20) << link_middle << " link pixels of " << middle;
  // The four bands, taut in the bend: yellow to red, not just slack green.
  // At t = 4 s the type-A bands pull about 17 N on a scale that is red at
  // 20.1 N (197.8 N/m x 1/16 of the robot's 1.62 m), the type-B bands about
  // 10 N: both colours show.
  EXPECT_GT(band, 1500) << "band-coloured pixels";
  EXPECT_GT(taut, 1000) << "yellow-to-red band pixels";
  EXPECT_GT(red, 500) << "red (type-A band) pixels";
  EXPECT_GT(yellow, 300) << "yellow (type-B band) pixels";
}

TEST_F(ViewerBinaryTest, HeadlessPictureWithTheControlsAndPlots) {
  if (!haveXvfbRun()) GTEST_SKIP() << "xvfb-run is not installed (apt-get install xvfb xauth)";
  const fs::path png = dir_ / "ui.png";
  const Result r = run({"scenes/cloth.xml", "--frames", "4", "--size", "800x500", "--screenshot", png.string()}, true);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Image img = loadPng(png);
  ASSERT_EQ(img.width, 800);
  ASSERT_EQ(img.height, 500);
  // ImGui's dark windows (title bars in its blue) sit in the top corners.
  long title_blue = 0;
  for (int y = 0; y < 40; ++y) {
    for (int x = 0; x < img.width; ++x) {
      const Hsv c = toHsv(&img.rgb[3 * (static_cast<std::size_t>(y) * img.width + x)]);
      title_blue += c.h > 200.0f && c.h < 225.0f && c.s > 0.45f && c.v > 0.25f;
    }
  }
  EXPECT_GT(title_blue, 500);
}

TEST_F(ViewerBinaryTest, OpensARealWindowUnderXvfb) {
  if (!haveXvfbRun()) GTEST_SKIP() << "xvfb-run is not installed (apt-get install xvfb xauth)";
  // Not headless: a visible GLFW window, drawn and swapped a few times.
  const Result r = run({"scenes/spring_mass.xml", "--frames", "5", "--size", "640x400"}, true);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
