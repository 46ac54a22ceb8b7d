// The viewer steps a scene exactly as `suitsim run` does (servo update, then
// step), and its plot channels read the engine's own values.
#include "simulation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "plot_data.h"
#include "suitsim/servo.h"

namespace suitsim::viewer {
namespace {

const std::string kSuitScene = std::string(SUITSIM_SOURCE_DIR) + "/scenes/jvrc1_bend_suit.xml";

TEST(Simulation, StepsBitForBitLikeTheCommandLine) {
  io::Scene scene = io::loadScene(kSuitScene);
  // The command line's loop (cli/run_command.cpp), written out.
  State state = makeState(scene.model);
  Workspace ws(scene.model, 1);
  JointServo servo(scene.model, state, scene.robot->motion, scene.robot->gains, scene.robot->servo_rate);
  for (int k = 0; k < 300; ++k) {
    servo.update(scene.model, state);
    step(scene.model, state, ws, scene.simulation.integrator, scene.simulation.dt);
  }

  Simulation sim(std::move(scene), 1);
  EXPECT_EQ(sim.advanceTo(300 * sim.dt(), -1.0), 300);
  EXPECT_EQ(sim.steps(), 300);
  EXPECT_NEAR(sim.state().time, state.time, 1e-12);
  for (int i = 0; i < sim.model().num_particles; ++i) {
    ASSERT_EQ(sim.state().position.x[i], state.position.x[i]) << "particle " << i;
    ASSERT_EQ(sim.state().position.z[i], state.position.z[i]) << "particle " << i;
  }
  for (int b = 0; b < sim.model().num_bands; ++b) EXPECT_EQ(sim.workspace().band_tension[b], ws.band_tension[b]);
}

TEST(Simulation, ResetReturnsToTheInitialState) {
  Simulation sim(io::loadScene(kSuitScene), 1);
  sim.stepCount(50);
  EXPECT_GT(sim.state().time, 0.0);
  sim.reset();
  EXPECT_EQ(sim.state().time, 0.0);
  EXPECT_EQ(sim.steps(), 0);
  for (int i = 0; i < sim.model().num_particles; ++i) {
    EXPECT_EQ(sim.state().position.z[i], sim.model().particle_initial_position.z[i]);
  }
}

TEST(Simulation, AWallClockBudgetStopsEarly) {
  Simulation sim(io::loadScene(kSuitScene), 1);
  // Ten simulated seconds cannot run in a millisecond of wall time.
  const long taken = sim.advanceTo(10.0, 1e-3);
  EXPECT_GT(taken, 0);
  EXPECT_LT(sim.state().time, 10.0);
}

TEST(PlotData, OffersEachKindOfChannelForTheSuitScene) {
  const io::Scene scene = io::loadScene(kSuitScene);
  const std::vector<PlotChannel> channels = availableChannels(scene);
  auto has = [&](const std::string& name) {
    for (const PlotChannel& c : channels) {
      if (c.name == name) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("WAIST_P angle [rad]"));
  EXPECT_TRUE(has("WAIST_P motor torque [N m]"));
  EXPECT_TRUE(has("bandA_R tension [N]"));
  EXPECT_TRUE(has("R_ANKLE_P_S ground force [N]"));
  EXPECT_TRUE(has("total ground force [N]"));
  EXPECT_TRUE(has("bandA_R.tension[N]"));  // the scene's own <record> column
}

TEST(PlotData, SamplesTheEngineValuesAtItsRate) {
  Simulation sim(io::loadScene(kSuitScene), 1);
  PlotData plots;
  plots.setScene(sim.scene());
  // Defaults: the motion's first joint (WAIST_P) and the bands, among others.
  ASSERT_FALSE(plots.selected().empty());
  sim.advanceTo(0.5, -1.0, [&](const Simulation& s) { plots.sample(s.scene(), s.state(), s.workspace()); });
  // 100 samples/s: at the first step (t = 0.0001), then t = 0.01, 0.02, ..., 0.5.
  for (const PlotHistory& h : plots.histories()) EXPECT_EQ(h.count, 51);
  const Model& model = sim.model();
  for (std::size_t k = 0; k < plots.selected().size(); ++k) {
    const PlotChannel& c = plots.channels()[plots.selected()[k]];
    const float latest = plots.histories()[k].latest;
    if (c.kind == PlotChannel::Kind::kJointAngle) {
      EXPECT_FLOAT_EQ(latest, static_cast<float>(jointAngle(model, sim.state(), c.index)));
    } else if (c.kind == PlotChannel::Kind::kBandTension) {
      EXPECT_FLOAT_EQ(latest, static_cast<float>(sim.workspace().band_tension[c.index]));
    } else if (c.kind == PlotChannel::Kind::kJointTorque) {
      EXPECT_FLOAT_EQ(latest, static_cast<float>(sim.workspace().hinge_motor_torque[c.index]));
    }
  }
  // The robot touches the ground with its two feet only: their channels
  // add up to the engine's total ground force (its vertical part).
  double feet = 0.0;
  int num_feet = 0;
  for (std::size_t k = 0; k < plots.selected().size(); ++k) {
    const PlotChannel& c = plots.channels()[plots.selected()[k]];
    if (c.kind == PlotChannel::Kind::kContactForce && c.index >= 0) feet += plots.histories()[k].latest, ++num_feet;
  }
  EXPECT_EQ(num_feet, 2);
  const double total = totalGroundForce(model, sim.state())[2];
  EXPECT_NEAR(feet, total, 1e-4 * total);
  EXPECT_GT(total, 0.5 * model.totalMass() * 9.81);  // standing on them, bouncing a little
}

TEST(PlotData, AReloadKeepsTheChosenChannels) {
  const io::Scene scene = io::loadScene(kSuitScene);
  PlotData plots;
  plots.setScene(scene);
  const std::string first = plots.channels()[plots.selected().front()].name;
  const io::Scene again = io::loadScene(kSuitScene);
  plots.setScene(again);
  EXPECT_EQ(plots.channels()[plots.selected().front()].name, first);
}

}  // namespace
}  // namespace suitsim::viewer
