// The robot's sensors (engine/src/sensors.cpp) on JVRC-1 standing
// (scenes/jvrc1_stand.xml): clean readings against the physics they measure
// (gravity in the accelerometer, the weight in the foot sensors, the servo's
// torque in the currents), the noise against its configuration, seeding, and
// that sampling leaves the simulation untouched. Then the logged stream
// (startLog / logStep / finishLog) against centred means rebuilt here from
// instantaneous samples, for odd and even steps per sample and for runs that
// end inside a window.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "suitsim/robot_readout.h"
#include "suitsim/scene/scene.h"
#include "suitsim/sensors.h"
#include "suitsim/servo.h"
#include "suitsim/step.h"

namespace suitsim {
namespace {

std::string standScene() { return std::string(SUITSIM_SOURCE_DIR) + "/scenes/jvrc1_stand.xml"; }

int column(const Sensors& s, const std::string& name) {
  for (std::size_t k = 0; k < s.columns().size(); ++k) {
    if (s.columns()[k] == name) return static_cast<int>(k);
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

/// JVRC-1 stood for 3 s under its servo (settled), shared by the tests:
/// stepping is the slow part. Then 0.5 s more, sampled at 200 Hz with noise
/// off, keeping every row and the servo's desired torques at each sample.
class StandingSensors : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scene_ = new io::Scene(io::loadScene(standScene()));
    const Model& model = scene_->model;
    state_ = new State(makeState(model));
    Workspace ws(model, 1);
    const io::RobotSetup& robot = scene_->robot.value();
    JointServo servo(model, *state_, robot.motion, robot.gains, robot.servo_rate);
    SensorSpec clean = robot.sensors.value();
    clean.noise = false;
    sensors_ = new Sensors(model, clean, scene_->simulation.dt);
    const double dt = scene_->simulation.dt;
    // The servo leaves a slow pitch sway (about 0.04 rad/s at 1.5 s) that
    // has died down to about 0.01 rad/s by 3 s.
    const long settle = std::lround(3.0 / dt), sample = std::lround(0.5 / dt);
    const int pelvis = sensors_->spec().imus.at(0).body;
    rows_ = new std::vector<std::vector<double>>();
    desired_ = new std::vector<std::vector<double>>();
    for (long k = 1; k <= settle + sample; ++k) {
      servo.update(model, *state_);
      step(model, *state_, ws, scene_->simulation.integrator, dt);
      if (k > settle && k % sensors_->stepsPerSample() == 0) {
        rows_->emplace_back(sensors_->columns().size());
        sensors_->sample(*state_, rows_->back().data());
        desired_->push_back(servo.desiredTorque());
        (rows_->size() == 1 ? first_pose_ : last_pose_) = bodyPose(model, *state_, pelvis);
      }
    }
  }
  static void TearDownTestSuite() {
    delete sensors_;
    delete state_;
    delete scene_;
    delete rows_;
    delete desired_;
  }
  double mean(int col) const {
    double sum = 0.0;
    for (const auto& r : *rows_) sum += r[col];
    return sum / static_cast<double>(rows_->size());
  }

  static io::Scene* scene_;
  static State* state_;
  static Sensors* sensors_;
  static std::vector<std::vector<double>>* rows_;
  static std::vector<std::vector<double>>* desired_;
  static Pose first_pose_, last_pose_;  // the IMU's body at the first and last sample
};
Pose StandingSensors::first_pose_, StandingSensors::last_pose_;
io::Scene* StandingSensors::scene_ = nullptr;
State* StandingSensors::state_ = nullptr;
Sensors* StandingSensors::sensors_ = nullptr;
std::vector<std::vector<double>>* StandingSensors::rows_ = nullptr;
std::vector<std::vector<double>>* StandingSensors::desired_ = nullptr;

TEST_F(StandingSensors, SceneDeclaresTheExpectedChannels) {
  const SensorSpec& spec = scene_->robot->sensors.value();
  EXPECT_EQ(sensors_->stepsPerSample(), 10);  // 200 Hz at dt = 5e-4 s
  EXPECT_EQ(spec.encoders.hinges.size(), 32u);
  EXPECT_EQ(spec.currents.hinges.size(), 32u);
  ASSERT_EQ(spec.force_sensors.size(), 2u);
  EXPECT_EQ(spec.force_sensors[0].contacts.size(), 4u);
  EXPECT_EQ(sensors_->columns().size(), 32u + 6u + 12u + 32u);
  EXPECT_EQ(sensors_->columns()[column(*sensors_, "R_KNEE.encoder[rad]")], "R_KNEE.encoder[rad]");
  column(*sensors_, "imu.gyro.x[rad/s]");
  column(*sensors_, "imu.accel.z[m/s^2]");
  column(*sensors_, "rfsensor.force.z[N]");
  column(*sensors_, "lfsensor.torque.x[N*m]");
  column(*sensors_, "R_KNEE.current[A]");
  EXPECT_EQ(rows_->size(), 100u);
}

TEST_F(StandingSensors, AccelerometerReadsGravityUpAndGyroZero) {
  const ImuSpec& imu = sensors_->spec().imus.at(0);
  // The world's up axis in the sensor frame (pelvis nearly level).
  const Pose body = bodyPose(scene_->model, *state_, imu.body);
  double up_S[3] = {0.0, 0.0, 0.0};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      double r_ws = 0.0;  // (R_body R_frame)(j, i)
      for (int k = 0; k < 3; ++k) r_ws += body.R[3 * j + k] * imu.frame.R[3 * k + i];
      up_S[i] += r_ws * (j == 2 ? 1.0 : 0.0);
    }
  }
  const double ax = mean(column(*sensors_, "imu.accel.x[m/s^2]"));
  const double ay = mean(column(*sensors_, "imu.accel.y[m/s^2]"));
  const double az = mean(column(*sensors_, "imu.accel.z[m/s^2]"));
  const double along_up = ax * up_S[0] + ay * up_S[1] + az * up_S[2];
  std::printf("accelerometer mean (%.4f, %.4f, %.4f) m/s^2, along up %.4f\n", ax, ay, az, along_up);
  EXPECT_NEAR(along_up, 9.81, 0.01 * 9.81);
  EXPECT_GT(az, 0.95 * 9.81);  // sensor z is up: +g, not -g
  // The gyro: about zero, and its mean is the pelvis's turn over the window
  // (small angles: the skew part of R_first^T R_last, body axes, which are
  // the sensor axes here since the IMU's rpy is zero).
  double turn[3];
  {
    double M[9];
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        M[3 * i + j] = 0.0;
        for (int k = 0; k < 3; ++k) M[3 * i + j] += first_pose_.R[3 * k + i] * last_pose_.R[3 * k + j];
      }
    }
    turn[0] = 0.5 * (M[7] - M[5]);
    turn[1] = 0.5 * (M[2] - M[6]);
    turn[2] = 0.5 * (M[3] - M[1]);
  }
  const double window = static_cast<double>(rows_->size() - 1) * sensors_->stepsPerSample() * scene_->simulation.dt;
  const char* axes[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    const double w = mean(column(*sensors_, std::string("imu.gyro.") + axes[a] + "[rad/s]"));
    std::printf("gyro.%s mean %.5f rad/s, pose turn rate %.5f rad/s\n", axes[a], w, turn[a] / window);
    EXPECT_NEAR(w, 0.0, 0.02) << axes[a];
    EXPECT_NEAR(w, turn[a] / window, 2e-3) << axes[a];
  }
}

TEST_F(StandingSensors, FootSensorsCarryTheWeight) {
  const double weight = scene_->model.totalMass() * 9.81;
  const double right = mean(column(*sensors_, "rfsensor.force.z[N]"));
  const double left = mean(column(*sensors_, "lfsensor.force.z[N]"));
  std::printf("foot sensors %.2f + %.2f = %.2f N, weight %.2f N\n", right, left, right + left, weight);
  EXPECT_NEAR(right + left, weight, 0.005 * weight);
  EXPECT_GT(right, 0.3 * weight);
  EXPECT_GT(left, 0.3 * weight);
}

TEST_F(StandingSensors, CurrentGivesTheServoTorque) {
  const Model& m = scene_->model;
  const SensorSpec& spec = sensors_->spec();
  const int first = column(*sensors_, spec.currents.names[0] + ".current[A]");
  for (std::size_t s = 0; s < rows_->size(); ++s) {
    for (std::size_t k = 0; k < spec.currents.hinges.size(); ++k) {
      const int h = spec.currents.hinges[k];
      const double tau = m.hinge_motor_constant[h] * (*rows_)[s][first + k] + m.hinge_torque_offset[h];
      ASSERT_NEAR(tau, (*desired_)[s][h], 1e-9 * (1.0 + std::abs(tau))) << spec.currents.names[k];
    }
  }
}

TEST_F(StandingSensors, EncodersAreMultiplesOfTheResolutionWithNoiseOnAndExactWithout) {
  // The scene's sensors as written (noise on): every encoder reading a whole
  // number of steps, within half a step of the angle.
  const SensorSpec& scene_spec = scene_->robot.value().sensors.value();
  ASSERT_TRUE(scene_spec.noise);
  const double res = scene_spec.encoders.resolution;
  ASSERT_GT(res, 0.0);
  Sensors noisy(scene_->model, scene_spec, scene_->simulation.dt);
  std::vector<double> row(noisy.columns().size());
  noisy.sample(*state_, row.data());
  const int first = column(noisy, scene_spec.encoders.names[0] + ".encoder[rad]");
  for (std::size_t k = 0; k < scene_spec.encoders.hinges.size(); ++k) {
    const double steps = row[first + k] / res;
    ASSERT_NEAR(steps, std::round(steps), 1e-6);
    EXPECT_LE(std::abs(row[first + k] - jointAngle(scene_->model, *state_, scene_spec.encoders.hinges[k])), 0.5 * res + 1e-15);
  }
  // Noise off is an ideal sensor: the angle itself, not rounded.
  std::vector<double> clean(sensors_->columns().size());
  sensors_->sample(*state_, clean.data());
  double off_grid = 0.0;
  for (std::size_t k = 0; k < scene_spec.encoders.hinges.size(); ++k) {
    EXPECT_EQ(clean[first + k], jointAngle(scene_->model, *state_, scene_spec.encoders.hinges[k]));
    const double steps = clean[first + k] / res;
    off_grid = std::max(off_grid, std::abs(steps - std::round(steps)));
  }
  EXPECT_GT(off_grid, 0.01);  // some angle is between two steps: the check has teeth
}

// Every noisy channel, sampled many times at one fixed state: the reading
// minus the clean value has the configured bias and standard deviation.
TEST_F(StandingSensors, NoiseMatchesTheConfiguration) {
  const SensorSpec& spec = scene_->robot->sensors.value();
  ASSERT_TRUE(spec.noise);
  Sensors noisy(scene_->model, spec, scene_->simulation.dt);
  const std::size_t nc = noisy.columns().size();
  const int n = 4000;
  std::vector<double> row(nc), sum(nc, 0.0), sum2(nc, 0.0), clean(nc);
  for (int s = 0; s < n; ++s) {
    noisy.sample(*state_, row.data());
    clean = noisy.truth();
    for (std::size_t k = 0; k < nc; ++k) {
      const double e = row[k] - clean[k];
      sum[k] += e;
      sum2[k] += e * e;
    }
  }
  auto check = [&](const std::string& col, double sigma, double bias, double resolution) {
    const int k = column(noisy, col);
    const double m = sum[k] / n;
    const double sd = std::sqrt(std::max(0.0, sum2[k] / n - m * m));
    // Quantising adds a uniform error of variance res^2 / 12.
    const double expected_sd = std::sqrt(sigma * sigma + resolution * resolution / 12.0);
    EXPECT_NEAR(m, bias, 4.0 * expected_sd / std::sqrt(n) + resolution / 2.0) << col;
    EXPECT_NEAR(sd, expected_sd, 0.06 * expected_sd + 1e-12) << col;
  };
  const ImuSpec& imu = spec.imus[0];
  const char* axes[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    check(std::string("imu.gyro.") + axes[a] + "[rad/s]", imu.gyro_noise, imu.gyro_bias[a], 0.0);
    check(std::string("imu.accel.") + axes[a] + "[m/s^2]", imu.accel_noise, imu.accel_bias[a], 0.0);
  }
  for (const ForceSensorSpec& fs : spec.force_sensors) {
    for (int a = 0; a < 3; ++a) {
      check(fs.name + ".force." + axes[a] + "[N]", fs.force_noise, 0.0, fs.force_resolution);
      check(fs.name + ".torque." + axes[a] + "[N*m]", fs.torque_noise, 0.0, fs.torque_resolution);
    }
  }
  check("R_KNEE.current[A]", spec.currents.noise, 0.0, 0.0);
  check("WAIST_P.current[A]", spec.currents.noise, 0.0, 0.0);
}

TEST_F(StandingSensors, SameSeedSameRowsOtherSeedOthersAndStreamsIndependent) {
  SensorSpec spec = scene_->robot->sensors.value();
  auto rows = [&](const SensorSpec& sp, int n) {
    Sensors s(scene_->model, sp, scene_->simulation.dt);
    std::vector<double> out(n * s.columns().size());
    for (int k = 0; k < n; ++k) s.sample(*state_, out.data() + k * s.columns().size());
    return out;
  };
  const std::vector<double> a = rows(spec, 20), b = rows(spec, 20);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0);
  SensorSpec other = spec;
  other.seed = 2;
  const std::vector<double> c = rows(other, 20);
  EXPECT_NE(std::memcmp(a.data(), c.data(), a.size() * sizeof(double)), 0);
  // Dropping the force sensors leaves the IMU's noise as it was.
  SensorSpec fewer = spec;
  fewer.force_sensors.clear();
  Sensors full(scene_->model, spec, scene_->simulation.dt), part(scene_->model, fewer, scene_->simulation.dt);
  std::vector<double> rf(full.columns().size()), rp(part.columns().size());
  for (int k = 0; k < 5; ++k) {
    full.sample(*state_, rf.data());
    part.sample(*state_, rp.data());
    EXPECT_EQ(rf[column(full, "imu.accel.y[m/s^2]")], rp[column(part, "imu.accel.y[m/s^2]")]);
    EXPECT_EQ(rf[column(full, "R_KNEE.current[A]")], rp[column(part, "R_KNEE.current[A]")]);
  }
}

// Two recordings (trials) of one scene draw independent noise: a shared
// sequence would cancel in approach A's with/without difference, A(21),
// which no pair of real recordings allows. The same recording draws the
// same noise again, and a scene without trials keeps the seed's own.
TEST_F(StandingSensors, EachRecordingDrawsItsOwnNoise) {
  const SensorSpec base = scene_->robot->sensors.value();
  ASSERT_TRUE(base.recording.empty()) << "jvrc1_stand.xml has no trials";
  SensorSpec clean = base;
  clean.noise = false;
  const int n = 400;
  auto errors = [&](const std::string& recording) {
    SensorSpec sp = base;
    sp.recording = recording;
    Sensors noisy(scene_->model, sp, scene_->simulation.dt), exact(scene_->model, clean, scene_->simulation.dt);
    const int c = column(noisy, "R_KNEE.current[A]");
    std::vector<double> rn(noisy.columns().size()), re(exact.columns().size()), e(n);
    for (int k = 0; k < n; ++k) {
      noisy.sample(*state_, rn.data());
      exact.sample(*state_, re.data());
      e[k] = rn[c] - re[c];
    }
    return e;
  };
  const std::vector<double> with = errors("with_suit"), again = errors("with_suit"), without = errors("without_suit"),
                            unnamed = errors("");
  EXPECT_EQ(with, again);
  EXPECT_NE(with, unnamed);
  double sww = 0.0, soo = 0.0, swo = 0.0;
  for (int k = 0; k < n; ++k) {
    sww += with[k] * with[k];
    soo += without[k] * without[k];
    swo += with[k] * without[k];
  }
  // Independent draws: the sample correlation of 400 pairs is within
  // 4 / sqrt(400) = 0.2 of zero (a shared sequence gives 1).
  EXPECT_LT(std::abs(swo / std::sqrt(sww * soo)), 0.2);
  // The difference of the two recordings carries both noises: its variance
  // is about twice one recording's, not zero.
  double sdd = 0.0;
  for (int k = 0; k < n; ++k) sdd += (with[k] - without[k]) * (with[k] - without[k]);
  EXPECT_GT(sdd / sww, 1.5);
}

// A compiled trial names its recording: each trial of a protocol draws its
// own noise.
TEST(SensorsScene, EachTrialIsItsOwnRecording) {
  const std::string protocol = std::string(SUITSIM_SOURCE_DIR) + "/scenes/jvrc1_protocol.xml";
  const std::vector<io::TrialSpec> trials = io::listTrials(protocol);
  ASSERT_GE(trials.size(), 2u);
  for (std::size_t t = 0; t < 2; ++t) {
    const io::Scene scene = io::loadScene(protocol, trials[t].name);
    ASSERT_TRUE(scene.robot && scene.robot->sensors);
    EXPECT_EQ(scene.robot->sensors->recording, trials[t].name);
  }
}

// Without a valid cached acceleration the sensors evaluate forces into
// their own buffers; both routes agree on a settled robot.
TEST_F(StandingSensors, ScratchAccelerationAgreesWithTheCache) {
  ASSERT_NE(cachedAcceleration(*state_), nullptr);
  State uncached = *state_;
  uncached.acceleration_cache.filled = false;
  SensorSpec clean = scene_->robot->sensors.value();
  clean.noise = false;
  Sensors s(scene_->model, clean, scene_->simulation.dt);
  std::vector<double> a(s.columns().size()), b(s.columns().size());
  s.sample(*state_, a.data());
  s.sample(uncached, b.data());
  for (const char* axis : {"x", "y", "z"}) {
    const int k = column(s, std::string("imu.accel.") + axis + "[m/s^2]");
    EXPECT_NEAR(a[k], b[k], 0.05) << axis;
  }
}

TEST(Sensors, SamplingDoesNotChangeTheTrajectory) {
  const io::Scene scene = io::loadScene(standScene());
  const Model& model = scene.model;
  const io::RobotSetup& robot = scene.robot.value();
  const double dt = scene.simulation.dt;
  auto run = [&](bool with_sensors) {
    State state = makeState(model);
    Workspace ws(model, 1);
    JointServo servo(model, state, robot.motion, robot.gains, robot.servo_rate);
    Sensors sensors(model, robot.sensors.value(), dt);
    std::vector<double> row(sensors.columns().size());
    if (with_sensors) sensors.sample(state, row.data());  // t = 0: the scratch route
    for (long k = 1; k <= 2000; ++k) {
      servo.update(model, state);
      step(model, state, ws, scene.simulation.integrator, dt);
      if (with_sensors && k % 50 == 0) sensors.sample(state, row.data());
    }
    return state;
  };
  const State a = run(true), b = run(false);
  const std::size_t n = a.position.x.size() * sizeof(double);
  EXPECT_EQ(std::memcmp(a.position.x.data(), b.position.x.data(), n), 0);
  EXPECT_EQ(std::memcmp(a.position.z.data(), b.position.z.data(), n), 0);
  EXPECT_EQ(std::memcmp(a.velocity.y.data(), b.velocity.y.data(), n), 0);
}

// The logged accelerometer reads the acceleration the pelvis really had.
// One arm swings at up to about 4 rad/s while the robot stands: the
// reference is the velocity change, over each sample's window, of the
// sensor point moving with the pelvis's best-fit rigid motion (its centre
// of mass velocity and angular velocity, bodyVelocity). The instantaneous
// acceleration sample() reads (the force evaluation closing each step),
// averaged over the same window, misses it by about 0.1 m/s^2 at the
// fastest part of the swing (in the protocol, with its 10 kHz leg servo
// and dt = 1e-4 s, the same 0.1 m/s^2 was 9 N on the evaluator's base rows).
TEST(Sensors, LoggedAccelerometerFollowsThePelvisThroughAFastArmSwing) {
  std::ifstream in(standScene());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string sensors_tag = "    <sensors rate=";
  ASSERT_NE(text.find(sensors_tag), std::string::npos);
  text.insert(text.find(sensors_tag),
              "    <motion>\n      <keyframe time=\"0.3\" angles=\"R_SHOULDER_P:0\"/>\n"
              "      <keyframe time=\"1.0\" angles=\"R_SHOULDER_P:-1.2\"/>\n"
              "      <keyframe time=\"1.7\" angles=\"R_SHOULDER_P:0.5\"/>\n    </motion>\n");
  for (std::size_t at = text.find("../models/"); at != std::string::npos; at = text.find("../models/", at)) {
    text.replace(at, 10, std::string(SUITSIM_SOURCE_DIR) + "/models/");
  }
  const std::string path = ::testing::TempDir() + "/suitsim_sensors_arm_swing.xml";
  std::ofstream(path) << text;
  const io::Scene scene = io::loadScene(path);
  const Model& model = scene.model;
  const io::RobotSetup& robot = scene.robot.value();
  const double dt = scene.simulation.dt;
  SensorSpec clean = robot.sensors.value();
  clean.noise = false;
  Sensors logger(model, clean, dt), probe(model, clean, dt);
  const long S = logger.stepsPerSample(), h = (S - 1) / 2;
  const ImuSpec& imu = clean.imus.at(0);
  const Eigen::Vector3d g(model.gravity[0], model.gravity[1], model.gravity[2]);
  int ax = -1;
  for (std::size_t c = 0; c < logger.columns().size(); ++c) {
    if (logger.columns()[c] == imu.name + ".accel.x[m/s^2]") ax = static_cast<int>(c);
  }
  ASSERT_GE(ax, 0);

  State state = makeState(model);
  Workspace ws(model, 1);
  JointServo servo(model, state, robot.motion, robot.gains, robot.servo_rate);
  std::vector<double> row(logger.columns().size()), probe_row(row.size());
  // Per step: the rigid velocity of the IMU point at the middle of the step
  // (index k for step k, 0 unused), the sensor orientation and the
  // instantaneous reading.
  std::vector<Eigen::Vector3d> rigid_mid{Eigen::Vector3d::Zero()}, instant;
  std::vector<Eigen::Matrix3d> rotation;
  // The pelvis as a rigid body: centre-of-mass velocity and spin of its
  // particles, carried to the IMU point.
  auto rigidVelocity = [&](const State& st) -> Eigen::Vector3d {
    const Pose pose = bodyPose(model, st, imu.body);
    Vec3 v_com, omega;
    bodyVelocity(model, st, imu.body, &v_com, &omega);
    Eigen::Vector3d com = Eigen::Vector3d::Zero();
    double mass = 0.0;
    for (int i = model.body_particle_begin[imu.body]; i < model.body_particle_end[imu.body]; ++i) {
      com += model.particle_mass[i] * Eigen::Vector3d(st.position.x[i], st.position.y[i], st.position.z[i]);
      mass += model.particle_mass[i];
    }
    const Vec3 p = pose.apply(imu.frame.p);
    const Eigen::Vector3d arm = Eigen::Vector3d(p[0], p[1], p[2]) - com / mass;
    return Eigen::Vector3d(v_com[0], v_com[1], v_com[2]) + Eigen::Vector3d(omega[0], omega[1], omega[2]).cross(arm);
  };
  // The middle of the step that led from `before` to `state`: velocity
  // Verlet drifted the positions with the velocity v - dt/2 a (its closing
  // kick taken back) from `before` to `state`.
  State middle = state;
  auto keepMiddle = [&](const State& before) {
    for (int i = 0; i < model.num_particles; ++i) {
      middle.position.x[i] = 0.5 * (before.position.x[i] + state.position.x[i]);
      middle.position.y[i] = 0.5 * (before.position.y[i] + state.position.y[i]);
      middle.position.z[i] = 0.5 * (before.position.z[i] + state.position.z[i]);
      middle.velocity.x[i] = state.velocity.x[i] - 0.5 * dt * state.acceleration_cache.acceleration.x[i];
      middle.velocity.y[i] = state.velocity.y[i] - 0.5 * dt * state.acceleration_cache.acceleration.y[i];
      middle.velocity.z[i] = state.velocity.z[i] - 0.5 * dt * state.acceleration_cache.acceleration.z[i];
    }
    rigid_mid.push_back(rigidVelocity(middle));
  };
  auto observe = [&] {
    const Pose pose = bodyPose(model, state, imu.body);
    Eigen::Matrix3d Rb, Rf;
    for (int q = 0; q < 9; ++q) {
      Rb(q / 3, q % 3) = pose.R[q];
      Rf(q / 3, q % 3) = imu.frame.R[q];
    }
    rotation.push_back(Rb * Rf);
    probe.sample(state, probe_row.data());
    instant.push_back(Eigen::Vector3d(probe_row[ax], probe_row[ax + 1], probe_row[ax + 2]));
  };
  double stamp = 0.0;
  servo.update(model, state);
  logger.startLog(state, row.data(), &stamp);
  observe();
  double worst = 0.0, worst_instant = 0.0;
  const long num_steps = std::lround(1.7 / dt);
  ASSERT_EQ(scene.simulation.integrator, Integrator::kVelocityVerlet);
  std::vector<double> pending(row.size());
  long pending_sample = -1;
  for (long k = 1; k <= num_steps; ++k) {
    const State before = state;
    step(model, state, ws, scene.simulation.integrator, dt);
    keepMiddle(before);
    servo.update(model, state);
    const bool out = logger.logStep(state, k, row.data(), &stamp);
    observe();
    // A row is checked one step after it is out: its window's far edge is
    // the middle of the next step.
    if (pending_sample >= 0) {
      const long s = pending_sample;
      // From the middle of the step into the window's first state to the
      // middle of the step out of its last.
      const Eigen::Vector3d a = (rigid_mid[s + h + 1] - rigid_mid[s - h]) / (static_cast<double>(2 * h + 1) * dt);
      const Eigen::Vector3d expected = rotation[s].transpose() * (a - g);
      Eigen::Vector3d mean_instant = Eigen::Vector3d::Zero();
      for (long j = s - h; j <= s + h; ++j) mean_instant += instant[j];
      mean_instant /= static_cast<double>(2 * h + 1);
      worst = std::max(worst, (Eigen::Vector3d(pending[ax], pending[ax + 1], pending[ax + 2]) - expected).cwiseAbs().maxCoeff());
      worst_instant = std::max(worst_instant, (mean_instant - expected).cwiseAbs().maxCoeff());
      pending_sample = -1;
    }
    if (out && k - 2 * h >= 1) {
      pending = row;
      pending_sample = k - h;
    }
  }
  std::printf("largest accelerometer error: logged %.2e m/s^2, mean of instantaneous %.2e m/s^2\n", worst,
              worst_instant);
  // Measured at the scene's dt = 5e-4 s: 5.4e-5 logged, 0.15 for the mean
  // of instantaneous readings.
  const double tolerance = 0.002;
  EXPECT_LT(worst, tolerance);
  EXPECT_GT(worst_instant, 5.0 * tolerance);  // the check has teeth: the old reading fails it
}

TEST(Sensors, NoiseChannelHasItsMeanAndDeviation) {
  NoiseChannel ch(42, "test.channel", 0.3, 0.1, 0.0);
  const int n = 200000;
  double sum = 0.0, sum2 = 0.0;
  for (int k = 0; k < n; ++k) {
    const double e = ch(2.0) - 2.0;
    sum += e;
    sum2 += e * e;
  }
  const double m = sum / n, sd = std::sqrt(sum2 / n - m * m);
  EXPECT_NEAR(m, 0.1, 4.0 * 0.3 / std::sqrt(n));
  EXPECT_NEAR(sd, 0.3, 0.01 * 0.3);
  // No noise, no bias: the value itself, quantised.
  NoiseChannel off(42, "x", 0.0, 0.0, 0.25);
  EXPECT_EQ(off(1.1), 1.0);
  EXPECT_EQ(off(-0.13), -0.25);
  EXPECT_NE(streamSeed(1, "a"), streamSeed(1, "b"));
  EXPECT_NE(streamSeed(1, "a"), streamSeed(2, "a"));
}

TEST(Sensors, RateMustDivideTheStep) {
  EXPECT_EQ(sensorStepsPerSample(200.0, 1e-4), 50);
  EXPECT_EQ(sensorStepsPerSample(1000.0, 1e-3), 1);
  EXPECT_EQ(sensorStepsPerSample(300.0, 1e-4), 0);
  EXPECT_EQ(sensorStepsPerSample(200.0, 3e-4), 0);
  EXPECT_EQ(sensorStepsPerSample(2000.0, 1e-3), 0);  // faster than the step
  EXPECT_EQ(sensorStepsPerSample(0.0, 1e-4), 0);
}

// ---------------------------------------------------------------------------
// Logged sampling: Sensors::startLog / logStep / finishLog, driven the way
// cli/trials.cpp drives them, against rows rebuilt here from instantaneous
// samples.

/// One run of JVRC-1 from its initial state (the robot settles onto the
/// ground, so every channel moves from step to step and a wrong window
/// shows), stepped as cli/trials.cpp steps it: step, servo update for the
/// next step, then the sensors.
struct LoggedRun {
  long steps_per_sample = 0;
  std::vector<std::string> columns;
  // What the logger gave: each row, the truth() behind it, its stamp, and
  // the step whose logStep returned it (0: startLog, -1: finishLog).
  std::vector<std::vector<double>> rows, logged_truth;
  std::vector<double> stamps;
  std::vector<long> emitted_after;
  bool finished = false;  // finishLog's answer
  // A second, noise-free Sensors sampled at every step 0 .. N, and the
  // state's time there: the raw material of the expected rows.
  std::vector<std::vector<double>> probe_row, probe_truth;
  std::vector<double> time;
  // At every step 0 .. N: the velocity (world) of the IMU's point, the
  // combination of its body's particle velocities with the weights that
  // place the point among the particles' body-frame positions (solved here),
  // and the sensor's orientation (world from sensor).
  std::vector<Eigen::Vector3d> imu_velocity;
  std::vector<Eigen::Matrix3d> imu_rotation;
  // At every step 1 .. N + 1 (index k; 0 unused): the IMU point's velocity
  // at the middle of step k, v_k - dt/2 a_k with a_k the acceleration that
  // closed it (velocity Verlet's last half kick taken back). Step N + 1 is
  // run for this alone, never logged.
  std::vector<Eigen::Vector3d> imu_mid_velocity;
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();
  double dt = 0.0;
  // A third Sensors with the logger's own spec (noise included), sample()d
  // at steps 0, S, 2S, ...: what the instantaneous path gives.
  std::vector<std::vector<double>> reference_row, reference_truth;
};

LoggedRun runLogged(const io::Scene& scene, const SensorSpec& spec, long num_steps) {
  const Model& model = scene.model;
  const io::RobotSetup& robot = scene.robot.value();
  const double dt = scene.simulation.dt;
  State state = makeState(model);
  Workspace ws(model, 1);
  JointServo servo(model, state, robot.motion, robot.gains, robot.servo_rate);
  SensorSpec clean = spec;
  clean.noise = false;
  Sensors logger(model, spec, dt), probe(model, clean, dt), reference(model, spec, dt);
  LoggedRun run;
  const long S = logger.stepsPerSample();
  run.steps_per_sample = S;
  run.columns = logger.columns();
  const std::size_t nc = run.columns.size();
  std::vector<double> row(nc);
  double stamp = 0.0;
  auto keep = [&](long k) {
    run.rows.push_back(row);
    run.logged_truth.push_back(logger.truth());
    run.stamps.push_back(stamp);
    run.emitted_after.push_back(k);
  };
  const ImuSpec& imu = spec.imus.at(0);
  const int first = model.body_particle_begin[imu.body];
  Eigen::Matrix4d A;
  for (int k = 0; k < 4; ++k) {
    A.col(k) << model.particle_body_position.x[first + k], model.particle_body_position.y[first + k],
        model.particle_body_position.z[first + k], 1.0;
  }
  const Eigen::Vector4d w = A.partialPivLu().solve(Eigen::Vector4d(imu.frame.p[0], imu.frame.p[1], imu.frame.p[2], 1.0));
  run.gravity = Eigen::Vector3d(model.gravity[0], model.gravity[1], model.gravity[2]);
  run.dt = dt;
  auto observe = [&](long k) {
    Eigen::Vector3d v = Eigen::Vector3d::Zero();
    for (int q = 0; q < 4; ++q) {
      v += w[q] * Eigen::Vector3d(state.velocity.x[first + q], state.velocity.y[first + q], state.velocity.z[first + q]);
    }
    run.imu_velocity.push_back(v);
    const Pose body = bodyPose(model, state, imu.body);
    Eigen::Matrix3d Rb, Rf;
    for (int q = 0; q < 9; ++q) {
      Rb(q / 3, q % 3) = body.R[q];
      Rf(q / 3, q % 3) = imu.frame.R[q];
    }
    run.imu_rotation.push_back(Rb * Rf);
    run.probe_row.emplace_back(nc);
    probe.sample(state, run.probe_row.back().data());
    run.probe_truth.push_back(probe.truth());
    run.time.push_back(state.time);
    if (k % S == 0) {
      run.reference_row.emplace_back(nc);
      reference.sample(state, run.reference_row.back().data());
      run.reference_truth.push_back(reference.truth());
    }
  };
  EXPECT_EQ(scene.simulation.integrator, Integrator::kVelocityVerlet);  // imu_mid_velocity needs it
  run.imu_mid_velocity.emplace_back(Eigen::Vector3d::Zero());
  servo.update(model, state);
  if (logger.startLog(state, row.data(), &stamp)) keep(0);
  observe(0);
  auto keep_mid_velocity = [&](const State& after) {
    Eigen::Vector3d mid = Eigen::Vector3d::Zero();
    for (int q = 0; q < 4; ++q) {
      const int i = first + q;
      mid += w[q] * (Eigen::Vector3d(after.velocity.x[i], after.velocity.y[i], after.velocity.z[i]) -
                     0.5 * dt * Eigen::Vector3d(after.acceleration_cache.acceleration.x[i], after.acceleration_cache.acceleration.y[i], after.acceleration_cache.acceleration.z[i]));
    }
    run.imu_mid_velocity.push_back(mid);
  };
  for (long k = 1; k <= num_steps; ++k) {
    step(model, state, ws, scene.simulation.integrator, dt);
    keep_mid_velocity(state);
    servo.update(model, state);
    if (logger.logStep(state, k, row.data(), &stamp)) keep(k);
    observe(k);
  }
  State beyond = state;  // step N + 1, on a copy: the log ends at N
  step(model, beyond, ws, scene.simulation.integrator, dt);
  keep_mid_velocity(beyond);
  run.finished = logger.finishLog(state, num_steps, row.data(), &stamp);
  if (run.finished) keep(-1);
  return run;
}

bool isCurrent(const std::string& column) { return column.find(".current[") != std::string::npos; }

/// The noise-free current of column c at step j: the mean of the command
/// the step ending there applied and the one the next step applies (the
/// probe reads each state after the servo has set the next step's), the
/// initial command held before step 0, the last mean after N.
double expectedCurrent(const LoggedRun& run, long j, std::size_t c) {
  const long last = static_cast<long>(run.time.size()) - 1;
  j = std::min(j, last);
  if (j <= 0) return run.probe_truth[0][c];
  return 0.5 * (run.probe_truth[static_cast<std::size_t>(j - 1)][c] + run.probe_truth[static_cast<std::size_t>(j)][c]);
}

bool isAccelerometer(const std::string& column) { return column.find(".accel.") != std::string::npos; }

bool isEncoder(const std::string& column) {
  const std::string suffix = ".encoder[rad]";
  return column.size() > suffix.size() && column.compare(column.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// The noise-free accelerometer reading of row n, column c, for windows of
/// `window` = 2h + 1 steps: the IMU point's velocity change over the
/// window's states nS - h .. nS + h, from the middle of the step before its
/// first to the middle of the step after its last (the initial velocity
/// held before step 0, the final one after N), over (2h + 1) dt, less
/// gravity, in the sensor frame at step nS.
double expectedAccelerometer(const LoggedRun& run, long window, std::size_t n, std::size_t c) {
  const long S = run.steps_per_sample, h = (window - 1) / 2, s = static_cast<long>(n) * S;
  const long last = static_cast<long>(run.time.size()) - 1;
  const int axis = run.columns[c][run.columns[c].find(".accel.") + 7] - 'x';
  const Eigen::Vector3d start = s - h - 1 < 0 ? run.imu_velocity[0] : run.imu_mid_velocity[static_cast<std::size_t>(s - h)];
  const Eigen::Vector3d end =
      s + h > last ? run.imu_velocity[static_cast<std::size_t>(last)] : run.imu_mid_velocity[static_cast<std::size_t>(s + h + 1)];
  const Eigen::Vector3d dv = end - start;
  const Eigen::Vector3d f = run.imu_rotation[s].transpose() * (dv / (static_cast<double>(window) * run.dt) - run.gravity);
  return f[axis];
}

/// Checks a run logged with noise off and no force quantisation: one row per
/// sample step nS <= N; row n stamped with the time at step nS, out at step
/// nS + h (or from finishLog when the run stopped first); its encoders the
/// value at nS; every other channel the mean of the probe's values over
/// steps nS - h .. nS + h, steps before 0 read at the initial state and
/// steps after N at the final one. `window` = 2h + 1 is given by the test,
/// not derived from S the way sensors.cpp derives it.
void expectCentredMeans(const LoggedRun& run, long window) {
  ASSERT_EQ(window % 2, 1);
  const long S = run.steps_per_sample, h = (window - 1) / 2;
  const long last = static_cast<long>(run.time.size()) - 1;
  const long num_rows = last / S + 1;
  ASSERT_EQ(static_cast<long>(run.rows.size()), num_rows) << "S = " << S << ", N = " << last;
  // finishLog has a row to give exactly when the last sample's window was
  // still open at the end; an open window whose sample step never came
  // gives nothing.
  EXPECT_EQ(run.finished, last - (num_rows - 1) * S < h) << "S = " << S << ", N = " << last;
  for (long n = 0; n < num_rows; ++n) {
    const long s = n * S;
    const std::vector<double>& row = run.rows[n];
    ASSERT_EQ(run.stamps[n], run.time[s]) << "row " << n;
    ASSERT_EQ(run.emitted_after[n], s + h <= last ? s + h : -1) << "row " << n;
    for (std::size_t c = 0; c < run.columns.size(); ++c) {
      if (isEncoder(run.columns[c])) {
        ASSERT_EQ(row[c], run.probe_row[s][c]) << run.columns[c] << " row " << n;
        continue;
      }
      if (isAccelerometer(run.columns[c])) {
        ASSERT_NEAR(row[c], expectedAccelerometer(run, window, n, c), 1e-9 * (1.0 + std::abs(row[c])))
            << run.columns[c] << " row " << n;
        continue;
      }
      double sum = 0.0, scale = 0.0;
      for (long j = s - h; j <= s + h; ++j) {
        const double v = isCurrent(run.columns[c]) ? expectedCurrent(run, j, c) : run.probe_truth[std::clamp(j, 0L, last)][c];
        sum += v;
        scale = std::max(scale, std::abs(v));
      }
      // Summation order differs from the logger's ((h + 1) x0 as one term,
      // for one): rounding of a few ulps of the largest term.
      ASSERT_NEAR(row[c], sum / static_cast<double>(window), 1e-12 * scale) << run.columns[c] << " row " << n;
    }
  }
}

/// JVRC-1 standing, loaded once for the logged-sampling tests. They step it
/// at 0.1 ms, not at the scene's 0.5 ms: their rates and windows (S = 50 at
/// 200 Hz, and 1 to 5 steps at 2 to 10 kHz) are written for that step, and
/// what they check, the windowing, does not depend on it. The scene's own
/// step is checked by AveragedChannelsAreCentredMeansAtTheSceneTimeStep.
class LoggedSensors : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    io::SceneOverrides step;
    step.dt = 1e-4;
    scene_ = new io::Scene(io::loadScene(standScene(), {}, step));
  }
  static void TearDownTestSuite() {
    delete scene_;
    scene_ = nullptr;
  }
  /// The scene's sensors at `rate`. Force resolutions are zeroed so that
  /// averaged rows can be compared to rounding rather than to a
  /// quantisation step; encoders are read, not averaged, and keep theirs.
  static SensorSpec spec(double rate, bool anti_alias, bool noise) {
    SensorSpec s = scene_->robot.value().sensors.value();
    s.rate = rate;
    s.anti_alias = anti_alias;
    s.noise = noise;
    for (ForceSensorSpec& fs : s.force_sensors) fs.force_resolution = fs.torque_resolution = 0.0;
    return s;
  }
  static io::Scene* scene_;
};
io::Scene* LoggedSensors::scene_ = nullptr;

TEST_F(LoggedSensors, AveragedChannelsAreCentredMeansAtTheSceneRate) {
  ASSERT_TRUE(scene_->robot->sensors->anti_alias);  // the scene leaves it at its default
  // 200 Hz at dt = 1e-4: S = 50, a window of 49 steps. Four periods,
  // ending on a sample step: finishLog holds the final state for its last
  // 24 steps.
  const LoggedRun run = runLogged(*scene_, spec(200.0, true, false), 200);
  ASSERT_EQ(run.steps_per_sample, 50);
  EXPECT_EQ(run.rows.size(), 5u);
  EXPECT_TRUE(run.finished);
  expectCentredMeans(run, 49);
  // The comparison has teeth only if averaging changes the rows: some
  // averaged channel must differ from its instantaneous value at the stamp.
  double largest = 0.0;
  for (std::size_t n = 0; n < run.rows.size(); ++n) {
    for (std::size_t c = 0; c < run.columns.size(); ++c) {
      if (isEncoder(run.columns[c])) continue;
      const double instant = run.probe_truth[n * 50][c];
      largest = std::max(largest, std::abs(run.rows[n][c] - instant) / (1.0 + std::abs(instant)));
    }
  }
  std::printf("largest relative change from averaging: %.3g\n", largest);
  EXPECT_GT(largest, 1e-3);
}

// The same at the scene's own step: 200 Hz at dt = 5e-4 s is S = 10, a
// window of 9 steps (4.5 ms of each 5 ms period).
TEST(LoggedSensorsAtSceneStep, AveragedChannelsAreCentredMeansAtTheSceneTimeStep) {
  const io::Scene scene = io::loadScene(standScene());
  ASSERT_EQ(scene.simulation.dt, 5e-4);
  SensorSpec s = scene.robot.value().sensors.value();
  s.noise = false;
  for (ForceSensorSpec& fs : s.force_sensors) fs.force_resolution = fs.torque_resolution = 0.0;
  const LoggedRun run = runLogged(scene, s, 40);
  ASSERT_EQ(run.steps_per_sample, 10);
  EXPECT_EQ(run.rows.size(), 5u);
  expectCentredMeans(run, 9);
}

// S odd and even, and the degenerate windows of one step.
TEST_F(LoggedSensors, WindowsForOddAndEvenStepsPerSample) {
  struct Case {
    double rate;
    long steps_per_sample, window;
  };
  for (const Case& c : {Case{2000.0, 5, 5}, Case{2500.0, 4, 3}, Case{5000.0, 2, 1}, Case{10000.0, 1, 1}}) {
    SCOPED_TRACE("S " + std::to_string(c.steps_per_sample));
    // Six periods and a step: the last window is open at the end for S = 5
    // (finishLog completes it), already closed for S = 4.
    const LoggedRun run = runLogged(*scene_, spec(c.rate, true, false), 6 * c.steps_per_sample + 1);
    ASSERT_EQ(run.steps_per_sample, c.steps_per_sample);
    expectCentredMeans(run, c.window);
  }
}

// Where the run stops decides whether finishLog has a row, and the row it
// gives reads the final state for the steps the run did not reach.
TEST_F(LoggedSensors, RunEndingInsideOrBetweenWindows) {
  struct Case {
    double rate;
    long steps_per_sample, window, num_steps;
    bool finished;
  };
  // S = 50, h = 24: sample 150's window is steps 126 .. 174, sample 200's
  // opens at 176; step 175 lies between windows. S = 5, h = 2: sample 15's
  // window is 13 .. 17.
  const Case cases[] = {
      {200.0, 50, 49, 160, true},    // past the sample step, 14 steps short of the window's end
      {200.0, 50, 49, 150, true},    // on the sample step itself
      {200.0, 50, 49, 174, false},   // the window closed on the last step: logStep gave the row
      {200.0, 50, 49, 175, false},   // between windows
      {200.0, 50, 49, 145, false},   // inside sample 150's window, before its step
      {200.0, 50, 49, 176, false},   // the step sample 200's window opens
      {2000.0, 5, 5, 16, true},
      {2000.0, 5, 5, 14, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("S " + std::to_string(c.steps_per_sample) + ", N " + std::to_string(c.num_steps));
    const LoggedRun run = runLogged(*scene_, spec(c.rate, true, false), c.num_steps);
    ASSERT_EQ(run.steps_per_sample, c.steps_per_sample);
    EXPECT_EQ(run.finished, c.finished);
    expectCentredMeans(run, c.window);
  }
}

// A run too short to reach the end of sample 0's window: the row comes from
// finishLog, the initial state held before step 0 and the final one after N.
TEST_F(LoggedSensors, RunShorterThanTheFirstHalfWindow) {
  for (long n : {0L, 1L, 10L}) {
    SCOPED_TRACE("N " + std::to_string(n));
    const LoggedRun run = runLogged(*scene_, spec(200.0, true, false), n);
    ASSERT_EQ(run.rows.size(), 1u);
    EXPECT_TRUE(run.finished);
    expectCentredMeans(run, 49);
  }
}

TEST_F(LoggedSensors, WithoutAntiAliasRowsAreSampleAtTheSampleSteps) {
  // The scene's own spec, quantisation included: both paths must give the
  // same bits, so nothing needs a tolerance.
  for (bool noise : {false, true}) {
    SCOPED_TRACE(noise ? "noise on" : "noise off");
    SensorSpec s = scene_->robot.value().sensors.value();
    s.anti_alias = false;
    s.noise = noise;
    const LoggedRun run = runLogged(*scene_, s, 3 * 50 + 30);
    ASSERT_EQ(run.rows.size(), 4u);
    ASSERT_EQ(run.reference_row.size(), 4u);
    EXPECT_FALSE(run.finished);  // a window of one step is closed as soon as it opens
    // Every channel but the accelerometer and the currents is sample()'s,
    // to the bit; the accelerometer reads the velocity change across the
    // sample's step, the current the mean of the commands either side of
    // it (checked below).
    for (std::size_t n = 0; n < run.rows.size(); ++n) {
      const std::vector<double>& a = run.rows[n];
      const std::vector<double>& b = run.reference_row[n];
      for (std::size_t c = 0; c < a.size(); ++c) {
        if (!isAccelerometer(run.columns[c]) && !isCurrent(run.columns[c])) {
          EXPECT_EQ(a[c], b[c]) << run.columns[c] << " row " << n;
        }
      }
      EXPECT_EQ(run.stamps[n], run.time[n * 50]) << "row " << n;
      EXPECT_EQ(run.emitted_after[n], static_cast<long>(n) * 50) << "row " << n;
    }
    if (!noise) {
      // Noise off, the stream is the probe's instantaneous rows, and the
      // accelerometer the velocity change over one step.
      for (std::size_t n = 0; n < run.rows.size(); ++n) {
        for (std::size_t c = 0; c < run.columns.size(); ++c) {
          if (isAccelerometer(run.columns[c])) {
            EXPECT_NEAR(run.rows[n][c], expectedAccelerometer(run, 1, n, c), 1e-9 * (1.0 + std::abs(run.rows[n][c])))
                << run.columns[c] << " row " << n;
          } else if (isCurrent(run.columns[c])) {
            EXPECT_EQ(run.rows[n][c], expectedCurrent(run, static_cast<long>(n) * 50, c)) << run.columns[c] << " row " << n;
          } else {
            EXPECT_EQ(run.rows[n][c], run.probe_row[n * 50][c]) << run.columns[c] << " row " << n;
          }
        }
      }
    } else {
      // The noise is there: a noisy row differs from its clean truth.
      EXPECT_NE(std::memcmp(run.rows[1].data(), run.probe_row[50].data(), run.rows[1].size() * sizeof(double)), 0);
    }
  }
}

// With averaging the noise is still drawn once per row, in sample()'s order:
// a logged row's noise (row minus the truth behind it) is the noise
// sample() adds to its n-th row.
TEST_F(LoggedSensors, AveragedRowsDrawTheSameNoiseAsSample) {
  const LoggedRun run = runLogged(*scene_, spec(200.0, true, true), 3 * 50 + 30);
  ASSERT_EQ(run.rows.size(), 4u);
  ASSERT_EQ(run.reference_row.size(), 4u);
  double largest_noise = 0.0;
  for (std::size_t n = 0; n < run.rows.size(); ++n) {
    for (std::size_t c = 0; c < run.columns.size(); ++c) {
      if (isEncoder(run.columns[c])) continue;  // quantised, noise-free: nothing to compare
      const double logged = run.rows[n][c] - run.logged_truth[n][c];
      const double sampled = run.reference_row[n][c] - run.reference_truth[n][c];
      largest_noise = std::max(largest_noise, std::abs(sampled));
      ASSERT_NEAR(logged, sampled, 1e-12 * (1.0 + std::abs(run.logged_truth[n][c]) + std::abs(run.reference_truth[n][c])))
          << run.columns[c] << " row " << n;
    }
  }
  EXPECT_GT(largest_noise, 0.0);
}

// A one-joint arm (a link hanging from a fixed base on a hinge about y
// through the origin) with `robot_extra` and `sensors` inside its <robot>.
io::Scene armScene(const std::string& name, const std::string& robot_extra, const std::string& sensors) {
  const std::string path = ::testing::TempDir() + "/suitsim_sensors_" + name + ".xml";
  std::ofstream(path) << "<?xml version=\"1.0\"?>\n"
                         "<scene name=\"" << name << "\">\n"
                         "  <simulation integrator=\"velocity_verlet\" dt=\"1e-4\" duration=\"0.1\"/>\n"
                         "  <robot name=\"arm\" base=\"fixed\">\n"
                         "    <link name=\"base\"/>\n"
                         "    <link name=\"upper\" mass=\"1.2\" com=\"0 0 -0.15\" inertia=\"0.01 0.011 0.002 0 0 0\"/>\n"
                         "    <joint name=\"shoulder\" type=\"revolute\" parent=\"base\" child=\"upper\" axis=\"0 1 0\""
                         " lower=\"-2\" upper=\"2\"/>\n"
                         "    <contact link=\"upper\" points=\"0 0 -0.3\"/>\n"
                      << robot_extra << sensors << "  </robot>\n</scene>\n";
  io::Scene scene = io::loadScene(path);
  std::remove(path.c_str());
  return scene;
}

// <sensors anti_alias="on|off">, default on. The JVRC-1 scenes leave it
// out; a small arm written here sets it.
TEST(SensorsScene, AntiAliasAttribute) {
  EXPECT_TRUE(io::loadScene(standScene()).robot.value().sensors.value().anti_alias);
  auto load = [](const std::string& name, const std::string& attribute) {
    return armScene(name, "", "    <sensors" + attribute + ">\n      <currents/>\n    </sensors>\n")
        .robot.value()
        .sensors.value();
  };
  EXPECT_FALSE(load("aa_off", " anti_alias=\"off\"").anti_alias);
  EXPECT_TRUE(load("aa_on", " anti_alias=\"on\"").anti_alias);
  EXPECT_TRUE(load("aa_default", "").anti_alias);
  EXPECT_TRUE(load("aa_default", " noise=\"off\"").anti_alias);  // another attribute does not switch it
}

// <band_lengths>: a draw-wire sensor along each band worn reads the wire's
// length through its via points, A(23), at the sample instant. On a
// swinging arm with a band from a point above the hinge to a point on the
// arm, the clean reading is |a - R(q) b| exactly; with noise on, readings
// carry the sensor's zero error and noise and sit on its resolution grid.
TEST(SensorsScene, BandLengthsReadTheWireThroughItsViaPoints) {
  io::Scene scene = armScene("band_lengths",
                             "    <band name=\"strap\" links=\"base upper\" points=\"0.02 0 0.1; 0.05 0 -0.2\" "
                             "stiffness=\"50\"/>\n",
                             "    <sensors rate=\"200\" seed=\"3\">\n"
                             "      <band_lengths noise=\"0.0002\" bias=\"0.002\" resolution=\"0.00005\"/>\n"
                             "    </sensors>\n");
  const Model& model = scene.model;
  SensorSpec noisy = scene.robot.value().sensors.value();
  ASSERT_EQ(noisy.band_lengths.names, std::vector<std::string>{"strap"});
  SensorSpec clean = noisy;
  clean.noise = false;
  Sensors exact(model, clean, scene.simulation.dt), logged(model, noisy, scene.simulation.dt);
  ASSERT_EQ(exact.columns().back(), "strap.length[m]");
  State state = makeState(model);
  const int hinge = scene.robot->compiled.joint_hinge[0];
  // Start the arm swinging: the rigid velocity of a turn at 2 rad/s about
  // the hinge's axis (y, through the origin).
  const int arm = scene.robot->compiled.link_body[1];
  for (int k = model.body_particle_begin[arm]; k < model.body_particle_end[arm]; ++k) {
    state.velocity.x[k] = 2.0 * state.position.z[k];
    state.velocity.z[k] = -2.0 * state.position.x[k];
  }
  Workspace ws(model, 1);
  double sum = 0.0, sum2 = 0.0;
  int n = 0;
  std::vector<double> row(exact.columns().size()), noisy_row(row.size());
  for (long k = 1; k <= 4000; ++k) {
    step(model, state, ws, scene.simulation.integrator, scene.simulation.dt);
    if (k % exact.stepsPerSample() != 0) continue;
    const double q = jointAngle(model, state, hinge);
    // a on the base; b on the arm, turned by q about y.
    const Eigen::Vector3d a(0.02, 0.0, 0.1), b(0.05, 0.0, -0.2);
    const Eigen::Vector3d Rb(std::cos(q) * b.x() + std::sin(q) * b.z(), 0.0, -std::sin(q) * b.x() + std::cos(q) * b.z());
    exact.sample(state, row.data());
    EXPECT_NEAR(row.back(), (a - Rb).norm(), 2e-6) << "q " << q;
    logged.sample(state, noisy_row.data());
    const double steps = noisy_row.back() / 0.00005;
    EXPECT_NEAR(steps, std::round(steps), 1e-6);
    const double e = noisy_row.back() - row.back() - 0.002;
    sum += e;
    sum2 += e * e;
    ++n;
  }
  ASSERT_EQ(n, 80);
  EXPECT_NEAR(sum / n, 0.0, 0.0001);                 // the zero error is the bias
  EXPECT_NEAR(std::sqrt(sum2 / n), 0.0002, 0.00006);  // and the noise its own
}

// ---------------------------------------------------------------------------
// The causal chain (SensorChainSpec, engine/src/sensor_chain.cpp).

// The biquad against the analogue filter it discretises: unit DC gain,
// exactly -3 dB at the cutoff (the prewarping), the analogue step response
// w^2 / (s^2 + sqrt(2) w s + w^2) at 10 kHz to 1e-4, and a slow sine
// delayed by sqrt(2) / (2 pi f_c).
TEST(SensorChain, ButterworthLowPassMatchesTheAnalogueFilter) {
  const double fc = 50.0, dt = 1e-4;
  const LowPass2 f = LowPass2::butterworth(fc, dt);
  EXPECT_NEAR((f.b0 + f.b1 + f.b2) / (1.0 + f.a1 + f.a2), 1.0, 1e-12);
  // |H(e^{i w dt})| at the cutoff.
  const std::complex<double> z = std::polar(1.0, 2.0 * M_PI * fc * dt);
  const std::complex<double> H = (f.b0 + f.b1 / z + f.b2 / (z * z)) / (1.0 + f.a1 / z + f.a2 / (z * z));
  EXPECT_NEAR(std::abs(H), 1.0 / std::sqrt(2.0), 1e-12);
  // Step response: 1 - e^{-z w t} (cos(w_d t) + z / sqrt(1 - z^2) sin(w_d t)), z = 1/sqrt(2).
  double z1 = 0.0, z2 = 0.0, worst = 0.0;
  const double w = 2.0 * M_PI * fc, zeta = 1.0 / std::sqrt(2.0), wd = w * std::sqrt(1.0 - zeta * zeta);
  for (int k = 0; k < 1000; ++k) {
    const double y = f.step(1.0, z1, z2);
    const double t = (k + 0.5) * dt;  // the bilinear transform's output sits half a step late
    const double exact = 1.0 - std::exp(-zeta * w * t) * (std::cos(wd * t) + zeta / std::sqrt(1.0 - zeta * zeta) * std::sin(wd * t));
    worst = std::max(worst, std::abs(y - exact));
  }
  EXPECT_LT(worst, 1e-3);
  // Settled on a constant, it stays there.
  f.settle(2.5, z1, z2);
  EXPECT_NEAR(f.step(2.5, z1, z2), 2.5, 1e-12);
  EXPECT_NEAR(f.step(2.5, z1, z2), 2.5, 1e-12);
  // A 1 Hz sine comes out late by the group delay: its zero crossing.
  z1 = z2 = 0.0;
  f.settle(0.0, z1, z2);
  double prev = 0.0, crossing = -1.0;
  for (int k = 1; k < 20000 && crossing < 0.0; ++k) {
    const double t = k * dt;
    const double y = f.step(std::sin(2.0 * M_PI * (t - 0.25)), z1, z2);  // rises through 0 at t = 0.25, 1.25, ...
    if (t > 1.0 && prev < 0.0 && y >= 0.0) crossing = t - dt * y / (y - prev);
    prev = y;
  }
  EXPECT_NEAR(crossing - 1.25, butterworthDelay(fc), 0.01 * butterworthDelay(fc));
  EXPECT_NEAR(butterworthDelay(fc), 4.502e-3, 1e-6);
  EXPECT_THROW(LowPass2::butterworth(0.0, dt), std::invalid_argument);
  EXPECT_THROW(LowPass2::butterworth(4500.0, dt), std::invalid_argument);
}

/// The scene's sensors at `rate` with every per-channel noise, bias and
/// resolution zeroed: noise on then leaves only what the chain draws.
SensorSpec quietSpec(const io::Scene& scene, double rate) {
  SensorSpec s = scene.robot.value().sensors.value();
  s.rate = rate;
  s.noise = true;
  s.encoders.resolution = 0.0;
  for (ImuSpec& imu : s.imus) {
    imu.gyro_noise = imu.accel_noise = 0.0;
    imu.gyro_bias = imu.accel_bias = Vec3{0.0, 0.0, 0.0};
  }
  for (ForceSensorSpec& fs : s.force_sensors) {
    fs.force_noise = fs.torque_noise = fs.force_resolution = fs.torque_resolution = 0.0;
  }
  s.currents.noise = 0.0;
  return s;
}

/// Runs `inputs` (one value per step 0 .. N) through the chain's filter for
/// `cutoff` (0: none), settled on the first: the value at step N.
double filtered(const std::vector<double>& inputs, double cutoff, double dt) {
  if (cutoff == 0.0) return inputs.back();
  const LowPass2 f = LowPass2::butterworth(cutoff, dt);
  double z1 = 0.0, z2 = 0.0, y = 0.0;
  f.settle(inputs.front(), z1, z2);
  for (double u : inputs) y = f.step(u, z1, z2);
  return y;
}

// Noise off (so no timing error): each row is stamped at its sample step and
// out at once; encoders read at the step; every filtered channel is its
// filter run at every step over the instantaneous values rebuilt here (the
// currents the commands' means, the accelerometer each step's velocity
// change over dt less gravity in the sensor frame); and a force sensor's
// reading is its crosstalk matrix times the filtered wrench.
TEST_F(LoggedSensors, CausalChainFiltersEveryChannelAtEveryStep) {
  SensorSpec s = spec(200.0, true, false);
  s.chain.causal = true;
  s.chain.imu_cutoff = 42.0;
  s.chain.force_cutoff = 50.0;
  s.chain.current_cutoff = 30.0;
  s.chain.jitter = 1e-4;  // noise off: not drawn
  ForceSensorSpec& fs = s.force_sensors.at(0);
  fs.crosstalk[1] = 0.02;   // Fx reads 2 % of Fy
  fs.crosstalk[6 * 5 + 3] = -0.03;  // Mz reads -3 % of Mx
  const LoggedRun run = runLogged(*scene_, s, 3 * 50 + 30);
  const double dt = scene_->simulation.dt;
  ASSERT_EQ(run.rows.size(), 4u);
  EXPECT_FALSE(run.finished);
  const int fs_column = column(Sensors(scene_->model, s, dt), fs.name + ".force.x[N]");
  double largest_lag = 0.0;
  for (std::size_t n = 0; n < run.rows.size(); ++n) {
    const long step_n = static_cast<long>(n) * 50;
    EXPECT_EQ(run.stamps[n], run.time[step_n]);
    EXPECT_EQ(run.emitted_after[n], step_n);
    for (std::size_t c = 0; c < run.columns.size(); ++c) {
      const std::string& name = run.columns[c];
      if (isEncoder(name)) {
        EXPECT_EQ(run.rows[n][c], run.probe_row[step_n][c]) << name;
        continue;
      }
      std::vector<double> inputs;
      for (long j = 0; j <= step_n; ++j) {
        if (isCurrent(name)) {
          inputs.push_back(expectedCurrent(run, j, c));
        } else if (isAccelerometer(name)) {
          const int axis = name[name.find(".accel.") + 7] - 'x';
          const Eigen::Vector3d dv = run.imu_velocity[j] - run.imu_velocity[std::max(j - 1, 0L)];
          inputs.push_back((run.imu_rotation[j].transpose() * (dv / dt - run.gravity))[axis]);
        } else {
          inputs.push_back(run.probe_truth[j][c]);
        }
      }
      const double cutoff = name.find(".current[") != std::string::npos ? 30.0
                            : name.find(".gyro.") != std::string::npos || isAccelerometer(name) ? 42.0
                                                                                                 : 50.0;
      const double expected = filtered(inputs, cutoff, dt);
      EXPECT_NEAR(run.logged_truth[n][c], expected, 1e-9 * (1.0 + std::abs(expected))) << name << " row " << n;
      largest_lag = std::max(largest_lag, std::abs(expected - inputs.back()) / (1.0 + std::abs(inputs.back())));
    }
    // Crosstalk acts on the reading, not on the truth behind it.
    const std::vector<double>& t = run.logged_truth[n];
    EXPECT_NEAR(run.rows[n][fs_column], t[fs_column] + 0.02 * t[fs_column + 1], 1e-9 * (1.0 + std::abs(t[fs_column])));
    EXPECT_NEAR(run.rows[n][fs_column + 5], t[fs_column + 5] - 0.03 * t[fs_column + 3], 1e-9);
    EXPECT_EQ(run.rows[n][fs_column + 2], t[fs_column + 2]);
  }
  // The comparison has teeth: the filters change what is read.
  EXPECT_GT(largest_lag, 1e-3);
}

// With noise on, each device is read at its own jittered instant: the row
// of step nS comes out J = ceil(3 sigma / dt) steps later, still stamped at
// nS, and each encoder lies between the values at the steps around it;
// without jitter the rows are the filtered values at the step.
TEST_F(LoggedSensors, CausalChainSamplesEachDeviceAtAJitteredInstant) {
  SensorSpec s = quietSpec(*scene_, 200.0);
  s.chain.causal = true;
  s.chain.jitter = 1e-4;  // 1 step RMS: J = 3
  const LoggedRun run = runLogged(*scene_, s, 4 * 50);
  SensorSpec still = s;
  still.chain.jitter = 0.0;
  const LoggedRun exact = runLogged(*scene_, still, 4 * 50);
  ASSERT_EQ(run.rows.size(), 5u);
  ASSERT_EQ(exact.rows.size(), 5u);
  EXPECT_TRUE(run.finished);  // the last row's instants reach past the end
  double moved = 0.0;
  for (std::size_t n = 0; n < run.rows.size(); ++n) {
    const long step_n = static_cast<long>(n) * 50;
    EXPECT_EQ(run.stamps[n], run.time[step_n]);
    EXPECT_EQ(run.emitted_after[n], n + 1 < run.rows.size() ? step_n + 3 : -1);
    EXPECT_EQ(exact.emitted_after[n], step_n);
    for (std::size_t c = 0; c < run.columns.size(); ++c) {
      moved = std::max(moved, std::abs(run.rows[n][c] - exact.rows[n][c]));
      if (!isEncoder(run.columns[c])) continue;
      double lo = 1e300, hi = -1e300;
      for (long j = step_n - 3; j <= step_n + 3; ++j) {
        const double v = run.probe_row[std::clamp(j, 0L, static_cast<long>(run.probe_row.size()) - 1)][c];
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      EXPECT_GE(run.rows[n][c], lo - 1e-15) << run.columns[c];
      EXPECT_LE(run.rows[n][c], hi + 1e-15) << run.columns[c];
    }
  }
  EXPECT_GT(moved, 0.0);
}

// The IMU biases walk: between consecutive samples each axis's reading
// moves by its walk's step, sigma sqrt(T), on top of the signal; the walk
// starts at the constant bias (here zero).
TEST_F(LoggedSensors, CausalChainImuBiasesWalkBySigmaRootT) {
  SensorSpec s = quietSpec(*scene_, 2000.0);  // S = 5 at dt = 1e-4
  s.chain.causal = true;
  s.chain.gyro_bias_walk = 0.01;
  s.chain.accel_bias_walk = 0.1;
  const LoggedRun run = runLogged(*scene_, s, 5 * 400);
  ASSERT_EQ(run.rows.size(), 401u);
  const double T = 5e-4;
  for (const char* kind : {".gyro.", ".accel."}) {
    double sum2 = 0.0;
    int count = 0;
    for (std::size_t c = 0; c < run.columns.size(); ++c) {
      if (run.columns[c].find(kind) == std::string::npos) continue;
      EXPECT_EQ(run.rows[0][c], run.logged_truth[0][c]) << run.columns[c];  // the walk starts at zero
      for (std::size_t n = 1; n < run.rows.size(); ++n) {
        const double step = (run.rows[n][c] - run.logged_truth[n][c]) - (run.rows[n - 1][c] - run.logged_truth[n - 1][c]);
        sum2 += step * step;
        ++count;
      }
    }
    const double sigma = (std::string(kind) == ".gyro." ? 0.01 : 0.1) * std::sqrt(T);
    EXPECT_EQ(count, 1200);
    EXPECT_NEAR(std::sqrt(sum2 / count), sigma, 0.1 * sigma) << kind;
  }
}

// A causal chain cannot be logged by a robot without sensors, and a filter
// above the step's Nyquist frequency is refused with its element.
TEST(SensorsScene, SensorChainNeedsSensorsAndACutoffTheStepCanCarry) {
  try {
    armScene("chain_no_sensors", "", "");
    SUCCEED();
  } catch (...) {
    ADD_FAILURE() << "a plain arm must load";
  }
  const std::string path = ::testing::TempDir() + "/suitsim_chain_no_sensors.xml";
  std::ofstream(path) << "<?xml version=\"1.0\"?>\n<scene name=\"c\">\n"
                         "  <realism><sensor_chain imu_cutoff=\"42\"/></realism>\n"
                         "  <simulation integrator=\"velocity_verlet\" dt=\"1e-4\" duration=\"0.1\"/>\n"
                         "  <robot name=\"arm\" base=\"fixed\">\n    <link name=\"base\"/>\n"
                         "    <link name=\"upper\" mass=\"1.2\" com=\"0 0 -0.15\" inertia=\"0.01 0.011 0.002 0 0 0\"/>\n"
                         "    <joint name=\"shoulder\" type=\"revolute\" parent=\"base\" child=\"upper\" axis=\"0 1 0\""
                         " lower=\"-2\" upper=\"2\"/>\n  </robot>\n</scene>\n";
  try {
    io::loadScene(path);
    ADD_FAILURE() << "a chain without sensors was accepted";
  } catch (const io::SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("suitsim_chain_no_sensors.xml:5:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("needs the robot's <sensors>"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

// ---------------------------------------------------------------------------
// <joint_torques>: a link-side torque sensor reads what the drive passes to
// the link (Workspace::hinge_drive_torque), after the gear's friction and
// the rotor. A single arm (1.2 kg, centre of mass 0.15 m below a horizontal
// hinge, 0.011 kg m^2 about it) turned by a constant motor torque against
// viscous friction, with a rotor: the link's own equation, independent of
// the drive, says the sensor reads I θ'' + m g l sin θ (I = 0.011 + m l^2
// about the hinge), while the drive's says u k_T - k_d θ' - I_a θ''.
// The arm of armScene (default gravity) at 0.6 rad with `actuation`.
io::Scene torqueArmScene(const std::string& name, const std::string& actuation, const std::string& sensors) {
  return armScene(name, "    <initial angles=\"shoulder:0.6\"/>\n" + actuation, sensors);
}

TEST(SensorsScene, JointTorqueReadsWhatTheDrivePassesToTheLink) {
  const double m = 1.2, l = 0.15, g = 9.81, I = 0.011 + m * l * l, k_d = 0.05, I_a = 0.02, u = 0.4;
  io::Scene scene = torqueArmScene(
      "joint_torques", "    <actuation motor_constant=\"1\" viscous=\"0.05\" armature=\"0.02\"/>\n",
      "    <sensors rate=\"1000\" noise=\"off\">\n      <joint_torques/>\n    </sensors>\n");
  const Model& model = scene.model;
  const SensorSpec spec = scene.robot.value().sensors.value();
  ASSERT_EQ(spec.joint_torques.names, std::vector<std::string>{"shoulder"});
  Sensors sensors(model, spec, scene.simulation.dt);
  ASSERT_EQ(sensors.columns().back(), "shoulder.torque[N*m]");
  const int hinge = scene.robot->compiled.joint_hinge[0];
  State state = makeState(model);
  state.hinge_current[hinge] = u;
  Workspace ws(model, 1);
  const double dt = scene.simulation.dt;
  std::vector<double> row(sensors.columns().size());
  double worst_link = 0.0, worst_drive = 0.0, largest = 0.0;
  double rate_before = jointVelocity(model, state, hinge);
  for (int k = 1; k <= 4000; ++k) {
    const double angle = jointAngle(model, state, hinge), rate = jointVelocity(model, state, hinge);
    const bool sample = k % 10 == 0;
    if (sample) sensors.sample(state, row.data());
    step(model, state, ws, scene.simulation.integrator, dt);
    if (!sample) {
      rate_before = rate;
      continue;
    }
    // θ'' at the sample by a central difference over the steps around it.
    const double acceleration = (jointVelocity(model, state, hinge) - rate_before) / (2.0 * dt);
    rate_before = rate;
    const double read = row.back();
    largest = std::max(largest, std::abs(read));
    worst_link = std::max(worst_link, std::abs(read - (I * acceleration + m * g * l * std::sin(angle))));
    worst_drive = std::max(worst_drive, std::abs(read - (u - k_d * rate - I_a * acceleration)));
  }
  std::printf("[measured] joint torque sensor on a swinging arm: largest reading %.4f N m; worst error against "
              "the link's equation %.3g N m, against the drive's %.3g N m\n",
              largest, worst_link, worst_drive);
  EXPECT_GT(largest, 0.1);
  EXPECT_LT(worst_link, 2e-4 * largest);
  EXPECT_LT(worst_drive, 2e-4 * largest);
}

// Held still against gravity, the reading is m g l sin θ whatever part of
// it static friction holds: the friction sits before the sensor.
TEST(SensorsScene, JointTorqueHeldByStaticFrictionReadsTheGravityTorque) {
  const double m = 1.2, l = 0.15, g = 9.81, q = 0.6;
  const double gravity = m * g * l * std::sin(q);
  io::Scene scene = torqueArmScene(
      "joint_torques_held",
      "    <actuation motor_constant=\"1\" coulomb=\"0.2\" static=\"0.6\" armature=\"0.02\"/>\n",
      "    <sensors rate=\"1000\" noise=\"off\">\n      <joint_torques/>\n    </sensors>\n");
  const Model& model = scene.model;
  Sensors sensors(model, scene.robot.value().sensors.value(), scene.simulation.dt);
  const int hinge = scene.robot->compiled.joint_hinge[0];
  State state = makeState(model);
  state.hinge_current[hinge] = gravity - 0.3;  // friction holds the remaining 0.3 N m (< 0.6)
  Workspace ws(model, 1);
  std::vector<double> row(sensors.columns().size());
  for (int k = 0; k < 2000; ++k) step(model, state, ws, scene.simulation.integrator, scene.simulation.dt);
  sensors.sample(state, row.data());
  std::printf("[measured] held arm: angle moved %.3g rad, sensor %.6f N m, m g l sin q %.6f N m, motor %.6f N m\n",
              jointAngle(model, state, hinge) - q, row.back(), gravity, gravity - 0.3);
  EXPECT_NEAR(jointAngle(model, state, hinge), q, 1e-4);
  EXPECT_NEAR(row.back(), gravity, 1e-3);
}

// Noise, bias and resolution as the other kinds: the reading sits on the
// resolution grid, offset by the bias.
TEST(SensorsScene, JointTorqueNoiseBiasAndResolution) {
  io::Scene scene = torqueArmScene(
      "joint_torques_noise", "    <actuation motor_constant=\"1\" viscous=\"0.05\"/>\n",
      "    <sensors rate=\"1000\" seed=\"4\">\n      <joint_torques noise=\"0.02\" bias=\"0.3\" resolution=\"0.001\"/>\n"
      "    </sensors>\n");
  const Model& model = scene.model;
  SensorSpec noisy = scene.robot.value().sensors.value();
  SensorSpec clean = noisy;
  clean.noise = false;
  Sensors exact(model, clean, scene.simulation.dt), logged(model, noisy, scene.simulation.dt);
  State state = makeState(model);
  std::vector<double> a(exact.columns().size()), b(a.size());
  double sum = 0.0, sum2 = 0.0;
  const int n = 2000;
  for (int k = 0; k < n; ++k) {
    exact.sample(state, a.data());
    logged.sample(state, b.data());
    const double steps = b.back() / 0.001;
    EXPECT_NEAR(steps, std::round(steps), 1e-6);
    sum += b.back() - a.back();
    sum2 += (b.back() - a.back() - 0.3) * (b.back() - a.back() - 0.3);
  }
  EXPECT_NEAR(sum / n, 0.3, 0.002);
  EXPECT_NEAR(std::sqrt(sum2 / n), 0.02, 0.002);
}

}  // namespace
}  // namespace suitsim
