// The viewer sizes its glyphs from the scene, not from constants tuned to
// one robot: the scales are measured from the model, and a robot scaled by
// s (masses by s^3) is drawn exactly scaled by s, its forces and band
// tensions on scales that follow its weight.
#include "scene_draw.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "suitsim/scene/scene.h"
#include "suitsim/state.h"
#include "suitsim/step.h"

namespace suitsim::viewer {
namespace {

const std::string kSource = SUITSIM_SOURCE_DIR;
const std::string kJvrc = kSource + "/scenes/jvrc1_bend_suit.xml";
// The same scene made geometrically and dynamically similar at 1/3 (its
// URDF written by tests/viewer/data/scale_urdf.py).
const std::string kJvrcThird = kSource + "/tests/viewer/data/jvrc1_third_bend_suit.xml";
constexpr double kThird = 1.0 / 3.0;

TEST(GlyphScales, ABoxIsMeasuredByItsSideAndItsWeight) {
  // 6 x 6 x 6 particles 0.02 m apart (0.1 m a side), 1 kg, g = 9.81, no bands.
  const io::Scene box = io::loadScene(kSource + "/scenes/box_drop.xml");
  const GlyphScales s = glyphScales(box.model);
  EXPECT_NEAR(s.length, 0.1, 1e-12);
  EXPECT_NEAR(s.weight, 9.81, 1e-9);
  EXPECT_EQ(s.tension, 0.0);
  // The whole weight would draw an arrow as long as the box; the tension
  // colour keeps its default where there is no band.
  const DrawStyle style = defaultStyle(s);
  EXPECT_NEAR(style.force_scale * s.weight, s.length, 1e-6);
  EXPECT_EQ(style.tension_scale, DrawStyle{}.tension_scale);
}

TEST(GlyphScales, ARobotIsMeasuredByItsHeightItsWeightAndItsStiffestBand) {
  const io::Scene scene = io::loadScene(kJvrc);
  const GlyphScales s = glyphScales(scene.model);
  // Its weight: the description's links and payloads, an independent sum.
  EXPECT_NEAR(s.weight, scene.robot->truth.totalMass() * 9.81, 1e-6 * s.weight);
  // Standing on the ground (soles at z = 0), it is as long as it is tall:
  // the top of the highest particle.
  double top = 0.0;
  for (int i = 0; i < scene.model.num_particles; ++i) top = std::max(top, scene.model.particle_initial_position.z[i]);
  EXPECT_NEAR(s.length, top, 1e-9);
  EXPECT_GT(s.length, 1.0);
  EXPECT_LT(s.length, 2.0);
  // Red at the 197.8 N/m bands stretched by 1/16 of the height.
  EXPECT_NEAR(s.tension, 197.8 * s.length / 16.0, 1e-9);
}

TEST(GlyphScales, ARobotScaledByAThirdHasAThirdOfTheLengthAndTheWeightOfOneOf27) {
  const GlyphScales big = glyphScales(io::loadScene(kJvrc).model);
  const GlyphScales small = glyphScales(io::loadScene(kJvrcThird).model);
  // (The scene's contact points carry five digits: 2e-7 off a third.)
  EXPECT_NEAR(small.length / big.length, kThird, 1e-6);
  EXPECT_NEAR(small.weight / big.weight, kThird * kThird * kThird, 1e-6);
  // Band stiffness x 1/9 (a similar suit), stretch x 1/3: tension like weight.
  EXPECT_NEAR(small.tension / big.tension, kThird * kThird * kThird, 1e-4);
  EXPECT_NEAR(small.length, 0.5, 0.05) << "the small robot is about half a metre tall";
}

// Everything the viewer draws for a scene with every layer on, the robot
// sunk by `sink` of its length into the ground (so that every contact pushes
// back) and each band pulling as if stretched by a share of the length.
DrawList drawSunk(const io::Scene& scene, double sink) {
  const SceneDrawing drawing(scene);
  const GlyphScales& scales = drawing.scales();
  State state = makeState(scene.model);
  for (int i = 0; i < scene.model.num_particles; ++i) state.position.z[i] -= sink * scales.length;
  Workspace ws(scene.model, 1);
  for (int b = 0; b < scene.model.num_bands; ++b)
    ws.band_tension[b] = scene.model.band_stiffness[b] * (0.01 + 0.015 * b) * scales.length;
  // Every layer but the particles: a link whose inertia has three equal
  // moments may have its four particles turned any way about its centre,
  // and the two robots' are turned differently. (The rods, markers and
  // soles are points fixed in the link, the same wherever its particles are.)
  Layers all;
  all.particles = false;
  all.springs = true;
  DrawList list;
  drawing.build(scene, state, ws, all, defaultStyle(scales), &list);
  return list;
}

void expectScaled(const std::vector<Instance>& big, const std::vector<Instance>& small, double s, double length,
                  const char* what) {
  ASSERT_EQ(big.size(), small.size()) << what;
  for (std::size_t i = 0; i < big.size(); ++i) {
    // The model matrix maps the unit shape: its linear part holds the
    // glyph's size, its last column its place; both scale by s about the
    // origin, where the robot stands.
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 4; ++c) {
        ASSERT_NEAR(small[i].model.at(r, c), s * big[i].model.at(r, c), 1e-4 * length)
            << what << " " << i << " entry (" << r << ", " << c << ")";
      }
    }
    ASSERT_NEAR(small[i].colour.r, big[i].colour.r, 1e-4) << what << " " << i;
    ASSERT_NEAR(small[i].colour.g, big[i].colour.g, 1e-4) << what << " " << i;
    ASSERT_NEAR(small[i].colour.b, big[i].colour.b, 1e-4) << what << " " << i;
  }
}

TEST(SceneDrawing, ARobotScaledByAThirdIsDrawnScaledByAThird) {
  const io::Scene big_scene = io::loadScene(kJvrc), small_scene = io::loadScene(kJvrcThird);
  const DrawList big = drawSunk(big_scene, 0.002), small = drawSunk(small_scene, 0.002);
  const double length = SceneDrawing(small_scene).scales().length;
  // Links, joints, soles, particles, via points, band segments, contact
  // markers: all there, each a third the size and at a third the distance.
  // The arrows too: the small robot's contact forces are 1/27 (ground
  // stiffness x 1/9, penetration x 1/3) on a scale 9 times longer per newton.
  EXPECT_GT(big.cones.size(), 0u) << "contact arrows drawn";
  EXPECT_GT(big.boxes.size(), 0u) << "soles drawn";
  expectScaled(big.spheres, small.spheres, kThird, length, "sphere");
  expectScaled(big.cylinders, small.cylinders, kThird, length, "cylinder");
  expectScaled(big.cones, small.cones, kThird, length, "cone");
  expectScaled(big.boxes, small.boxes, kThird, length, "box");
  // Band colours: each band pulls the same share of the reference tension
  // on both robots (0.16 to 0.88 of it), so the colours match, as checked
  // above; and they differ from band to band, so that check means something.
  std::vector<Colour> colours;
  for (const Instance& a : big.cylinders) {
    bool seen = false;
    for (const Colour& c : colours)
      seen |= std::fabs(c.r - a.colour.r) + std::fabs(c.g - a.colour.g) + std::fabs(c.b - a.colour.b) < 0.02f;
    if (!seen) colours.push_back(a.colour);
  }
  EXPECT_GE(colours.size(), 6u) << "links, centre of mass and four band colours";
}

TEST(SceneDrawing, TheGroundCheckerFollowsTheSceneSize) {
  const io::Scene big_scene = io::loadScene(kJvrc), small_scene = io::loadScene(kJvrcThird);
  const GroundPlane big = SceneDrawing(big_scene).groundPlane(big_scene.model);
  const GroundPlane small = SceneDrawing(small_scene).groundPlane(small_scene.model);
  // Squares a power of two near a quarter of the radius: a third of the
  // size rounds to a half or a quarter of the square.
  EXPECT_TRUE(small.square == 0.5f * big.square || small.square == 0.25f * big.square) << small.square;
}

}  // namespace
}  // namespace suitsim::viewer
