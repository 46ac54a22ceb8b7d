// step() allocates nothing: the global operator new is replaced by a
// counting one, and the count must not move across many steps of every
// integrator, on one and two threads, with springs and ground contacts.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "robots.h"
#include "run_helpers.h"
#include "suitsim/articulated.h"
#include "suitsim/balance_assist.h"
#include "suitsim/builder.h"
#include "suitsim/exoskeleton.h"
#include "suitsim/scene/scene.h"
#include "suitsim/sensors.h"
#include "suitsim/servo.h"
#include "suitsim/recorder.h"
#include "suitsim/step.h"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
// Every form that pairs with the deletes above goes through malloc too:
// std::stable_sort's temporary buffer is a nothrow new, and under
// AddressSanitizer a runtime-provided new freed here is a mismatch.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return operator new(size, tag); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace suitsim {
namespace {

// Steps `model` with every integrator: 5 steps first (scratch may grow
// once), then `steps` more, each after `drive(state, k)`, which must
// allocate nothing. Returns each integrator's last state for checks.
template <class Drive>
std::vector<State> expectStepsAllocateNothing(const Model& model, double dt, int steps, Drive drive) {
  std::vector<State> last;
  for (Integrator integrator : {Integrator::kSemiImplicitEuler, Integrator::kVelocityVerlet, Integrator::kRk4,
                                     Integrator::kPositionVerlet}) {
    State state = makeState(model);
    Workspace ws(model);
    for (int k = 0; k < 5; ++k) step(model, state, ws, integrator, dt);
    const long before = g_allocations.load();
    for (int k = 0; k < steps; ++k) {
      drive(state, k);
      step(model, state, ws, integrator, dt);
    }
    EXPECT_EQ(g_allocations.load() - before, 0) << integratorName(integrator);
    last.push_back(std::move(state));
  }
  return last;
}

// Static friction holding and giving way: the first hinge's current
// reverses every 50 steps.
auto alternatingCurrent(double amps) {
  return [amps](State& state, int k) { state.hinge_current[0] = (k / 50) % 2 == 0 ? amps : -amps; };
}

TEST(Allocation, StepAllocatesNothing) {
  ModelBuilder b;
  b.setGround(testing::groundModel(5e3, 0.0, 0.6, 0.4));
  b.addBlock({.name = "box", .origin = {0, 0, 0.01}, .nx = 16, .ny = 16, .nz = 8, .spacing = 0.01, .mass = 1.0,
              .stiffness = 3e3, .damping = 0.5, .velocity = {1.0, 0, -0.5}});
  const Model model = b.build();
  ASSERT_GE(model.num_springs + model.num_particles, 20000);  // large enough for the parallel path too
  for (int threads : {1, 2}) {
    for (Integrator integrator : {Integrator::kSemiImplicitEuler, Integrator::kVelocityVerlet, Integrator::kRk4,
                                       Integrator::kPositionVerlet}) {
      State state = makeState(model);
      Workspace ws(model, threads);
      for (int k = 0; k < 5; ++k) step(model, state, ws, integrator, 1e-5);  // let OpenMP set up its team
      const long before = g_allocations.load();
      for (int k = 0; k < 200; ++k) step(model, state, ws, integrator, 1e-5);
      EXPECT_EQ(g_allocations.load() - before, 0) << integratorName(integrator) << " threads " << threads;
    }
  }
}

// Logging the sensors, the ideal logger's windows and the causal chain
// (filters, jittered instants, bias walk, crosstalk), allocates nothing
// once constructed: it runs inside the step loop.
TEST(Allocation, SensorLoggingIdealOrCausalAllocatesNothing) {
  const io::Scene scene = io::loadScene(std::string(SUITSIM_SOURCE_DIR) + "/scenes/jvrc1_stand.xml");
  const io::RobotSetup& robot = scene.robot.value();
  for (bool causal : {false, true}) {
    SensorSpec spec = robot.sensors.value();
    spec.chain.causal = causal;
    spec.chain.imu_cutoff = spec.chain.force_cutoff = spec.chain.current_cutoff = 50.0;
    spec.chain.jitter = 2e-4;
    spec.chain.gyro_bias_walk = spec.chain.accel_bias_walk = 1e-3;
    spec.force_sensors.at(0).crosstalk[1] = 0.01;
    const double dt = scene.simulation.dt;
    State state = makeState(scene.model);
    Workspace ws(scene.model, 1);
    JointServo servo(scene.model, state, robot.motion, robot.gains, robot.servo_rate);
    Sensors sensors(scene.model, spec, dt);
    std::vector<double> row(sensors.columns().size());
    double stamp = 0.0;
    const long before = g_allocations.load();
    servo.update(scene.model, state);
    int rows = sensors.startLog(state, row.data(), &stamp) ? 1 : 0;
    for (long k = 1; k <= 200; ++k) {
      step(scene.model, state, ws, scene.simulation.integrator, dt);
      servo.update(scene.model, state);
      rows += sensors.logStep(state, k, row.data(), &stamp) ? 1 : 0;
    }
    rows += sensors.finishLog(state, 200, row.data(), &stamp) ? 1 : 0;
    EXPECT_EQ(g_allocations.load() - before, 0) << (causal ? "causal" : "ideal");
    EXPECT_EQ(rows, 21) << (causal ? "causal" : "ideal");
  }
}

TEST(Allocation, BandsWithCapstanFrictionAndHysteresisAllocateNothing) {
  // A zig-zag band between free point masses set moving: its material
  // slides across the turning via points (the end-of-step slip solve) and
  // its Maxwell arm creeps, all in preallocated State and Workspace arrays.
  ModelBuilder b;
  b.setGravity({0.0, 0.0, 0.0});
  const Vec3 via[5] = {{0, 0, 0}, {0.3, 0.25, 0}, {0.6, -0.1, 0.1}, {0.9, 0.2, -0.05}, {1.2, 0.0, 0.0}};
  BandSpec band;
  band.name = "band";
  for (int j = 0; j < 5; ++j) {
    BodySpec body{"body" + std::to_string(j), b.numParticles(), 4, {}};
    const Vec3 offset[4] = {{0, 0, 0}, {0.05, 0, 0}, {0, 0.05, 0}, {0, 0, 0.05}};
    for (int k = 0; k < 4; ++k) {
      ParticleSpec p;
      p.name = body.name + ".p" + std::to_string(k);
      p.position = {via[j][0] + offset[k][0], via[j][1] + offset[k][1], via[j][2] + offset[k][2]};
      p.mass = 0.1;
      p.velocity = {0.3 * std::sin(1.7 * j), 0.4 * std::cos(0.9 * j), 0.2 * std::sin(0.3 * j + 1.0)};
      b.addParticle(p);
      body.body_position.push_back(offset[k]);
    }
    band.via_body.push_back(b.addBody(body));
    band.via_weight.push_back({{1.0, 0.0, 0.0, 0.0}});
  }
  band.stiffness = 500.0;
  band.relaxing_stiffness = 75.0;
  band.relaxation_time = 0.5;
  band.capstan_friction = 0.5;
  band.natural_length = b.initialBandLength(band) - 0.05;
  b.addBand(band);
  const Model model = b.build();
  const std::vector<double> initial = makeState(model).band_material;
  for (const State& state : expectStepsAllocateNothing(model, 1e-4, 500, [](State&, int) {})) {
    EXPECT_NE(state.band_material, initial);  // it slid
  }
}

TEST(Allocation, HingesAndMimicCouplingsAllocateNothing) {
  // The hinge solve with its coupling rows (URDF <mimic>), static friction
  // holding and giving way: all scratch lives in the Workspace.
  RobotDescription robot = testing::mimicHand(true);
  for (RobotJoint& j : robot.joints) j.actuation.coulomb = j.actuation.static_max = 0.002;
  ModelBuilder b;
  b.setGravity({0.0, 0.0, 0.0});
  addRobot(b, robot, {}, {}, {});
  const Model model = b.build();
  ASSERT_GT(model.num_couplings, 0);
  expectStepsAllocateNothing(model, 1e-4, 200, alternatingCurrent(0.05));
}

TEST(Allocation, SpringLinkedHingesAllocateNothing) {
  // Toda and Sankai's link model: the hinge rows on the particles' own
  // mobility, static friction holding and giving way.
  RobotDescription robot = testing::floatingHumanoid();
  for (RobotJoint& j : robot.joints) j.actuation.coulomb = j.actuation.static_max = 0.002;
  ModelBuilder b;
  b.setGravity({0.0, 0.0, 0.0});
  RobotCompileOptions options;
  options.link_frequency = 1e4;
  options.hinge.link_model = LinkModel::kSprings;
  addRobot(b, robot, {}, {}, options);
  const Model model = b.build();
  expectStepsAllocateNothing(model, 5e-5, 200, alternatingCurrent(0.05));
}

TEST(Allocation, CompliantGearsWithBacklashAllocateNothing) {
  // The rotors as coordinates of every integrator (gear_train.h), through
  // the dead band and back, with static friction on the link.
  RobotDescription robot = testing::doublePendulum();
  for (RobotJoint& j : robot.joints) {
    j.actuation.armature = 0.02;
    j.actuation.gear_stiffness = 2000.0;
    j.actuation.gear_backlash = 1e-3;
    j.actuation.gear_damping = 0.5;
    j.actuation.encoder_on_motor = true;
    j.actuation.coulomb = j.actuation.static_max = 0.05;
  }
  ModelBuilder b;
  addRobot(b, robot, {}, {}, {});
  const Model model = b.build();
  expectStepsAllocateNothing(model, 1e-4, 200, alternatingCurrent(1.0));  // the rotor crosses the dead band
}

TEST(Allocation, BalanceChannelsPushesAndTheAssistAllocateNothing) {
  // A block sliding off its footprint: the assist works (support polygon,
  // footprint, shrink, hull) and the Recorder's balance channels sample.
  ModelBuilder b;
  b.setGround(testing::groundModel(5e3, 50.0, 0.6, 0.4));
  b.addBlock({.name = "box", .origin = {0, 0, 0.0}, .nx = 4, .ny = 4, .nz = 3, .spacing = 0.05, .mass = 1.0,
              .stiffness = 3e3, .damping = 0.5, .velocity = {2.0, 0, 0}});
  const Model model = b.build();
  State state = makeState(model);
  Workspace ws(model);
  PushSpec push;
  push.at.first_particle = 0;
  push.force = {5.0, 0.0, 0.0};
  push.start = 0.0;
  push.duration = 1.0;
  BalanceAssistSpec assist;
  assist.at.first_particle = 4;
  assist.kp = 3.0;
  assist.max_force = 50.0;
  assist.bandwidth_hz = 10.0;
  assist.rate_hz = 1000.0;
  assist.margin = 0.01;
  ExternalForces external(model, 1e-4, {push}, &assist);
  std::vector<ChannelSpec> channels(4);
  channels[0].kind = ChannelSpec::Kind::kDcm;
  channels[1].kind = ChannelSpec::Kind::kBalanceMargin;
  channels[2].kind = ChannelSpec::Kind::kCentreOfPressure;
  channels[3].kind = ChannelSpec::Kind::kAppliedForce;
  const Recorder recorder(model, channels);
  std::vector<double> row(recorder.columns().size());
  for (int k = 0; k < 5; ++k) {
    step(model, state, ws, Integrator::kVelocityVerlet, 1e-4);
    external.update(model, state);
    recorder.sample(state, &ws, row.data());
  }
  const long before = g_allocations.load();
  for (int k = 0; k < 300; ++k) {
    step(model, state, ws, Integrator::kVelocityVerlet, 1e-4);
    external.update(model, state);
    recorder.sample(state, &ws, row.data());
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_GT(external.peakForce(), 0.0);  // the assist did work
}

TEST(Allocation, AWornDeviceItsControllerAndItsChannelsAllocateNothing) {
  // A double pendulum wearing a two-segment device: straps in the force
  // pass, the virtual-impedance controller, the strap channels.
  const RobotDescription robot = testing::doublePendulum();
  ModelBuilder b;
  const RobotPose pose{{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.4, 0.3}};
  const CompiledRobot compiled = addRobot(b, robot, pose, {}, {});
  ExoskeletonSpec spec;
  spec.name = "dev";
  ExoSegment cuff_upper, cuff_lower;
  cuff_upper.name = "upper";
  cuff_upper.link = robot.findLink("upper");
  cuff_upper.inertial = {0.5, {0.0, 0.05, -0.2}, {0.004, 0.004, 0.001, 0.0, 0.0, 0.0}};
  cuff_lower.name = "lower";
  cuff_lower.link = robot.findLink("lower");
  cuff_lower.parent = 0;
  cuff_lower.joint = robot.findJoint("elbow");
  cuff_lower.inertial = {0.3, {0.0, 0.05, -0.15}, {0.002, 0.002, 0.0005, 0.0, 0.0, 0.0}};
  cuff_lower.actuation.motor_constant = 0.1;
  cuff_lower.actuation.coulomb = cuff_lower.actuation.static_max = 0.05;
  cuff_lower.impedance = {0.005, 0.01, 0.5, 0.01, 0.2};
  spec.segments = {cuff_upper, cuff_lower};
  spec.straps = {{"", 0, {0.0, 0.05, -0.1}, 5e3, 10.0}, {"", 0, {0.0, 0.05, -0.3}, 5e3, 10.0},
                 {"", 1, {0.0, 0.05, -0.1}, 5e3, 10.0}, {"", 1, {0.0, 0.05, -0.3}, 5e3, 10.0}};
  addExoskeleton(b, robot, compiled, pose, spec, {});
  const Model model = b.build();
  ASSERT_EQ(model.num_straps, 4);
  State state = makeState(model);
  Workspace ws(model);
  ExoskeletonController controller(model, spec, robot);
  std::vector<double> wearer(model.num_hinges, 1.5);
  std::vector<ChannelSpec> channels(2);
  channels[0].kind = ChannelSpec::Kind::kStrapForce;
  channels[0].index = 0;
  channels[1].kind = ChannelSpec::Kind::kStrapTorque;
  channels[1].index = 0;
  const Recorder recorder(model, channels);
  std::vector<double> row(recorder.columns().size());
  for (int k = 0; k < 5; ++k) {
    step(model, state, ws, Integrator::kVelocityVerlet, 1e-4);
    controller.update(model, state, &wearer);
    recorder.sample(state, &ws, row.data());
  }
  const long before = g_allocations.load();
  for (int k = 0; k < 300; ++k) {
    step(model, state, ws, Integrator::kVelocityVerlet, 1e-4);
    controller.update(model, state, &wearer);
    recorder.sample(state, &ws, row.data());
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_NE(controller.torque()[0], 0.0);  // the controller worked
}

}  // namespace
}  // namespace suitsim
