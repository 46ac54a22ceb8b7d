// identifyRobot (A §3) against known truth on exact synthetic data.
//
// A floating tree of five revolute joints is moved by minimum-jerk strokes
// with pauses between them. Its "sensor" data are made with the library's own
// inverse dynamics and a known actuator and friction model A(6)-(7); there is
// no simulator and no filter, so A(11) holds to rounding on every sample. What
// remains to bias the estimates is how the joint rows treat a joint at rest:
//  - RestRows::Excluded keeps only rows inside sliding stretches, where A(12)
//    is exact, so φ and ξ must come back to rounding and regularisation;
//  - RestRows::SignRule, the paper's A(8)-(9), writes every rest row as if
//    the friction sat at ±τ_s^max. Here it mostly holds less, so those rows
//    are wrong and pull φ and k_T away from the truth.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "rigid_test_util.h"
#include "robots.h"
#include "suitsim/rigid/base_parameters.h"
#include "suitsim/eval/identification.h"
#include "suitsim/rigid/regressor.h"

namespace suitsim::eval {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using testutil::relativeError;
using testutil::sci;
using RestRows = IdentificationOptions::RestRows;

constexpr double kDt = 0.01;    // 100 Hz
constexpr int kSamples = 2500;  // 25 s per trial
constexpr int kTrials = 3;

// ---- the robot ------------------------------------------------------------------

// An arm of three joints and a tail of two on a floating base. The axes are
// all different (and some oblique) and every link has an off-axis CoM and a
// rotated inertia tensor, so no base parameter is zero by symmetry.
RobotDescription treeRobot() {
  using testing::addJoint;
  using testing::addLink;
  using testing::rotatedInertia;
  RobotDescription robot;
  robot.name = "identification_tree";
  robot.floating_base = true;
  const int base = addLink(robot, "base", 6.0, {0.02, -0.01, 0.03}, rotatedInertia(0.08, 0.06, 0.05, 0.1, -0.05, 0.2));
  const int upper = addLink(robot, "upper", 2.2, {0.03, 0.01, -0.14}, rotatedInertia(0.03, 0.028, 0.006, 0.1, 0.05, -0.1));
  const int fore = addLink(robot, "fore", 1.4, {0.01, 0.02, -0.12}, rotatedInertia(0.012, 0.011, 0.002, -0.2, 0.1, 0.3));
  const int hand = addLink(robot, "hand", 0.6, {0.04, -0.01, 0.01}, rotatedInertia(0.002, 0.0015, 0.001, 0.3, 0.2, 0.1));
  const int tail = addLink(robot, "tail", 1.8, {-0.12, 0.02, 0.0}, rotatedInertia(0.004, 0.02, 0.018, 0.05, 0.1, 0.2));
  const int tip = addLink(robot, "tip", 0.9, {-0.09, 0.015, 0.02}, rotatedInertia(0.001, 0.006, 0.0055, 0.2, 0.0, -0.1));
  addJoint(robot, "shoulder", JointType::kRevolute, base, upper, {0.05, 0.12, 0.1}, {0.1, 0.0, 0.2}, {0.0, 0.0, 1.0});
  addJoint(robot, "elbow", JointType::kRevolute, upper, fore, {0.0, 0.0, -0.28}, {0.0, 0.2, 0.0}, {0.0, 1.0, 0.0});
  addJoint(robot, "wrist", JointType::kRevolute, fore, hand, {0.0, 0.01, -0.24}, {0.1, 0.0, 0.1}, {1.0, 0.3, 0.2});
  addJoint(robot, "hip", JointType::kRevolute, base, tail, {-0.1, 0.0, -0.05}, {0.0, 0.0, 0.3}, {0.2, 1.0, 0.3});
  addJoint(robot, "knee", JointType::kRevolute, tail, tip, {-0.25, 0.0, 0.0}, {0.1, 0.0, 0.0}, {0.3, 0.0, 1.0});
  // Geared servos: k_T in N m/A, friction of a few tenths of a N m, the
  // breakaway torque above the Coulomb level, a small offset.
  // Each has a rotor: I_a of a few hundredths of a kg m^2 (reflected).
  struct Actuator {
    double k_T, k_d, tau_c, tau_s, tau_o, armature;
  };
  const Actuator actuators[5] = {
      {0.12, 0.8, 0.35, 0.55, 0.03, 0.06},  {0.18, 0.5, 0.25, 0.40, -0.02, 0.04}, {0.10, 0.3, 0.20, 0.30, 0.01, 0.01},
      {0.15, 0.9, 0.45, 0.70, -0.04, 0.05}, {0.14, 0.4, 0.30, 0.45, 0.015, 0.02},
  };
  for (int j = 0; j < 5; ++j) {
    JointActuation& a = robot.joints[j].actuation;
    a.motor_constant = actuators[j].k_T;
    a.viscous = actuators[j].k_d;
    a.coulomb = actuators[j].tau_c;
    a.static_max = actuators[j].tau_s;
    a.torque_offset = actuators[j].tau_o;
    a.armature = actuators[j].armature;
  }
  return robot;
}

// The a-priori model: same geometry, every inertial parameter and every
// joint parameter off by 10-30 %. Scaling a whole inertia tensor keeps the
// link physical.
RobotDescription aprioriRobot() {
  RobotDescription robot = treeRobot();
  const double mass[6] = {1.2, 0.8, 1.25, 0.85, 1.15, 0.75};
  const double inertia[6] = {0.8, 1.3, 0.85, 1.2, 0.75, 1.25};
  for (std::size_t l = 0; l < robot.links.size(); ++l) {
    LinkInertial& in = robot.links[l].inertial;
    in.mass *= mass[l];
    const double sign = l % 2 == 0 ? 1.0 : -1.0;
    in.com[0] += 0.02 * sign;
    in.com[1] -= 0.015 * sign;
    in.com[2] += 0.01;
    for (double& c : in.inertia) c *= inertia[l];
  }
  const double off[5][5] = {
      {1.2, 0.8, 1.25, 0.85, 0.7},  {0.85, 1.3, 0.8, 1.2, 1.25}, {1.15, 0.75, 1.2, 0.8, 1.3},
      {0.8, 1.2, 0.85, 1.25, 0.75}, {1.25, 0.85, 1.15, 0.7, 1.2},
  };
  for (int j = 0; j < 5; ++j) {
    JointActuation& a = robot.joints[j].actuation;
    a.motor_constant *= off[j][0];
    a.viscous *= off[j][1];
    a.coulomb *= off[j][2];
    a.static_max *= off[j][3];
    a.torque_offset *= off[j][4];
    a.armature *= off[j][0];
  }
  return robot;
}

// ---- the motions --------------------------------------------------------------

// Minimum-jerk blend s(x) = 10x³ − 15x⁴ + 6x⁵ on [0, 1] and its derivatives:
// zero velocity and acceleration at both ends, so a stroke starts and ends at
// exact rest.
struct Blend {
  double s, ds, dds;
};
Blend minimumJerk(double x) {
  x = std::clamp(x, 0.0, 1.0);
  const double x2 = x * x;
  return {x2 * x * (10.0 - 15.0 * x + 6.0 * x2), 30.0 * x2 * (1.0 - x) * (1.0 - x),
          60.0 * x * (1.0 - x) * (1.0 - 2.0 * x)};
}

// One joint over one trial: its motion and the friction torque τ_f it
// carries, with τ = k_T u + τ_o − τ_f (friction opposes the motion, so τ_f
// has the sign of θ̇ while sliding).
struct JointTrack {
  VectorXd q, qd, qdd, friction;
};

// Strokes of 0.5-1.3 rad over 0.6-1.4 s, each followed by a pause of
// 0.3-0.9 s; the direction turns back when the joint strays 0.4 rad from
// `centre`, so both reversals and repeated strokes the same way occur.
//
// The friction, A(7):
//  - sliding (θ̇ ≠ 0): k_d θ̇ + τ_c sgn θ̇;
//  - at rest the static friction holds whatever the drive leaves over,
//    anywhere inside ±τ_s^max. It starts where sliding left it (τ_c in the
//    direction of the stroke that just ended, the limit of the sliding law as
//    θ̇ → 0), drifts smoothly to a random level within ±0.7 τ_s^max, and in the
//    last 0.15 s before the next stroke the drive builds up until the friction
//    reaches the bound in the direction of that stroke: the joint breaks away.
//    The sample where the stroke begins (θ̇ still exactly 0) and the one before
//    it sit at ±τ_s^max; every other rest sample is strictly inside.
// So the largest hold seen at rest is exactly τ_s^max, while most holds are
// inside the bound, where the sign rule A(8)-(9) cannot put them. The drop
// from τ_s^max to τ_c once the joint slides is the usual stiction drop.
JointTrack strokesWithPauses(double k_d, double tau_c, double tau_s, double centre, std::mt19937& rng) {
  std::uniform_int_distribution<int> pause(30, 90), duration(60, 140);
  std::uniform_real_distribution<double> stroke(0.5, 1.3), unit(-1.0, 1.0);
  JointTrack tr{VectorXd::Zero(kSamples), VectorXd::Zero(kSamples), VectorXd::Zero(kSamples),
                VectorXd::Zero(kSamples)};
  constexpr int kBuildUp = 15;  // samples of the drive's build-up to breakaway
  double angle = centre + 0.3 * unit(rng);
  double hold = 0.5 * tau_s * unit(rng);  // before the trial: unknown, inside the bound
  int k = 0;
  while (k < kSamples) {
    const int start = k + pause(rng);  // first sample of the next stroke (θ̇ = 0 there)
    const int len = duration(rng);
    const bool moves = start + len < kSamples;
    const int rest_end = moves ? start : kSamples - 1;
    const double dir = angle > centre + 0.4 ? -1.0 : angle < centre - 0.4 ? 1.0 : (unit(rng) > 0.0 ? 1.0 : -1.0);
    const double level = 0.7 * tau_s * unit(rng);
    const int drift_end = moves ? rest_end - 1 - kBuildUp : rest_end;
    for (int j = k; j <= rest_end; ++j) {
      tr.q[j] = angle;
      if (moves && j >= rest_end - 1) {
        tr.friction[j] = dir * tau_s;  // breakaway
      } else if (moves && j >= drift_end) {
        const double x = static_cast<double>(j - drift_end) / kBuildUp;  // < 1: strictly inside
        tr.friction[j] = level + (dir * tau_s - level) * minimumJerk(x).s;
      } else {
        const double x = static_cast<double>(j - k) / std::max(1, drift_end - k);
        tr.friction[j] = hold + (level - hold) * minimumJerk(x).s;
      }
    }
    if (!moves) break;
    const double amplitude = dir * stroke(rng), T = len * kDt;
    for (int j = start + 1; j < start + len; ++j) {
      const Blend b = minimumJerk(static_cast<double>(j - start) / len);
      tr.q[j] = angle + amplitude * b.s;
      tr.qd[j] = amplitude * b.ds / T;
      tr.qdd[j] = amplitude * b.dds / (T * T);
      tr.friction[j] = k_d * tr.qd[j] + tau_c * (tr.qd[j] > 0.0 ? 1.0 : -1.0);
    }
    angle += amplitude;
    hold = dir * tau_c;  // where sliding leaves the friction
    k = start + len;
  }
  return tr;
}

// A joint held still through the whole trial: the static friction follows a
// drive that never reaches breakaway (within ±0.85 τ_s^max).
JointTrack heldStill(double tau_s, double centre, std::mt19937& rng) {
  std::uniform_real_distribution<double> phase(0.0, 2.0 * std::numbers::pi);
  const double p1 = phase(rng), p2 = phase(rng);
  JointTrack tr{VectorXd::Constant(kSamples, centre), VectorXd::Zero(kSamples), VectorXd::Zero(kSamples),
                VectorXd::Zero(kSamples)};
  for (int j = 0; j < kSamples; ++j) {
    const double t = j * kDt;
    tr.friction[j] = tau_s * (0.6 * std::sin(0.7 * t + p1) + 0.25 * std::sin(2.3 * t + p2));
  }
  return tr;
}

// One trial as A(11) samples. Base motion: two sinusoids per axis of angular
// velocity (its derivative analytic), and a specific force of about 1 g whose
// direction wanders, plus a wobble, so the gravity-like loads turn through
// every joint axis. `still_joint` (≥ 0) never moves.
MotionData makeTrial(const RigidModel& model, const BaseParameters& base, const VectorXd& phi,
                     const JointParameters& xi, int still_joint, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> amp(0.3, 0.9), freq(1.0, 5.0), phase(0.0, 2.0 * std::numbers::pi),
      centre(-0.8, 0.8);
  const int nj = model.num_joints;
  MotionData d;
  d.name = "trial" + std::to_string(seed);
  d.time.resize(kSamples);
  d.q.resize(kSamples, nj);
  d.qd.resize(kSamples, nj);
  d.qdd.resize(kSamples, nj);
  MatrixXd friction(kSamples, nj);
  for (int i = 0; i < nj; ++i) {
    const JointTrack tr = i == still_joint ? heldStill(xi.static_max[i], centre(rng), rng)
                                           : strokesWithPauses(xi.viscous[i], xi.coulomb[i], xi.static_max[i],
                                                               centre(rng), rng);
    d.q.col(i) = tr.q;
    d.qd.col(i) = tr.qd;
    d.qdd.col(i) = tr.qdd;
    friction.col(i) = tr.friction;
  }
  double wa[3][2], ww[3][2], wp[3][2], aa[3], aw[3], ap[3];
  for (int a = 0; a < 3; ++a) {
    for (int m = 0; m < 2; ++m) {
      wa[a][m] = amp(rng);
      ww[a][m] = freq(rng);
      wp[a][m] = phase(rng);
    }
    aa[a] = 3.0 * amp(rng);
    aw[a] = freq(rng);
    ap[a] = phase(rng);
  }
  d.omega.resize(kSamples, 3);
  d.omegad.resize(kSamples, 3);
  d.base_acc.resize(kSamples, 3);
  for (int j = 0; j < kSamples; ++j) {
    const double t = j * kDt;
    d.time[j] = t;
    Eigen::Vector3d up(0.5 * std::sin(0.21 * t + ap[0]), 0.5 * std::sin(0.17 * t + ap[1]), 1.0);
    up *= 9.81 / up.norm();
    for (int a = 0; a < 3; ++a) {
      d.omega(j, a) = d.omegad(j, a) = 0.0;
      for (int m = 0; m < 2; ++m) {
        d.omega(j, a) += wa[a][m] * std::sin(ww[a][m] * t + wp[a][m]);
        d.omegad(j, a) += wa[a][m] * ww[a][m] * std::cos(ww[a][m] * t + wp[a][m]);
      }
      d.base_acc(j, a) = up[a] + aa[a] * std::sin(aw[a] * t + ap[a]);
    }
  }
  // Right-hand side A(10): a wrench on the base link alone balances the base
  // rows, F_o = Y_o φ, and does not enter the joint rows (F_j = 0), so the
  // joints carry τ = Y_j φ, which the actuators deliver through A(6)-(7):
  // k_T u + τ_o − I_a θ̈ − τ_f = τ (the rotor takes I_a θ̈ first).
  const MatrixXd tau = inverseDynamics(model, base, phi, d);
  d.F = MatrixXd::Zero(kSamples, model.nv);
  d.F.leftCols(6) = tau.leftCols(6);
  d.current.resize(kSamples, nj);
  // A lossy gear (Δk_b > 0, identification.h): the link gets k_T u + τ_o
  // while the motor drives it and (k_T + Δk_b)(u + τ_o / k_T) while the
  // link drives the motor, the load's sign against the rate.
  for (int i = 0; i < nj; ++i) {
    for (int j = 0; j < kSamples; ++j) {
      const double load = tau(j, 6 + i) + friction(j, i) + xi.armature[i] * d.qdd(j, i);
      const double k = xi.motor_constant[i], tau_o = xi.offset[i];
      d.current(j, i) = load * d.qd(j, i) < 0.0 ? load / (k + xi.backdrive_excess[i]) - tau_o / k : (load - tau_o) / k;
    }
  }
  return d;
}

// ---- the identification -----------------------------------------------------------

// Regularisation weights A(16)-(17): on exact data the only error left in
// Excluded mode is their pull toward the a-priori values, linear in w (at
// 1e-9 it is about 6e-7 on k_T, too close to the 1e-6 tolerance; at 1e-12,
// 6e-10), and they must still hold what no row excites.
// static_quantile = 1: on exact data the largest hold at rest is the
// breakaway torque itself. The default 0.99 would also land on a breakaway
// sample here (about 3 % of the rest samples), but 1 does not depend on that.
IdentificationOptions options(RestRows rest_rows) {
  IdentificationOptions o;
  o.w_phi = o.w_T = o.w_d = o.w_c = o.w_s = o.w_o = o.w_a = o.w_g = 1e-12;
  o.rest_rows = rest_rows;
  o.static_quantile = 1.0;
  return o;
}

struct Case {
  RigidModel truth_model, apriori_model;
  BaseParameters base;
  VectorXd phi;                 // true base parameters
  JointParameters xi, xi_apriori;
  std::vector<MotionData> trials;
  RobotIdentification excluded, sign_rule;
};

// `eta_f`, `eta_b`: every joint's gear efficiency, driving and backdriven
// (JointActuation), in the truth only.
Case makeCase(int still_joint, double eta_f = 1.0, double eta_b = 1.0) {
  Case c;
  RobotDescription truth = treeRobot();
  for (RobotJoint& j : truth.joints) {
    j.actuation.gear_efficiency = eta_f;
    j.actuation.backdrive_efficiency = eta_b;
  }
  c.truth_model = makeRigidModel(truth);
  const RobotDescription apriori = aprioriRobot();
  c.apriori_model = makeRigidModel(apriori);
  c.base = computeBaseParameters(c.apriori_model);  // geometry only: the same for both models
  c.phi = c.base.fromStandard(standardParameters(c.truth_model));
  c.xi = jointParameters(c.truth_model, truth);
  c.xi_apriori = jointParameters(c.apriori_model, apriori);
  for (int k = 0; k < kTrials; ++k) {
    c.trials.push_back(makeTrial(c.truth_model, c.base, c.phi, c.xi, still_joint, 11u + 7u * k));
  }
  c.excluded = identifyRobot(c.apriori_model, c.base, c.xi_apriori, c.trials, options(RestRows::Excluded));
  c.sign_rule = identifyRobot(c.apriori_model, c.base, c.xi_apriori, c.trials, options(RestRows::SignRule));
  return c;
}

// Every joint slides at times; built once for all the tests that use it.
const Case& everyJointSlides() {
  static const Case c = makeCase(-1);
  return c;
}

constexpr int kStill = 2;  // the wrist
const Case& wristNeverSlides() {
  static const Case c = makeCase(kStill);
  return c;
}

struct Errors {
  double phi = 0.0, k_T = 0.0, k_d = 0.0, tau_c = 0.0, tau_s = 0.0, tau_o = 0.0, armature = 0.0;  // worst over joints
};

// Relative errors (τ_o: absolute, it is small) of an identification, over
// the joints in `joints`.
Errors errorsOf(const Case& c, const RobotIdentification& r, const std::vector<int>& joints) {
  Errors e;
  e.phi = relativeError(r.phi, c.phi);
  for (int i : joints) {
    e.k_T = std::max(e.k_T, relativeError(r.xi.motor_constant[i], c.xi.motor_constant[i]));
    e.k_d = std::max(e.k_d, relativeError(r.xi.viscous[i], c.xi.viscous[i]));
    e.tau_c = std::max(e.tau_c, relativeError(r.xi.coulomb[i], c.xi.coulomb[i]));
    e.tau_s = std::max(e.tau_s, relativeError(r.xi.static_max[i], c.xi.static_max[i]));
    e.tau_o = std::max(e.tau_o, std::abs(r.xi.offset[i] - c.xi.offset[i]));
    e.armature = std::max(e.armature, relativeError(r.xi.armature[i], c.xi.armature[i]));
  }
  return e;
}

void print(const char* label, const Errors& e) {
  std::printf("[measured] %s: phi %.3g, k_T %.3g, k_d %.3g, tau_c %.3g, tau_s %.3g, I_a %.3g (rel); tau_o %.3g N m\n",
              label, e.phi, e.k_T, e.k_d, e.tau_c, e.tau_s, e.armature, e.tau_o);
}

const std::vector<int> kAllJoints = {0, 1, 2, 3, 4};

// Errors of an identification over every joint, printed and recorded in
// the test report under `key` (phi_error_<key>, kT_error_<key>).
Errors recordedErrors(const Case& c, const RobotIdentification& r, const char* label, const std::string& key) {
  const Errors e = errorsOf(c, r, kAllJoints);
  print(label, e);
  ::testing::Test::RecordProperty("phi_error_" + key, sci(e.phi));
  ::testing::Test::RecordProperty("kT_error_" + key, sci(e.k_T));
  return e;
}

TEST(IdentifyRobot, ExcludedRestRowsRecoverEveryParameterFromExactData) {
  const Case& c = everyJointSlides();
  const Errors e = recordedErrors(c, c.excluded, "excluded", "excluded");
  // The a-priori model is 10-30 % off: only the data can bring these back.
  ASSERT_GT(relativeError(c.excluded.phi_apriori, c.phi), 0.05);
  EXPECT_LT(e.phi, 1e-6);
  EXPECT_LT(e.k_T, 1e-6);
  EXPECT_LT(e.k_d, 1e-6);
  EXPECT_LT(e.tau_c, 1e-6);
  EXPECT_LT(e.tau_o, 1e-6);
  EXPECT_LT(e.armature, 1e-6);
  // τ_s^max is the largest hold at rest: the breakaway samples, exactly the
  // bound, seen through the identified k_T, τ_o and φ.
  EXPECT_LT(e.tau_s, 1e-5);
  EXPECT_EQ(c.excluded.num_samples, kTrials * kSamples);
  // Only τ_s^max has no row, and it is estimated apart: nothing unexcited.
  EXPECT_EQ(c.excluded.unexcited_columns, 0);
  EXPECT_TRUE(std::isfinite(c.excluded.condition_number));
}

// The rotors not fitted: taken at the a-priori values as known
// (IdentificationOptions::Armature::Known), or ignored (Ignored: zero). At the true values everything comes
// back as when they are fitted; ignored (zero) they bias k_T and φ, which
// is what the armature column is for.
TEST(IdentifyRobot, ArmatureHeldAtItsAprioriValueOrIgnored) {
  const Case& c = everyJointSlides();
  IdentificationOptions o = options(RestRows::Excluded);
  o.armature = IdentificationOptions::Armature::Known;
  JointParameters known = c.xi_apriori;
  known.armature = c.xi.armature;
  const RobotIdentification held = identifyRobot(c.apriori_model, c.base, known, c.trials, o);
  const Errors e_held = errorsOf(c, held, kAllJoints);
  print("armature known", e_held);
  EXPECT_LT(e_held.phi, 1e-6);
  EXPECT_LT(e_held.k_T, 1e-6);
  EXPECT_EQ(e_held.armature, 0.0);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(std::isnan(held.xi_relative_std.armature[i]));
  EXPECT_EQ(held.unexcited_columns, 0);
  o.armature = IdentificationOptions::Armature::Ignored;
  const RobotIdentification ignored = identifyRobot(c.apriori_model, c.base, c.xi_apriori, c.trials, o);
  EXPECT_EQ(ignored.xi.armature.cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(ignored.xi_apriori.armature.cwiseAbs().maxCoeff(), 0.0);
  const Errors e_ignored = errorsOf(c, ignored, kAllJoints);
  print("armature ignored", e_ignored);
  EXPECT_GT(std::max(e_ignored.phi, e_ignored.k_T), 1e-3);
}

// The rows a sliding stretch keeps (RestRows::Excluded, motion_margin_s)
// must not depend on how the clock was written: a log's time column in ms,
// read as t = k * 10 * 1e-3 s, lands a few 1e-17 s off the k * 0.01 of the
// same samples, and an exact comparison with the margin (0.1 s = 10
// samples) kept or dropped the row at the margin by that rounding, so the
// same readings gave other estimates on noisy data. With the half-sample
// tolerance both clocks keep the same rows and give the same estimates.
TEST(IdentifyRobot, RowsKeptDoNotDependOnTheClocksRounding) {
  const Case& c = everyJointSlides();
  std::vector<MotionData> seconds = c.trials, millis = c.trials;
  std::mt19937 rng(5);
  std::normal_distribution<double> noise(0.0, 0.05);
  for (std::size_t k = 0; k < seconds.size(); ++k) {
    for (int t = 0; t < seconds[k].numSamples(); ++t) {
      seconds[k].time[t] = t / (1.0 / kDt);  // as a reading in s is parsed: the nearest double
      millis[k].time[t] = (t * (1e3 * kDt)) * 1e-3;  // a reading in ms times the unit
      for (int i = 0; i < seconds[k].current.cols(); ++i) {
        const double e = noise(rng);
        seconds[k].current(t, i) += e;
        millis[k].current(t, i) += e;
      }
    }
  }
  int differ = 0;
  for (int t = 0; t < seconds[0].numSamples(); ++t) differ += seconds[0].time[t] != millis[0].time[t] ? 1 : 0;
  ASSERT_GT(differ, 100) << "the two clocks must differ in rounding for this test to mean anything";
  const IdentificationOptions o = options(RestRows::Excluded);
  const RobotIdentification a = identifyRobot(c.apriori_model, c.base, c.xi_apriori, seconds, o);
  const RobotIdentification b = identifyRobot(c.apriori_model, c.base, c.xi_apriori, millis, o);
  const double phi = relativeError(b.phi, a.phi), kd = relativeError(b.xi.viscous, a.xi.viscous);
  std::printf("[measured] same readings, clock in s and in ms: phi differs by %.3g, k_d by %.3g (relative)\n", phi, kd);
  EXPECT_LT(phi, 1e-9);
  EXPECT_LT(kd, 1e-9);
}

// A motor that turns with two joints (a coupled wrist: θ_m = 20 q_elbow +
// 15 q_wrist), with its own rotor inertia and viscous and Coulomb friction
// on the motor side, in the truth: the joints feel rᵀ (J r q̈ + b r q̇ +
// c sgn(r q̇)) beyond their own terms. Given the drive's row
// (IdentificationOptions::coupled_drives), J, b and c come back exactly, the
// two joints' I_a and k_d with the diagonal r_i² J and r_i² b added
// (identification.h, CoupledDrive), and everything else as without it.
// Without the drive's columns the same data leave the joints' friction off.
TEST(IdentifyRobot, CoupledMotorsRotorAndFrictionRecoveredFromExactData) {
  const Case& c = everyJointSlides();
  CoupledDrive truth;
  truth.name = "m_wrist";
  truth.row = VectorXd::Zero(5);
  truth.row[1] = 20.0;
  truth.row[2] = 15.0;
  truth.rotor_inertia = 2e-5;  // kg m^2, motor side: 8e-3 and 4.5e-3 reflected
  truth.viscous = 4e-4;        // N m s/rad: 0.16 and 0.09 reflected
  truth.coulomb = 0.01;        // N m: 0.2 and 0.15 reflected
  std::vector<MotionData> trials = c.trials;
  for (MotionData& d : trials) {
    for (int t = 0; t < d.numSamples(); ++t) {
      const VectorXd qd = d.qd.row(t).transpose(), qdd = d.qdd.row(t).transpose();
      const double m = truth.row.dot(qd);
      for (int i : {1, 2}) {
        const double r = truth.row[i];
        const double drive = r * (truth.rotor_inertia * truth.row.dot(qdd) + truth.viscous * m +
                                  truth.coulomb * (m > 0.0 ? 1.0 : (m < 0.0 ? -1.0 : 0.0)));
        d.current(t, i) += drive / c.xi.motor_constant[i];  // no gear loss in this case
      }
    }
  }
  IdentificationOptions o = options(RestRows::Excluded);
  CoupledDrive apriori = truth;
  apriori.rotor_inertia = apriori.viscous = apriori.coulomb = 0.0;
  o.coupled_drives = {apriori};
  const RobotIdentification r = identifyRobot(c.apriori_model, c.base, c.xi_apriori, trials, o);
  ASSERT_EQ(r.xi.drives.size(), 1u);
  const CoupledDrive& got = r.xi.drives[0];
  std::printf("[measured] coupled drive: J %.6g (true %.6g), b %.6g (%.6g), c %.6g (%.6g)\n", got.rotor_inertia,
              truth.rotor_inertia, got.viscous, truth.viscous, got.coulomb, truth.coulomb);
  EXPECT_LT(relativeError(got.rotor_inertia, truth.rotor_inertia), 1e-6);
  EXPECT_LT(relativeError(got.viscous, truth.viscous), 1e-6);
  EXPECT_LT(relativeError(got.coulomb, truth.coulomb), 1e-6);
  EXPECT_TRUE(std::isfinite(r.xi_relative_std.drives[0].coulomb));
  EXPECT_LT(relativeError(r.phi, c.phi), 1e-6);
  for (int i = 0; i < 5; ++i) {
    const double ri = truth.row[i];
    EXPECT_LT(relativeError(r.xi.armature[i], c.xi.armature[i] + ri * ri * truth.rotor_inertia), 1e-6) << i;
    EXPECT_LT(relativeError(r.xi.viscous[i], c.xi.viscous[i] + ri * ri * truth.viscous), 1e-6) << i;
    EXPECT_LT(relativeError(r.xi.coulomb[i], c.xi.coulomb[i]), 1e-6) << i;
    EXPECT_LT(relativeError(r.xi.motor_constant[i], c.xi.motor_constant[i]), 1e-6) << i;
  }
  // The validation's model: the drive's torque is taken from what reaches
  // the links (actuatorTorque), so the joints' torque is the model's.
  const MotionData& d = trials.front();
  const MatrixXd tau = inverseDynamics(c.apriori_model, c.base, r.phi, d);
  const MatrixXd act = actuatorTorque(c.apriori_model, r.xi, d, tau, o.stop_velocity);
  double worst = 0.0;
  for (int t = 0; t < d.numSamples(); ++t) {
    for (int i : {1, 2}) {
      if (std::abs(d.qd(t, i)) > 0.05 && std::abs(truth.row.dot(d.qd.row(t).transpose())) > 1.0) {
        worst = std::max(worst, std::abs(act(t, i) - tau(t, 6 + i)));
      }
    }
  }
  EXPECT_LT(worst, 1e-6);
  // Without the drive's columns its Coulomb term has nowhere to go.
  const RobotIdentification plain = identifyRobot(c.apriori_model, c.base, c.xi_apriori, trials, options(RestRows::Excluded));
  EXPECT_GT(relativeError(plain.xi.coulomb[1], c.xi.coulomb[1]), 1e-2);
}

// A harmonic drive's losses (eta_f = 0.8 driving, eta_b = 0.7 backdriven)
// in the truth. With the gear's column (Gear::Fit) every parameter comes
// back as the identification defines it: k_T = eta_f k, τ_o scaled alike,
// Δk_b = k (1 / eta_b − eta_f), so k_T / (k_T + Δk_b) = eta_f eta_b.
// With ideal gears (the default) the same data leave k_T and φ wrong.
TEST(IdentifyRobot, GearLossRecoveredWhenFitted) {
  const Case c = makeCase(-1, 0.8, 0.7);
  for (int i = 0; i < 5; ++i) {
    ASSERT_NEAR(c.xi.motor_constant[i] / (c.xi.motor_constant[i] + c.xi.backdrive_excess[i]), 0.8 * 0.7, 1e-12);
  }
  IdentificationOptions o = options(RestRows::Excluded);
  o.gear = IdentificationOptions::Gear::Fit;
  o.gear_rounds = 30;  // exact data: the stds are rounding, so this settles to it
  const RobotIdentification fitted = identifyRobot(c.apriori_model, c.base, c.xi_apriori, c.trials, o);
  const Errors e = errorsOf(c, fitted, kAllJoints);
  print("gear fitted", e);
  // A joint whose load never opposes its rate (the light wrist: friction
  // is all it meets) is never backdriven: its Δk_b has no rows.
  double worst = 0.0;
  int never_backdriven = 0;
  for (int i = 0; i < 5; ++i) {
    bool backdriven = false;
    for (const MotionData& d : c.trials) {
      for (int t = 0; t < d.numSamples(); ++t) {
        const double motor = c.xi.motor_constant[i] * d.current(t, i) + c.xi.offset[i];
        backdriven = backdriven || (motor * d.qd(t, i) < 0.0 && std::abs(d.qd(t, i)) > 0.1);
      }
    }
    if (!backdriven) {
      ++never_backdriven;
      EXPECT_FALSE(std::isfinite(fitted.xi_relative_std.backdrive_excess[i]));
      continue;
    }
    worst = std::max(worst, relativeError(fitted.xi.backdrive_excess[i], c.xi.backdrive_excess[i]));
    EXPECT_TRUE(std::isfinite(fitted.xi_relative_std.backdrive_excess[i]));
  }
  std::printf("[measured] gear fitted: Delta k_b %.3g (rel), %d of 5 joints never backdriven\n", worst,
              never_backdriven);
  ASSERT_LE(never_backdriven, 1);
  EXPECT_LT(e.phi, 1e-6);
  EXPECT_LT(e.k_T, 1e-6);
  EXPECT_LT(e.k_d, 1e-6);
  EXPECT_LT(e.tau_c, 1e-6);
  EXPECT_LT(e.armature, 1e-6);
  EXPECT_LT(worst, 1e-6);
  EXPECT_EQ(fitted.unexcited_columns, never_backdriven);
  const RobotIdentification ideal = identifyRobot(c.apriori_model, c.base, c.xi_apriori, c.trials,
                                                  options(RestRows::Excluded));
  const Errors e_ideal = errorsOf(c, ideal, kAllJoints);
  print("gear ideal", e_ideal);
  EXPECT_GT(std::max(e_ideal.phi, e_ideal.k_T), 1e-2);
  EXPECT_EQ(ideal.xi.backdrive_excess.cwiseAbs().maxCoeff(), 0.0);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(std::isnan(ideal.xi_relative_std.backdrive_excess[i]));
}

// --threads reaches the identification (issue 15) and changes nothing in the
// result: samples and equations are split into fixed pieces, combined in a
// fixed order. Every estimate, std and figure the same to the bit.
TEST(IdentifyRobot, SameBitsForAnyThreadCount) {
  const Case& c = everyJointSlides();
  auto run = [&](int threads) {
    IdentificationOptions o = options(RestRows::Excluded);
    o.threads = threads;
    return identifyRobot(c.apriori_model, c.base, c.xi_apriori, c.trials, o);
  };
  const RobotIdentification one = run(1), two = run(2);
  auto same = [](const VectorXd& a, const VectorXd& b) {
    return a.size() == b.size() && (a.array() == b.array() || (a.array().isNaN() && b.array().isNaN())).all();
  };
  EXPECT_TRUE(same(one.phi, two.phi));
  EXPECT_TRUE(same(one.xi.stacked(), two.xi.stacked()));
  EXPECT_TRUE(same(one.phi_relative_std, two.phi_relative_std));
  EXPECT_TRUE(same(one.xi_relative_std.stacked(), two.xi_relative_std.stacked()));
  EXPECT_EQ(one.condition_number, two.condition_number);
  EXPECT_EQ(one.correlation_samples, two.correlation_samples);
  EXPECT_TRUE(same(one.row_rms, two.row_rms));
  // And the same as OpenMP's default team (what the tests above ran with).
  EXPECT_TRUE(same(one.phi, c.excluded.phi));
}

TEST(IdentifyRobot, TotalMassFromIdentifiedBaseParameters) {
  const Case& c = everyJointSlides();
  const double truth = c.truth_model.totalMass();
  // The function itself: the true φ gives the true mass.
  EXPECT_NEAR(totalMass(c.truth_model, c.base, c.phi), truth, 1e-12 * truth);
  EXPECT_NEAR(c.excluded.total_mass_apriori, c.apriori_model.totalMass(), 1e-12 * truth);
  const double err = relativeError(c.excluded.total_mass, truth);
  std::printf("[measured] total mass %.12g kg (true %.12g, a priori %.6g): rel error %.3g\n", c.excluded.total_mass,
              truth, c.excluded.total_mass_apriori, err);
  EXPECT_LT(err, 1e-9);
}

TEST(IdentifyRobot, SignRuleIsBiasedWhenRestHoldsStayInsideTheBound) {
  // Same data: A(8)-(9) writes each rest row with the friction at
  // ±τ_s^max, but here it sits there only at breakaway. The wrong rows bias
  // everything fitted with them; this is why Excluded is the default.
  const Case& c = everyJointSlides();
  const Errors e = recordedErrors(c, c.sign_rule, "sign rule", "sign_rule");
  // The joint parameters take most of the bias, worst on a lightly loaded
  // joint whose torque is of the order of its friction.
  EXPECT_GT(e.k_T, 1e-2);
  // The fitted τ_s^max is an average of the holds, well below the breakaway.
  EXPECT_GT(e.tau_s, 0.1);
  // The base rows fit to rounding in either mode and, weighted by their
  // inverse residual variance, outweigh the joint rows by orders of
  // magnitude: φ moves less, but still far beyond Excluded's error.
  EXPECT_GT(e.phi, 1e-6);
}

TEST(IdentifyRobot, RelativeStdIsSmallForExcitedParametersAndNaNForStaticMax) {
  const Case& c = everyJointSlides();
  const RobotIdentification& r = c.excluded;
  // σ/|p| means something only for a parameter that is not zero: the robot
  // is built without zero base parameters (no CoM on an axis, rotated
  // inertia tensors).
  ASSERT_GT(c.phi.cwiseAbs().minCoeff(), 1e-5);
  double xi_std = 0.0, xi_std_sign = std::numeric_limits<double>::infinity();
  for (int i : kAllJoints) {
    xi_std = std::max({xi_std, r.xi_relative_std.motor_constant[i], r.xi_relative_std.viscous[i],
                       r.xi_relative_std.coulomb[i], r.xi_relative_std.offset[i]});
    xi_std_sign = std::min(xi_std_sign, c.sign_rule.xi_relative_std.motor_constant[i]);
    // Not a least-squares estimate in this mode: no σ to report.
    EXPECT_TRUE(std::isnan(r.xi_relative_std.static_max[i])) << "joint " << i;
    // With the sign rule it is a fitted column and has one.
    EXPECT_TRUE(std::isfinite(c.sign_rule.xi_relative_std.static_max[i])) << "joint " << i;
  }
  const double phi_std = r.phi_relative_std.maxCoeff();
  std::printf("[measured] relative std: excluded max phi %.3g, max xi %.3g; sign rule min k_T %.3g, min phi %.3g\n",
              phi_std, xi_std, xi_std_sign, c.sign_rule.phi_relative_std.minCoeff());
  // Exact rows leave a residual of rounding only. (With the sign rule's
  // wrong rest rows every k_T has σ/|k_T| above 3e-4.)
  EXPECT_LT(phi_std, 1e-6);
  EXPECT_LT(xi_std, 1e-6);
}

TEST(IdentifyRobot, JointThatNeverSlidesKeepsItsAprioriParameters) {
  const Case& c = wristNeverSlides();
  const RobotIdentification& r = c.excluded;
  const int i = kStill;
  ASSERT_EQ(c.truth_model.joint_name[i], "wrist");
  // No row of the wrist is used, so its k_T, k_d, τ_c, τ_o have no data
  // and the regularisation A(15) holds them at the a-priori values.
  // (To rounding: 1e-12 on the portable build, up to 2e-10 with
  // -march=native, where Eigen's kernels use FMA.)
  EXPECT_NEAR(r.xi.motor_constant[i], c.xi_apriori.motor_constant[i], 1e-9);
  EXPECT_NEAR(r.xi.viscous[i], c.xi_apriori.viscous[i], 1e-9);
  EXPECT_NEAR(r.xi.coulomb[i], c.xi_apriori.coulomb[i], 1e-9);
  EXPECT_NEAR(r.xi.offset[i], c.xi_apriori.offset[i], 1e-9);
  EXPECT_NEAR(r.xi.armature[i], c.xi_apriori.armature[i], 1e-9);
  // τ_s^max still comes from the holds at rest (through the a-priori k_T
  // and τ_o, so not the truth): finite and positive.
  EXPECT_TRUE(std::isfinite(r.xi.static_max[i]));
  EXPECT_GT(r.xi.static_max[i], 0.0);
  EXPECT_EQ(r.unexcited_columns, 5);  // the wrist's k_T, k_d, τ_c, τ_o, I_a
  // Their relative std is the data's own, and the data have nothing on
  // them: infinite, however firmly the regularisation holds the values.
  EXPECT_TRUE(std::isinf(r.xi_relative_std.motor_constant[i]));
  EXPECT_TRUE(std::isinf(r.xi_relative_std.viscous[i]));
  EXPECT_TRUE(std::isinf(r.xi_relative_std.coulomb[i]));
  EXPECT_TRUE(std::isinf(r.xi_relative_std.offset[i]));
  EXPECT_TRUE(std::isinf(r.xi_relative_std.armature[i]));
  // So are the base parameters that would tell hand from forearm, while
  // the sliding joints' estimates keep a std of rounding.
  int loose = 0;
  for (int k = 0; k < c.base.numBase(); ++k) loose += !(r.phi_relative_std[k] < 1.0);
  std::printf("[measured] wrist still: %d of %d base parameters loose\n", loose, c.base.numBase());
  EXPECT_GT(loose, 0);
  EXPECT_LT(r.xi_relative_std.motor_constant[0], 1e-6);
  // The joints that do slide are still recovered: a still wrist only makes
  // the hand one body with the forearm, which none of their rows separates.
  // (φ is not: the base parameters that tell hand from forearm apart have
  // no data and stay near the a-priori values.)
  const Errors e = errorsOf(c, r, {0, 1, 3, 4});
  print("excluded, wrist still", e);
  EXPECT_LT(e.k_T, 1e-6);
  EXPECT_LT(e.k_d, 1e-6);
  EXPECT_LT(e.tau_c, 1e-6);
  EXPECT_LT(e.tau_o, 1e-6);
  // With the sign rule the wrist's rest rows do enter, and move k_T and τ_o
  // off the a-priori values: the check above can tell the two apart.
  const double moved = std::abs(c.sign_rule.xi.motor_constant[i] - c.xi_apriori.motor_constant[i]) /
                       c.xi_apriori.motor_constant[i];
  std::printf("[measured] wrist k_T moved %.3g (rel) from a priori with the sign rule\n", moved);
  EXPECT_GT(moved, 1e-3);
}

// URDF <mimic>: the knee follows the hip, q_knee = -1.3 q_hip + 0.2, as
// the engine's coupling holds it. The knee has no motor (zero current); the
// coupling brings its load to the hip's motor, which by virtual work
// delivers tau_hip + m tau_knee. The identification folds the knee's row
// into the hip's and fits nothing for the knee.
TEST(IdentifyRobot, MimicFollowerHasNoMotorOfItsOwn) {
  constexpr int kHip = 3, kKnee = 4;
  constexpr double kM = -1.3, kC = 0.2;
  auto coupled = [&](RobotDescription robot) {
    robot.joints[kKnee].mimic = {"hip", kM, kC};
    robot.joints[kKnee].actuation.viscous = robot.joints[kKnee].actuation.coulomb = 0.0;
    robot.joints[kKnee].actuation.static_max = 0.0;
    return robot;
  };
  const RobotDescription truth = coupled(treeRobot()), apriori = coupled(aprioriRobot());
  const RigidModel truth_model = makeRigidModel(truth), apriori_model = makeRigidModel(apriori);
  ASSERT_EQ(truth_model.joint_name[kKnee], "knee");
  EXPECT_EQ(truth_model.joint_mimic_leader[kKnee], kHip);
  EXPECT_EQ(truth_model.joint_mimic_multiplier[kKnee], kM);
  EXPECT_EQ(truth_model.joint_mimic_offset[kKnee], kC);
  EXPECT_EQ(truth_model.joint_mimic_leader[kHip], -1);
  const BaseParameters base = computeBaseParameters(apriori_model);
  const VectorXd phi = base.fromStandard(standardParameters(truth_model));
  const JointParameters xi = jointParameters(truth_model, truth);
  const JointParameters xi_apriori = jointParameters(apriori_model, apriori);
  std::vector<MotionData> trials;
  for (int k = 0; k < kTrials; ++k) {
    MotionData d = makeTrial(truth_model, base, phi, xi, -1, 11u + 7u * k);
    // The hip's friction as makeTrial made it: k_T u + tau_o - tau.
    const MatrixXd tau_free = inverseDynamics(truth_model, base, phi, d);
    const VectorXd hip_friction = xi.motor_constant[kHip] * d.current.col(kHip) +
                                  VectorXd::Constant(kSamples, xi.offset[kHip]) - tau_free.col(6 + kHip);
    d.q.col(kKnee) = kM * d.q.col(kHip) + VectorXd::Constant(kSamples, kC);
    d.qd.col(kKnee) = kM * d.qd.col(kHip);
    d.qdd.col(kKnee) = kM * d.qdd.col(kHip);
    const MatrixXd tau = inverseDynamics(truth_model, base, phi, d);
    d.F.leftCols(6) = tau.leftCols(6);
    d.current.col(kHip) = (tau.col(6 + kHip) + kM * tau.col(6 + kKnee) + hip_friction -
                           VectorXd::Constant(kSamples, xi.offset[kHip])) /
                          xi.motor_constant[kHip];
    d.current.col(kKnee).setZero();
    trials.push_back(std::move(d));
  }
  const RobotIdentification r =
      identifyRobot(apriori_model, base, xi_apriori, trials, options(RestRows::Excluded));
  double worst = 0.0;
  for (int i : {0, 1, 2, kHip}) {
    worst = std::max({worst, relativeError(r.xi.motor_constant[i], xi.motor_constant[i]),
                      relativeError(r.xi.viscous[i], xi.viscous[i]), relativeError(r.xi.coulomb[i], xi.coulomb[i])});
  }
  std::printf("[measured] mimic knee: worst k_T, k_d, tau_c error of the motored joints %.3g (rel)\n", worst);
  EXPECT_LT(worst, 1e-6);
  // The follower: no rows, so its parameters stay a priori (A(15)).
  // (To rounding: with -march=native Eigen's kernels use FMA, which moves
  // these by up to 1e-10 relative; any real estimate moves them by percent.)
  EXPECT_NEAR(r.xi.motor_constant[kKnee], xi_apriori.motor_constant[kKnee], 1e-9);
  EXPECT_NEAR(r.xi.viscous[kKnee], xi_apriori.viscous[kKnee], 1e-9);
  EXPECT_NEAR(r.xi.offset[kKnee], xi_apriori.offset[kKnee], 1e-9);
  EXPECT_EQ(r.xi.static_max[kKnee], xi_apriori.static_max[kKnee]);
  EXPECT_TRUE(std::isinf(r.xi_relative_std.motor_constant[kKnee]));

  // The same data with the coupling unknown to the evaluator: the knee's
  // zero current is read as a motor and the hip's as carrying only its own
  // load, and the estimates go wrong (the check above can fail).
  RobotDescription blind = apriori;
  blind.joints[kKnee].mimic = {};
  const RigidModel blind_model = makeRigidModel(blind);
  const RobotIdentification wrong =
      identifyRobot(blind_model, base, jointParameters(blind_model, blind), trials, options(RestRows::Excluded));
  EXPECT_GT(relativeError(wrong.xi.motor_constant[kHip], xi.motor_constant[kHip]), 1e-3);
}

}  // namespace
}  // namespace suitsim::eval

namespace suitsim::eval {
namespace {

// The reported relative std against the spread of the estimates themselves.
// Gaussian noise run through a moving average of m samples (residuals that
// neighbours share, as the evaluator's low-pass filter makes them) is added
// to the base rows and the currents of the exact trials, R times with
// independent draws. The integrated autocorrelation time of such noise is m
// samples, and the standard deviation of each well-determined estimate over
// the draws must match the reported one; without the correlation time in
// the variance (sigma / sqrt(m)) it would be more than twice too small.
TEST(IdentifyRobot, RelativeStdMatchesTheSpreadUnderCorrelatedNoise) {
  const Case& c = everyJointSlides();
  constexpr int kWidth = 5, kDraws = 30;
  std::mt19937 rng(2024);
  std::normal_distribution<double> normal(0.0, 1.0);
  auto smoothed = [&](int n, double sd) {
    VectorXd white(n + kWidth), out(n);
    for (int t = 0; t < white.size(); ++t) white[t] = normal(rng);
    for (int t = 0; t < n; ++t) out[t] = sd * white.segment(t, kWidth).sum() / std::sqrt(static_cast<double>(kWidth));
    return out;
  };
  const int P = c.base.numBase();
  MatrixXd estimates(kDraws, P);
  VectorXd reported = VectorXd::Zero(P);
  double tau = 0.0;
  for (int r = 0; r < kDraws; ++r) {
    std::vector<MotionData> noisy = c.trials;
    for (MotionData& d : noisy) {
      for (int e = 0; e < 6; ++e) d.F.col(e) += smoothed(d.numSamples(), 0.5);        // N, N m
      for (int i = 0; i < d.current.cols(); ++i) d.current.col(i) += smoothed(d.numSamples(), 0.1);  // A
    }
    const RobotIdentification id = identifyRobot(c.apriori_model, c.base, c.xi_apriori, noisy, options(RestRows::Excluded));
    estimates.row(r) = id.phi.transpose();
    reported += id.phi_relative_std.cwiseProduct(id.phi.cwiseAbs()) / kDraws;  // sigma, averaged over draws
    tau += id.correlation_samples / kDraws;
  }
  std::printf("residual correlation time %.2f samples (moving average of %d)\n", tau, kWidth);
  EXPECT_NEAR(tau, kWidth, 0.2 * kWidth);
  // Parameters the data determine well (sigma under 2 % of the value):
  // the ratio of the spread over the draws to the reported sigma.
  const VectorXd mean = estimates.colwise().mean();
  std::vector<double> ratios;
  for (int k = 0; k < P; ++k) {
    if (!(reported[k] < 0.02 * std::abs(c.phi[k]))) continue;
    const double spread = std::sqrt((estimates.col(k).array() - mean[k]).square().sum() / (kDraws - 1));
    ratios.push_back(spread / reported[k]);
  }
  ASSERT_GE(ratios.size(), 10u);
  std::sort(ratios.begin(), ratios.end());
  const double median = ratios[ratios.size() / 2];
  std::printf("%zu well-determined parameters: spread / reported sigma median %.2f (%.2f .. %.2f)\n", ratios.size(),
              median, ratios.front(), ratios.back());
  // 30 draws give the spread to about 13 %; the median over the parameters
  // is tighter. Without the correlation time it would be near sqrt(5) = 2.2.
  EXPECT_GT(median, 0.75);
  EXPECT_LT(median, 1.33);
}

}  // namespace
}  // namespace suitsim::eval
