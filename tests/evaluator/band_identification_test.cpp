// Band identification A(26) against known truth: supporting torques made
// with A(21) (supportingTorque, the full forward-kinematics path) for the
// suit of scenes/jvrc1_bend_suit.xml on JVRC-1 during a bend, then k per
// stiffness group and l0 per band recovered with no stiffness starting value
// (variable projection), whatever the truth's scale; the reported std is
// checked against the scatter of the estimates, and a group the data cannot
// determine is reported as such.
#include "suitsim/eval/band_identification.h"
#include "suitsim/eval/parameter_correlation.h"

#include <gtest/gtest.h>

#include "suit_bands.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>

#include "rigid_test_util.h"
#include "suitsim/rigid/kinematics.h"
#include "suitsim/scene/urdf.h"

namespace suitsim::eval {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

using testing::suitBands;

struct Suit {
  RigidModel model;
  std::vector<WireGeometry> wires;
};

const Suit& suit() {
  static const Suit s = [] {
    Suit out{makeRigidModel(io::loadUrdf(SUITSIM_SOURCE_DIR "/models/jvrc1/jvrc1.urdf")), {}};
    out.wires = makeWireGeometries(out.model, suitBands());
    return out;
  }();
  return s;
}

const std::vector<std::string> kJoints = {"WAIST_P", "WAIST_Y", "R_HIP_P", "L_HIP_P"};

double minimumJerk(double t, double start, double duration) {
  const double s = std::clamp((t - start) / duration, 0.0, 1.0);
  return s * s * s * (10.0 - 15.0 * s + 6.0 * s * s);
}

// The scene's bend at 200 Hz over 10 s (2000 samples): stance held 1 s, bent
// over 3 s (WAIST_P 0 → 0.5, hips −0.38 → −0.6868, ankles −0.34 → −0.2832),
// held 1 s, back over 3 s, held 2 s; plus a waist yaw twist of amplitude
// `twist` (rad, period 5 s, zero at the start) so that left and right bands
// differ.
MatrixXd bendTrajectory(const RigidModel& model, double twist, int n = 2000) {
  MatrixXd theta = MatrixXd::Zero(n, model.num_joints);
  auto col = [&](const char* name) {
    const int j = jointIndex(model, name);
    EXPECT_GE(j, 0) << name;
    return j;
  };
  for (int k = 0; k < n; ++k) {
    const double t = 10.0 * k / n;
    const double s = minimumJerk(t, 1.0, 3.0) - minimumJerk(t, 5.0, 3.0);
    theta(k, col("R_KNEE")) = theta(k, col("L_KNEE")) = 0.72;
    theta(k, col("R_SHOULDER_R")) = -0.2;
    theta(k, col("L_SHOULDER_R")) = 0.2;
    theta(k, col("R_ELBOW_P")) = theta(k, col("L_ELBOW_P")) = -0.5;
    theta(k, col("WAIST_P")) = 0.5 * s;
    theta(k, col("R_HIP_P")) = theta(k, col("L_HIP_P")) = -0.38 + (-0.6868 + 0.38) * s;
    theta(k, col("R_ANKLE_P")) = theta(k, col("L_ANKLE_P")) = -0.34 + (-0.2832 + 0.34) * s;
    theta(k, col("WAIST_Y")) = twist * std::sin(2.0 * std::numbers::pi * t / 5.0);
  }
  return theta;
}

// Band lengths at one row of joint angles (m), (4).
VectorXd lengthsAt(const MatrixXd& theta, int row) {
  const Suit& s = suit();
  RigidData data(s.model);
  forwardKinematics(s.model, data, Configuration(VectorXd(theta.row(row).transpose())));
  VectorXd l(4);
  for (int i = 0; i < 4; ++i) l[i] = wireLength(s.model, data, s.wires[i]);
  return l;
}

// τ_s^(t) on `joints` from A(21) through forward kinematics (N x m).
MatrixXd syntheticTorque(const MatrixXd& theta, const std::vector<std::string>& joints,
                         const VectorXd& k, const VectorXd& l0) {
  const Suit& s = suit();
  RigidData data(s.model);
  MatrixXd tau(theta.rows(), static_cast<Eigen::Index>(joints.size()));
  for (Eigen::Index t = 0; t < theta.rows(); ++t) {
    const VectorXd full =
        supportingTorque(s.model, data, Configuration(VectorXd(theta.row(t).transpose())), s.wires, k, l0);
    for (std::size_t c = 0; c < joints.size(); ++c) tau(t, c) = full[jointIndex(s.model, joints[c])];
  }
  return tau;
}

// A bend of n samples (twist 0.12 rad) with l0 the lengths at row `l0_row`,
// the true torques of stiffness k on kJoints, and the samples to fit them.
struct BendCase {
  MatrixXd theta;
  VectorXd l0;
  MatrixXd tau;
  WireSamples samples;
};

BendCase bendCase(int n, int l0_row, const VectorXd& k) {
  BendCase c;
  c.theta = bendTrajectory(suit().model, 0.12, n);
  c.l0 = lengthsAt(c.theta, l0_row);
  c.tau = syntheticTorque(c.theta, kJoints, k, c.l0);
  c.samples = sampleWires(suit().model, suit().wires, c.theta, kJoints);
  return c;
}

BandIdentificationOptions twoGroups() {
  BandIdentificationOptions options;
  options.groups = {{"typeA", {"bandA_R", "bandA_L"}}, {"typeB", {"bandB_R", "bandB_L"}}};
  return options;
}

// Low-pass filtered white noise (first order, time constant `samples`
// samples), scaled to standard deviation `sigma`: like the error of a
// supporting torque made from filtered, differentiated signals.
MatrixXd correlatedNoise(Eigen::Index rows, Eigen::Index cols, double sigma, double samples, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> white(0.0, 1.0);
  const double a = std::exp(-1.0 / samples);
  MatrixXd x(rows, cols);
  for (Eigen::Index c = 0; c < cols; ++c) {
    double y = white(rng);
    for (Eigen::Index t = 0; t < rows; ++t) {
      y = a * y + std::sqrt(1.0 - a * a) * white(rng);  // stationary, unit variance
      x(t, c) = sigma * y;
    }
  }
  return x;
}

// Worst relative errors of k (per group) and l0 (per band) against the truth.
struct Errors {
  double k = 0.0;
  double l0 = 0.0;
};

Errors errors(const BandIdentificationResult& r, const VectorXd& k_group, const VectorXd& l0) {
  Errors e;
  for (int g = 0; g < k_group.size(); ++g) {
    e.k = std::max(e.k, std::abs(r.stiffness[g] - k_group[g]) / k_group[g]);
  }
  for (int i = 0; i < l0.size(); ++i) {
    e.l0 = std::max(e.l0, std::abs(r.natural_length[i] - l0[i]) / l0[i]);
  }
  return e;
}

void print(const char* label, const BandIdentificationResult& r) {
  std::printf("[measured] %s: k =", label);
  for (int g = 0; g < r.stiffness.size(); ++g) std::printf(" %s %.4f", r.group[g].c_str(), r.stiffness[g]);
  std::printf(" N/m; l0 =");
  for (int i = 0; i < r.natural_length.size(); ++i) std::printf(" %.6f", r.natural_length[i]);
  std::printf(" m; taut");
  for (int n : r.taut_samples) std::printf(" %d", n);
  std::printf("; rmse %.3g of %.3g N m; start %d, %d iterations\n", r.rmse, r.torque_rms, r.best_start,
              r.iterations);
  for (std::size_t g = 0; g < r.group.size(); ++g) {
    std::printf("[measured]   %s: %s, fit %.4f N/m: %s\n", r.group[g].c_str(),
                r.group_identifiable[g] ? "identifiable" : "NOT identifiable", r.stiffness_fit[g],
                r.group_reason[g].c_str());
  }
}

// ---- (d) exact recovery, and with noise ---------------------------------------------------

// No stiffness starting value: a suit ten times softer or stiffer than any
// plausible one (19.78 and 1978 N/m against JVRC-1's 197.8) is recovered to
// round-off with the same options.
TEST(BandIdentification, RecoversStiffnessAndNaturalLengthAtAnyScale) {
  const MatrixXd theta = bendTrajectory(suit().model, 0.12);
  const VectorXd l0 = lengthsAt(theta, 0);  // just taut in the stance, as the scene's "auto"
  const WireSamples samples = sampleWires(suit().model, suit().wires, theta, kJoints);
  for (const double k_true : {19.78, 197.8, 1978.0}) {
    const VectorXd k = VectorXd::Constant(4, k_true);
    const MatrixXd tau = syntheticTorque(theta, kJoints, k, l0);
    const BandIdentificationResult r = identifyBands(samples, tau, twoGroups());
    print("noise-free", r);
    const Errors e = errors(r, Eigen::Vector2d(k_true, k_true), l0);
    std::printf("[measured] noise-free, truth %.2f N/m: k rel error %.3g, l0 rel error %.3g\n", k_true, e.k, e.l0);
    EXPECT_LT(e.k, 1e-6);
    EXPECT_LT(e.l0, 1e-6);
    EXPECT_LT(r.rmse, 1e-9 * r.torque_rms);
    for (int i = 0; i < 4; ++i) {
      EXPECT_TRUE(r.fitted[i]);
      EXPECT_FALSE(r.never_taut[i]);
      EXPECT_GT(r.taut_samples[i], 0);
    }
    for (int g = 0; g < 2; ++g) {
      EXPECT_TRUE(r.group_identifiable[g]) << r.group_reason[g];
      EXPECT_EQ(r.group_observable[g], r.group_identifiable[g]);
      EXPECT_EQ(r.stiffness[g], r.stiffness_fit[g]);
      EXPECT_LT(r.relative_std[g], 1e-6) << r.group_reason[g];
    }
  }
}

// Scaling the torques scales k by the same factor and leaves l0 alone, to
// round-off: the fit has no stiffness scale of its own.
TEST(BandIdentification, ScalingTheTorqueScalesOnlyTheStiffness) {
  // Partly slack (l0 of the pose at 2 s), with correlated noise.
  const BendCase bend = bendCase(1000, 200, (VectorXd(4) << 300.0, 300.0, 150.0, 150.0).finished());
  const MatrixXd tau = bend.tau + correlatedNoise(bend.tau.rows(), bend.tau.cols(), 0.2, 10.0, 7);
  const WireSamples& samples = bend.samples;
  const BandIdentificationResult one = identifyBands(samples, tau, twoGroups());
  for (const double scale : {0.01, 100.0}) {
    const BandIdentificationResult r = identifyBands(samples, scale * tau, twoGroups());
    for (int g = 0; g < 2; ++g) {
      EXPECT_NEAR(r.stiffness_fit[g] / (scale * one.stiffness_fit[g]), 1.0, 1e-8) << scale;
      EXPECT_NEAR(r.relative_std[g], one.relative_std[g], 1e-6 * one.relative_std[g]) << scale;
    }
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(r.natural_length[i], one.natural_length[i], 1e-10) << scale;
  }
}

TEST(BandIdentification, NoisyTorquesGiveStiffnessWithinTwoPercent) {
  const MatrixXd theta = bendTrajectory(suit().model, 0.12);
  const VectorXd l0 = lengthsAt(theta, 0);
  const VectorXd k = VectorXd::Constant(4, 197.8);
  MatrixXd tau = syntheticTorque(theta, kJoints, k, l0);
  // White noise of 0.1 N m on every joint: 2 % of the bent-pose waist torque
  // (5.5 N m), 6 % of the RMS torque. Over 20 seeds the k errors were
  // unbiased with RMS 0.24 % (type A) and 0.65 % (type B), growing in
  // proportion to the noise (0.71 % and 1.9 % at 0.3 N m).
  std::mt19937_64 rng(1);
  std::normal_distribution<double> noise(0.0, 0.1);
  for (Eigen::Index i = 0; i < tau.size(); ++i) tau.data()[i] += noise(rng);
  const BandIdentificationResult r = identifyBands(suit().model, suit().wires, theta, kJoints, tau,
                                                   twoGroups());
  print("noise 0.1 N m", r);
  const double err_a = std::abs(r.stiffness[0] - 197.8) / 197.8;
  const double err_b = std::abs(r.stiffness[1] - 197.8) / 197.8;
  double l0_err = 0.0;
  for (int i = 0; i < 4; ++i) l0_err = std::max(l0_err, std::abs(r.natural_length[i] - l0[i]));
  std::printf("[measured] noise 0.1 N m: k error type A %.3g %%, type B %.3g %%, l0 error <= %.3g mm\n",
              100.0 * err_a, 100.0 * err_b, 1e3 * l0_err);
  RecordProperty("k_error_typeA", testutil::sci(err_a));
  RecordProperty("k_error_typeB", testutil::sci(err_b));
  EXPECT_LT(err_a, 0.01);
  EXPECT_LT(err_b, 0.02);
  EXPECT_LT(l0_err, 1e-3);
  EXPECT_NEAR(r.rmse, 0.1, 0.005);  // what is left is the noise
  // Within a few of its own std, and identifiable.
  for (int g = 0; g < 2; ++g) {
    EXPECT_TRUE(r.group_identifiable[g]) << r.group_reason[g];
    EXPECT_LT(std::abs(r.stiffness[g] - 197.8), 4.0 * r.stiffness_std[g]) << g;
  }
  EXPECT_NEAR(r.noise_std, 0.1, 0.005);
  EXPECT_LT(r.noise_correlation, 1.5);  // white noise: no inflation to speak of
}

// The reported std is what the estimates scatter by: over seeds, with white
// and with correlated noise (whose white-noise std would be too small by
// about √c), the error divided by the std has an RMS near 1.
TEST(BandIdentification, ReportedStdMatchesTheScatterOfTheEstimates) {
  const BendCase bend = bendCase(1000, 0, VectorXd::Constant(4, 197.8));
  const MatrixXd& clean = bend.tau;
  const WireSamples& samples = bend.samples;
  for (const double correlation_samples : {0.0, 20.0}) {
    constexpr int kSeeds = 24;
    double sum_sq[2] = {0.0, 0.0};
    double correlation = 0.0;
    for (int seed = 0; seed < kSeeds; ++seed) {
      MatrixXd noise(clean.rows(), clean.cols());
      if (correlation_samples == 0.0) {
        std::mt19937_64 rng(100 + seed);
        std::normal_distribution<double> white(0.0, 0.3);
        for (Eigen::Index i = 0; i < noise.size(); ++i) noise.data()[i] = white(rng);
      } else {
        noise = correlatedNoise(clean.rows(), clean.cols(), 0.3, correlation_samples, 100 + seed);
      }
      BandIdentificationOptions options = twoGroups();
      options.num_starts = 1;  // the middle start finds this minimum; five would cost five times the time
      const BandIdentificationResult r = identifyBands(samples, clean + noise, options);
      for (int g = 0; g < 2; ++g) {
        const double z = (r.stiffness_fit[g] - 197.8) / r.stiffness_std[g];
        sum_sq[g] += z * z;
      }
      correlation += r.noise_correlation / kSeeds;
    }
    const double rms_a = std::sqrt(sum_sq[0] / kSeeds), rms_b = std::sqrt(sum_sq[1] / kSeeds);
    std::printf("[measured] noise 0.3 N m, correlation %.0f samples: RMS of error/std %.2f (A), %.2f (B); "
                "mean inflation c %.1f\n", correlation_samples, rms_a, rms_b, correlation);
    RecordProperty(correlation_samples == 0.0 ? "z_rms_white_typeA" : "z_rms_correlated_typeA", testutil::sci(rms_a));
    // 24 seeds: the RMS of a unit normal sample lies in [0.7, 1.3] with
    // probability ~0.95; the correlated case allows for the approximation.
    EXPECT_GT(rms_a, 0.5);
    EXPECT_LT(rms_a, 1.5);
    EXPECT_GT(rms_b, 0.5);
    EXPECT_LT(rms_b, 1.5);
    if (correlation_samples > 0.0) {
      EXPECT_GT(correlation, 10.0);
    }
  }
}

// A group whose bands stretch about 1 cm over the motion, under correlated
// noise of 0.3 N m: its k is not determined, and the result says so with
// the figure; the well-stretched group is still identified.
TEST(BandIdentification, SmallStretchUnderNoiseIsNotIdentifiable) {
  const MatrixXd theta = bendTrajectory(suit().model, 0.12);
  const WireSamples samples = sampleWires(suit().model, suit().wires, theta, kJoints);
  VectorXd l0 = lengthsAt(theta, 0);
  for (int i = 2; i < 4; ++i) l0[i] = samples.length.col(i).maxCoeff() - 0.01;  // type B: 1 cm at most
  const VectorXd k = VectorXd::Constant(4, 197.8);
  const MatrixXd tau = syntheticTorque(theta, kJoints, k, l0) + correlatedNoise(2000, 4, 0.3, 20.0, 5);
  const BandIdentificationResult r = identifyBands(samples, tau, twoGroups());
  print("type B stretched 1 cm, noise 0.3 N m", r);
  EXPECT_TRUE(r.group_identifiable[0]) << r.group_reason[0];
  EXPECT_LT(std::abs(r.stiffness[0] - 197.8), 4.0 * r.stiffness_std[0]);
  EXPECT_FALSE(r.group_identifiable[1]);
  EXPECT_FALSE(r.group_observable[1]);
  EXPECT_TRUE(std::isnan(r.stiffness[1]));         // no number as an estimate
  EXPECT_TRUE(std::isfinite(r.stiffness_fit[1]));  // the fit's value, for diagnostics
  EXPECT_GT(r.relative_std[1], 0.1);
  EXPECT_NE(r.group_reason[1].find("relative std"), std::string::npos) << r.group_reason[1];
  EXPECT_NE(r.group_reason[1].find("> 10 %"), std::string::npos) << r.group_reason[1];
  EXPECT_NE(r.group_reason[1].find("stretch"), std::string::npos) << r.group_reason[1];
  // Without the noise the same geometry is determined: it is the noise that decides.
  const BandIdentificationResult exact = identifyBands(samples, syntheticTorque(theta, kJoints, k, l0), twoGroups());
  EXPECT_TRUE(exact.group_identifiable[1]) << exact.group_reason[1];
  EXPECT_LT(std::abs(exact.stiffness[1] - 197.8) / 197.8, 1e-6);
}

// ---- (e) the estimate follows the truth ------------------------------------------------------

TEST(BandIdentification, EstimateMovesWithTheTrueStiffness) {
  const MatrixXd theta = bendTrajectory(suit().model, 0.12);
  const VectorXd l0 = lengthsAt(theta, 0);
  const WireSamples samples = sampleWires(suit().model, suit().wires, theta, kJoints);
  for (const auto& [k_a, k_b] : {std::pair{80.0, 500.0}, std::pair{500.0, 80.0}, std::pair{395.6, 197.8}}) {
    const VectorXd k = (VectorXd(4) << k_a, k_a, k_b, k_b).finished();
    const MatrixXd tau = syntheticTorque(theta, kJoints, k, l0);
    const BandIdentificationResult r = identifyBands(samples, tau, twoGroups());
    const Errors e = errors(r, Eigen::Vector2d(k_a, k_b), l0);
    std::printf("[measured] truth k %.1f/%.1f: identified %.6f/%.6f N/m (rel error %.3g, l0 %.3g)\n", k_a,
                k_b, r.stiffness[0], r.stiffness[1], e.k, e.l0);
    EXPECT_LT(e.k, 1e-6);
    EXPECT_LT(e.l0, 1e-6);
  }
}

// ---- (f) bands slack for part of the motion ------------------------------------------------------

TEST(BandIdentification, BandsSlackForPartOfTheMotion) {
  const MatrixXd theta = bendTrajectory(suit().model, 0.12);
  // Natural lengths of the pose 2.5 s in (half way down): slack before that
  // and after the same point on the way back.
  const VectorXd l0 = lengthsAt(theta, 500);
  const VectorXd k = (VectorXd(4) << 300.0, 300.0, 150.0, 150.0).finished();
  const MatrixXd tau = syntheticTorque(theta, kJoints, k, l0);
  const WireSamples samples = sampleWires(suit().model, suit().wires, theta, kJoints);
  std::vector<int> true_taut(4);
  for (int i = 0; i < 4; ++i) {
    true_taut[i] = static_cast<int>((samples.length.col(i).array() > l0[i]).count());
    EXPECT_GT(true_taut[i], 100);
    EXPECT_LT(true_taut[i], 1900);
  }
  for (int starts : {5, 1}) {
    BandIdentificationOptions options = twoGroups();
    options.num_starts = starts;
    const BandIdentificationResult r = identifyBands(samples, tau, options);
    print(starts == 1 ? "partly slack, one start" : "partly slack", r);
    const Errors e = errors(r, Eigen::Vector2d(300.0, 150.0), l0);
    EXPECT_LT(e.k, 1e-6) << starts;
    EXPECT_LT(e.l0, 1e-6) << starts;
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(r.taut_samples[i], true_taut[i], 1) << i;
  }
}

// A band that is never taut: its group's stiffness cannot be seen, and the
// result says so; the other group is still exact.
TEST(BandIdentification, NeverTautBandIsFlagged) {
  const MatrixXd theta = bendTrajectory(suit().model, 0.12);
  const WireSamples samples = sampleWires(suit().model, suit().wires, theta, kJoints);
  VectorXd l0 = lengthsAt(theta, 0);
  for (int i = 2; i < 4; ++i) l0[i] = samples.length.col(i).maxCoeff() + 0.01;  // type B slack throughout
  const VectorXd k = VectorXd::Constant(4, 197.8);
  const MatrixXd tau = syntheticTorque(theta, kJoints, k, l0);
  const BandIdentificationResult r = identifyBands(samples, tau, twoGroups());
  print("type B never taut", r);
  EXPECT_LT(std::abs(r.stiffness[0] - 197.8) / 197.8, 1e-6);
  EXPECT_LT(std::abs(r.natural_length[0] - l0[0]) / l0[0], 1e-6);
  EXPECT_LT(std::abs(r.natural_length[1] - l0[1]) / l0[1], 1e-6);
  EXPECT_TRUE(r.group_observable[0]);
  EXPECT_FALSE(r.group_observable[1]);
  EXPECT_FALSE(r.group_identifiable[1]);
  EXPECT_TRUE(std::isnan(r.stiffness[1]));
  EXPECT_NE(r.group_reason[1].find("never taut"), std::string::npos) << r.group_reason[1];
  EXPECT_TRUE(r.never_taut[2]);
  EXPECT_TRUE(r.never_taut[3]);
  EXPECT_EQ(r.taut_samples[2], 0);
}

// ---- fitting only the bands that matter -------------------------------------------------------------

// On the hips alone type B (both ends on the trunk) acts not at all: the
// relevance screen drops it and type A is recovered exactly.
TEST(BandIdentification, RelevanceScreenDropsBandsThatDoNotAct) {
  const MatrixXd theta = bendTrajectory(suit().model, 0.12);
  const VectorXd l0 = lengthsAt(theta, 0);
  const VectorXd k = VectorXd::Constant(4, 197.8);
  const std::vector<std::string> hips = {"R_HIP_P", "L_HIP_P"};
  const MatrixXd tau = syntheticTorque(theta, hips, k, l0);
  BandIdentificationOptions options = twoGroups();
  options.relevance_threshold = 0.05;
  const BandIdentificationResult r = identifyBands(suit().model, suit().wires, theta, hips, tau, options);
  print("hips only, screened", r);
  EXPECT_TRUE(r.fitted[0] && r.fitted[1]);
  EXPECT_FALSE(r.fitted[2] || r.fitted[3]);
  EXPECT_EQ(r.relevance[2], 0.0);
  EXPECT_EQ(r.band_group[2], -1);
  EXPECT_TRUE(std::isnan(r.stiffness[1]));
  EXPECT_FALSE(r.group_identifiable[1]);
  EXPECT_NE(r.group_reason[1].find("not fitted"), std::string::npos) << r.group_reason[1];
  EXPECT_TRUE(std::isnan(r.natural_length[2]));
  EXPECT_LT(std::abs(r.stiffness[0] - 197.8) / 197.8, 1e-6);
  EXPECT_LT(std::abs(r.natural_length[0] - l0[0]) / l0[0], 1e-6);
  EXPECT_LT(std::abs(r.natural_length[1] - l0[1]) / l0[1], 1e-6);
}

// The paper's setting (A §5.4): type A only, from the waist-pitch torque of
// a plain bend, while the truth also has type B. Type B's share of the
// waist torque biases k; measured here and bounded. (Measured: in this suit
// type B stretches 0.10 m/rad with WAIST_P against type A's 0.12, so it
// carries 34 % of the RMS waist torque and the type-A-only k comes out
// 53 % high: unlike the paper's SSL, its type B is not negligible here.)
TEST(BandIdentification, TypeAOnlyFromWaistPitchLikeThePaper) {
  const MatrixXd theta = bendTrajectory(suit().model, 0.0);
  const VectorXd l0 = lengthsAt(theta, 0);
  const VectorXd k = VectorXd::Constant(4, 197.8);
  const std::vector<std::string> waist = {"WAIST_P"};
  const MatrixXd tau = syntheticTorque(theta, waist, k, l0);
  const WireSamples samples = sampleWires(suit().model, suit().wires, theta, waist);
  BandIdentificationOptions options;
  options.groups = {{"typeA", {"bandA_R", "bandA_L"}}};
  const BandIdentificationResult r = identifyBands(samples, tau, options);
  print("paper setting, type A from WAIST_P", r);
  const double bias = r.stiffness[0] / 197.8 - 1.0;
  // Type B alone, for comparison: its share of the waist torque.
  const MatrixXd tau_b = predictSupportingTorque(samples, (VectorXd(4) << 0, 0, 197.8, 197.8).finished(), l0);
  std::printf("[measured] type-B share of the WAIST_P torque (RMS) %.3g %%, relevance %.3g; k bias %.3g %%\n",
              100.0 * tau_b.norm() / tau.norm(), r.relevance[2], 100.0 * bias);
  EXPECT_FALSE(r.fitted[2] || r.fitted[3]);
  // Without B in the truth, the same fit is exact.
  const MatrixXd tau_a = predictSupportingTorque(samples, (VectorXd(4) << 197.8, 197.8, 0, 0).finished(), l0);
  const BandIdentificationResult exact = identifyBands(samples, tau_a, options);
  EXPECT_LT(std::abs(exact.stiffness[0] - 197.8) / 197.8, 1e-6);
  // l0 of the mirror-image bands is seen only as a sum on a symmetric bend;
  // k is still determined (separable from that sum), so identifiable.
  EXPECT_NEAR(exact.natural_length[0] + exact.natural_length[1], l0[0] + l0[1], 1e-6);
  EXPECT_TRUE(exact.group_identifiable[0]) << exact.group_reason[0];
  // Their difference is all but unseen: its singular value sits near the
  // 1e-9 cut, below it in a -march=native build (std infinite) and just
  // above it in the portable one (std 1.7e-5 m under 0.01 N m of noise).
  // A bound on either side would be a coin toss between builds, so only
  // the sum and k are held.
  EXPECT_LT(std::abs(bias), 2.0 * tau_b.norm() / tau.norm() + 1e-3);
}

// ---- determinism and the torque model ---------------------------------------------------------------------

TEST(BandIdentification, DeterministicAndPredictionMatchesForwardKinematics) {
  const VectorXd k = VectorXd::Constant(4, 197.8);
  const BendCase bend = bendCase(400, 0, k);
  const MatrixXd& tau = bend.tau;
  const WireSamples& samples = bend.samples;
  EXPECT_LT((predictSupportingTorque(samples, k, bend.l0) - tau).cwiseAbs().maxCoeff(), 1e-12);
  MatrixXd noisy = tau;
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0.0, 0.5);
  for (Eigen::Index i = 0; i < noisy.size(); ++i) noisy.data()[i] += noise(rng);
  const BandIdentificationResult a = identifyBands(samples, noisy, twoGroups());
  const BandIdentificationResult b = identifyBands(samples, noisy, twoGroups());
  EXPECT_EQ(a.stiffness, b.stiffness);
  EXPECT_EQ(a.natural_length, b.natural_length);
  EXPECT_EQ(a.rmse, b.rmse);
}

// ---- groups as the suit declares them ----------------------------------------------------------------------

TEST(BandIdentification, StiffnessGroupsFollowTheDeclaration) {
  std::vector<RobotBand> bands = suitBands();
  bands[0].group = bands[1].group = "A";
  bands[3].group = "B";  // bandB_R declares none: a group of its own
  const std::vector<StiffnessGroup> groups = stiffnessGroups(bands);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].name, "A");
  EXPECT_EQ(groups[0].bands, (std::vector<std::string>{"bandA_R", "bandA_L"}));
  EXPECT_EQ(groups[1].name, "bandB_R");
  EXPECT_EQ(groups[1].bands, (std::vector<std::string>{"bandB_R"}));
  EXPECT_EQ(groups[2].name, "B");
  EXPECT_EQ(groups[2].bands, (std::vector<std::string>{"bandB_L"}));
  // No name is read for a side: without declarations every band is alone.
  EXPECT_EQ(stiffnessGroups(suitBands()).size(), 4u);
}

// ---- (g) bad input ------------------------------------------------------------------------------------------

template <typename F>
void expectInvalid(F&& f, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning '" << fragment << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

// Two bands of one group stretched alike (nearly the same lengths and moment
// arms): the torque of the left band alone at 2k, the right slack, is fitted
// exactly that way, and almost as well with both at about k. The best
// solution is the first; with twin_taut_ratio the fit takes the second.
// Bands stretched in opposite senses (the twist's) are no twins.
TEST(BandIdentification, TwinBandsPreferTheSolutionInWhichBothPull) {
  const int n = 400;
  WireSamples s;
  s.band = {"left", "right"};
  s.joint = {"j"};
  s.length.resize(n, 2);
  s.jacobian.assign(2, Eigen::MatrixXd(n, 1));
  for (int t = 0; t < n; ++t) {
    const double phase = 0.05 * t;
    s.length(t, 0) = 0.30 + 0.02 * std::sin(phase);
    s.length(t, 1) = 0.31 + 0.018 * std::sin(phase);
    s.jacobian[0](t, 0) = 0.05;
    s.jacobian[1](t, 0) = 0.045 + 0.002 * std::sin(3.0 * phase);
  }
  const Eigen::MatrixXd tau = predictSupportingTorque(s, Eigen::Vector2d(400.0, 400.0), Eigen::Vector2d(0.29, 1.0));
  BandIdentificationOptions o;
  o.groups = {{"pair", {"left", "right"}}};
  const BandIdentificationResult best = identifyBands(s, tau, o);
  EXPECT_NEAR(best.stiffness[0], 400.0, 1e-3);
  EXPECT_LT(best.taut_samples[1], n / 20);
  o.twin_taut_ratio = 0.25;
  const BandIdentificationResult both = identifyBands(s, tau, o);
  EXPECT_GE(both.taut_samples[1], both.taut_samples[0] / 4);
  EXPECT_LT(both.stiffness[0], 300.0);
  EXPECT_GT(both.rmse, best.rmse);
  // The right band lengthening as the left shortens: not twins, the best stays.
  for (int t = 0; t < n; ++t) s.length(t, 1) = 0.31 - 0.018 * std::sin(0.05 * t);
  const Eigen::MatrixXd tau_opposite =
      predictSupportingTorque(s, Eigen::Vector2d(400.0, 400.0), Eigen::Vector2d(0.29, 1.0));
  EXPECT_NEAR(identifyBands(s, tau_opposite, o).stiffness[0], 400.0, 1e-3);
}

TEST(BandIdentification, BadInputThrowsWithAClearMessage) {
  const Suit& s = suit();
  const MatrixXd theta = bendTrajectory(s.model, 0.12, 50);
  const WireSamples samples = sampleWires(s.model, s.wires, theta, kJoints);
  const MatrixXd tau = MatrixXd::Zero(50, 4);
  const BandIdentificationOptions options = twoGroups();

  // Unknown link, unknown joint, wrong joint count, empty samples.
  RobotBand band = suitBands()[2];
  band.links[0] = "NO_SUCH_LINK";
  expectInvalid([&] { makeWireGeometry(s.model, band); }, "unknown link 'NO_SUCH_LINK'");
  expectInvalid([&] { sampleWires(s.model, s.wires, theta, {"WAIST_P", "HIP_X"}); }, "unknown joint 'HIP_X'");
  expectInvalid([&] { sampleWires(s.model, s.wires, theta.leftCols(10), kJoints); }, "joint_angles is 50 x 10");
  expectInvalid([&] { sampleWires(s.model, s.wires, MatrixXd(0, s.model.num_joints), kJoints); }, "no samples");
  WireSamples empty = samples;
  empty.length.resize(0, 4);
  for (MatrixXd& J : empty.jacobian) J.resize(0, 4);
  expectInvalid([&] { identifyBands(empty, MatrixXd(0, 4), options); }, "no samples");

  // Mismatched sizes.
  expectInvalid([&] { identifyBands(samples, MatrixXd::Zero(49, 4), options); },
                "supporting_torque is 49 x 4, expected 50 x 4");
  expectInvalid([&] { identifyBands(samples, MatrixXd::Zero(50, 3), options); }, "supporting_torque is 50 x 3");
  WireSamples bad = samples;
  bad.jacobian[1] = MatrixXd::Zero(50, 3);
  expectInvalid([&] { identifyBands(bad, tau, options); }, "jacobian of band 'bandA_L' is 50 x 3");
  bad = samples;
  bad.length = MatrixXd::Zero(50, 3);
  expectInvalid([&] { identifyBands(bad, tau, options); }, "length is 50 x 3");
  bad = samples;
  bad.jacobian.pop_back();
  expectInvalid([&] { identifyBands(bad, tau, options); }, "jacobian has 3 matrices");
  MatrixXd nan_tau = tau;
  nan_tau(3, 1) = std::numeric_limits<double>::quiet_NaN();
  expectInvalid([&] { identifyBands(samples, nan_tau, options); }, "non-finite");
  expectInvalid([&] { predictSupportingTorque(samples, VectorXd::Zero(3), VectorXd::Zero(4)); },
                "one entry per band (4)");

  // Bad groups and options.
  BandIdentificationOptions o = options;
  o.groups[1].bands.push_back("bandC");
  expectInvalid([&] { identifyBands(samples, tau, o); }, "unknown band 'bandC'");
  o = options;
  o.groups[1].bands.push_back("bandA_R");
  expectInvalid([&] { identifyBands(samples, tau, o); }, "'bandA_R' is in two stiffness groups");
  o = options;
  o.groups[0].bands.clear();
  expectInvalid([&] { identifyBands(samples, tau, o); }, "'typeA' has no bands");
  o = options;
  o.max_relative_std = 0.0;
  expectInvalid([&] { identifyBands(samples, tau, o); }, "max_relative_std must be > 0");
  o = options;
  o.twin_taut_ratio = 1.0;
  expectInvalid([&] { identifyBands(samples, tau, o); }, "twin_taut_ratio must be in [0, 1)");
  o.twin_taut_ratio = -0.1;
  expectInvalid([&] { identifyBands(samples, tau, o); }, "twin_taut_ratio must be in [0, 1)");
  o = options;
  o.torque_noise_std = -0.1;
  expectInvalid([&] { identifyBands(samples, tau, o); }, "torque_noise_std must be >= 0");
  o = options;
  o.groups.clear();
  expectInvalid([&] { identifyBands(samples, tau, o); }, "no stiffness groups");
  o = options;
  o.num_starts = 0;
  expectInvalid([&] { identifyBands(samples, tau, o); }, "num_starts must be >= 1");
  o = options;
  o.smoothing_widths = {0.1, -0.01};
  expectInvalid([&] { identifyBands(samples, tau, o); }, "smoothing widths must be > 0");
  o = options;
  o.relevance_threshold = 1.0;
  expectInvalid([&] { identifyBands(samples, tau, o); }, "relevance_threshold must be in [0, 1)");
}

}  // namespace

// The Cramér-Rao bound's ingredients (parameter_correlation.h) against an
// independent answer: under white noise of σ on every torque, the fit's
// unit-noise information by joint, weighted by 1 / σ² and inverted as the
// report's bound does (report/cramer_rao.h), gives the spread of the
// least-squares k over noise draws. No estimator beats the bound; least
// squares reaches it (its std is the same matrix with the residual's σ).
TEST(BandIdentification, CramerRaoBoundIsTheSpreadUnderWhiteNoise) {
  const BendCase bend = bendCase(1000, 0, VectorXd::Constant(4, 197.8));
  constexpr int kSeeds = 40;
  constexpr double kSigma = 0.3;
  std::vector<double> k;
  double bound = 0.0;
  for (int seed = 0; seed < kSeeds; ++seed) {
    std::mt19937_64 rng(500 + seed);
    std::normal_distribution<double> white(0.0, kSigma);
    MatrixXd noise(bend.tau.rows(), bend.tau.cols());
    for (Eigen::Index i = 0; i < noise.size(); ++i) noise.data()[i] = white(rng);
    BandIdentificationOptions options = twoGroups();
    options.num_starts = 1;
    const BandIdentificationResult r = identifyBands(bend.samples, bend.tau + noise, options);
    ASSERT_EQ(r.jacobian.cols(), static_cast<Eigen::Index>(r.parameter.size()));
    ASSERT_EQ(r.parameter[static_cast<std::size_t>(r.group_parameter[0])], "k:typeA");
    // Rows t m + c are about joint c.
    std::vector<int> row_joint(static_cast<std::size_t>(r.jacobian.rows()));
    for (std::size_t i = 0; i < row_joint.size(); ++i) row_joint[i] = static_cast<int>(i % kJoints.size());
    const suitsim::eval::UnitInformation info = suitsim::eval::unitInformation(
        r.jacobian, row_joint, kJoints, r.parameter, r.group_parameter[0], 0.01);
    MatrixXd stack(static_cast<Eigen::Index>(info.factor.size()) * r.jacobian.cols(), r.jacobian.cols());
    for (std::size_t j = 0; j < info.factor.size(); ++j) {
      stack.middleRows(static_cast<Eigen::Index>(j) * r.jacobian.cols(), r.jacobian.cols()) = info.factor[j] / kSigma;
    }
    bound += parameterStd(stack, 1.0)[info.stiffness] / kSeeds;
    k.push_back(r.stiffness_fit[0]);
  }
  double mean = 0.0, ss = 0.0;
  for (double x : k) mean += x / kSeeds;
  for (double x : k) ss += (x - mean) * (x - mean);
  const double spread = std::sqrt(ss / (kSeeds - 1));
  std::printf("[measured] white noise %.1f N m: spread of k %.4g N/m over %d draws, Cramér-Rao bound %.4g N/m\n",
              kSigma, spread, kSeeds, bound);
  // A sample std of 40 draws is uncertain by 1 / sqrt(78) = 11 % of itself:
  // the spread lies within 25 % of the bound (above it or below by chance).
  EXPECT_GT(spread, 0.75 * bound);
  EXPECT_LT(spread, 1.25 * bound);
}

}  // namespace
