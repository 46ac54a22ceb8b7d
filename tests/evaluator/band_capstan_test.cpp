// The capstan wire model (evaluator/src/band_capstan.cpp): the replayed
// tensions against closed forms (one tension without friction, the stick
// phase's fixed material, the slipping ratio exp(mu theta)), and the fit
// recovering k, l0 and mu from a band rubbing over one via point, where the
// one-tension fit of A(25) is biased; with a Maxwell arm too, the fit of
// both (viscoelastic-capstan) recovering k, k_m, tau and mu.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "band_capstan.h"
#include "suitsim/eval/band_relaxation.h"

namespace suitsim::eval {
namespace {

// A band of two segments turning over one via point: the first segment
// crosses a joint (its length grows with the angle q, L_0 = 0.2 + 0.05 q),
// the second is fixed to one link (L_1 = 0.3); the turn grows with q too.
struct TwoSegments {
  Eigen::MatrixXd length, turn;  // (N x 2)
  Eigen::VectorXd angle;         // (N)
};
TwoSegments bend(int n, double dt) {
  TwoSegments m;
  m.length.resize(n, 2);
  m.turn.resize(n, 2);
  m.angle.resize(n);
  for (int i = 0; i < n; ++i) {
    const double t = i * dt;
    // Out and back twice, the second time less far.
    const double q = 0.8 * std::sin(0.5 * t) * std::sin(0.5 * t) * (t < 2 * M_PI ? 1.0 : 0.6);
    m.angle[i] = q;
    m.length(i, 0) = 0.2 + 0.05 * q;
    m.length(i, 1) = 0.3;
    m.turn(i, 0) = 0.0;
    m.turn(i, 1) = 0.6 + 0.5 * q;
  }
  return m;
}

TEST(BandCapstan, WithoutFrictionEverySegmentPullsTheOneTensionOfA25) {
  const TwoSegments m = bend(800, 0.01);
  const double l0 = 0.49;
  const Eigen::MatrixXd t = capstanTensionPerStiffness(m.length, m.turn, l0, 0.0);
  for (Eigen::Index i = 0; i < t.rows(); ++i) {
    const double expected = std::max(0.0, m.length.row(i).sum() - l0);
    EXPECT_DOUBLE_EQ(t(i, 0), expected);
    EXPECT_DOUBLE_EQ(t(i, 1), expected);
  }
}

// A pull that starts from the equal share sticks at first: each segment
// keeps its material s_j = l0 L_j(0) / l(0), so T_j = l0 (L_j - s_j) / s_j;
// once the ratio reaches exp(mu theta) the material slides and the ratio
// stays on the bound.
TEST(BandCapstan, TensionsStickThenSlipAtTheCapstanRatio) {
  const int n = 400;
  Eigen::MatrixXd length(n, 2), turn(n, 2);
  const double theta = 0.9, mu = 0.3, l0 = 0.48;
  for (int i = 0; i < n; ++i) {
    length(i, 0) = 0.2 + 0.0001 * i;  // lengthens by 4 cm
    length(i, 1) = 0.3;
    turn(i, 0) = 0.0;
    turn(i, 1) = theta;
  }
  const Eigen::MatrixXd t = capstanTensionPerStiffness(length, turn, l0, mu);
  const double s0 = l0 * length(0, 0) / length.row(0).sum(), s1 = l0 - s0;
  const double ratio = std::exp(mu * theta);
  bool slipped = false;
  for (int i = 0; i < n; ++i) {
    const double stuck0 = l0 * (length(i, 0) - s0) / s0, stuck1 = l0 * (length(i, 1) - s1) / s1;
    if (stuck0 <= ratio * stuck1) {
      ASSERT_FALSE(slipped) << "the material slid back at sample " << i;
      EXPECT_NEAR(t(i, 0), stuck0, 1e-15) << i;
      EXPECT_NEAR(t(i, 1), stuck1, 1e-15) << i;
    } else {
      slipped = true;
      EXPECT_NEAR(t(i, 0) / t(i, 1), ratio, 1e-9) << i;
      EXPECT_GT(t(i, 1), stuck1) << i;  // material slid into the pulled segment
    }
  }
  EXPECT_TRUE(slipped) << "the pull never reached the capstan ratio";
}

// The supporting torque of the two-segment band on its joint, -k T_0 J_0
// (only the first segment crosses it), sampled where the joint moves.
struct Fit {
  CapstanRows rows;
  Eigen::VectorXd torque;
};
Fit fitRowsOf(const TwoSegments& m, double k, double l0, double mu) {
  Fit f;
  f.rows.length = {m.length};
  f.rows.turn = {m.turn};
  f.rows.band_group = {0};
  f.rows.num_groups = 1;
  const Eigen::MatrixXd t = capstanTensionPerStiffness(m.length, m.turn, l0, mu);
  std::vector<double> tau;
  Eigen::MatrixXd J(m.length.rows(), 2);
  Eigen::Index r = 0;
  for (Eigen::Index i = 1; i + 1 < m.length.rows(); ++i) {
    if (std::abs(m.angle[i + 1] - m.angle[i - 1]) < 1e-4) continue;  // at rest
    f.rows.sample.push_back(i);
    J(r, 0) = 0.05;
    J(r, 1) = 0.0;
    tau.push_back(-k * t(i, 0) * 0.05);
    ++r;
  }
  f.rows.jacobian = {J.topRows(r)};
  f.torque = Eigen::Map<Eigen::VectorXd>(tau.data(), r);
  return f;
}

TEST(BandCapstan, FitRecoversStiffnessNaturalLengthAndFriction) {
  const TwoSegments m = bend(2000, 0.01);
  const double k = 800.0, l0 = 0.49, mu = 0.3;
  Fit f = fitRowsOf(m, k, l0, mu);
  // Deterministic "noise": a small ripple the model cannot follow.
  for (Eigen::Index r = 0; r < f.torque.size(); ++r) f.torque[r] += 1e-3 * std::sin(37.0 * r);
  const CapstanFit fit = fitCapstan(f.rows, f.torque, Eigen::VectorXd::Constant(1, 0.495));
  EXPECT_NEAR(fit.stiffness[0] / k, 1.0, 2e-3);
  EXPECT_NEAR(fit.natural_length[0], l0, 2e-4);
  EXPECT_NEAR(fit.friction, mu, 0.01);
  EXPECT_LT(fit.relative_std[0], 0.01);
  EXPECT_LT(fit.rmse, 0.3 * fit.frictionless_rmse);
  // The one-tension fit (mu held at 0) cannot follow the pull and is off.
  const CapstanFit elastic = fitCapstan(f.rows, f.torque, Eigen::VectorXd::Constant(1, 0.495), 0.0);
  EXPECT_EQ(elastic.friction, 0.0);
  EXPECT_GT(std::abs(elastic.stiffness[0] / k - 1.0), 0.05);
}

// The arm's part adds alike to every taut segment: without friction the
// one tension of the standard linear solid, max(0, e + rho a) while taut;
// with friction, in the stick phase, each segment's elastic pull plus rho a.
TEST(BandCapstan, TheArmAddsAlikeToEverySegment) {
  const TwoSegments m = bend(800, 0.01);
  const Eigen::VectorXd time = Eigen::VectorXd::LinSpaced(800, 0.0, 7.99);
  const double l0 = 0.49, rho = 0.2, tau = 0.7;
  const Eigen::VectorXd arm = maxwellArmTension(time, m.length, l0, rho, tau);
  const Eigen::VectorXd stretch = (m.length.rowwise().sum().array() - l0).max(0.0).matrix();
  const Eigen::VectorXd a = maxwellArmStretch(time, stretch, tau);
  const Eigen::MatrixXd t = capstanTensionPerStiffness(m.length, m.turn, l0, 0.0, arm);
  bool relaxed_somewhere = false;
  for (Eigen::Index i = 0; i < t.rows(); ++i) {
    const double expected = stretch[i] > 0.0 ? std::max(0.0, stretch[i] + rho * a[i]) : 0.0;
    EXPECT_DOUBLE_EQ(arm[i], stretch[i] > 0.0 ? rho * a[i] : 0.0) << i;
    EXPECT_DOUBLE_EQ(t(i, 0), expected) << i;
    EXPECT_DOUBLE_EQ(t(i, 1), expected) << i;
    relaxed_somewhere = relaxed_somewhere || (stretch[i] > 0.0 && std::abs(a[i]) > 1e-3 * stretch[i]);
  }
  EXPECT_TRUE(relaxed_somewhere) << "the arm never pulled: the test would not see it";
  // A high friction holds the material where it was shared: every taut
  // segment pulls its own elastic tension plus the common part.
  const Eigen::MatrixXd stuck = capstanTensionPerStiffness(m.length, m.turn, l0, 50.0, arm);
  const double s0 = l0 * m.length(0, 0) / m.length.row(0).sum(), s1 = l0 - s0;
  for (Eigen::Index i = 0; i < t.rows(); ++i) {
    const double e0 = l0 * (m.length(i, 0) - s0) / s0, e1 = l0 * (m.length(i, 1) - s1) / s1;
    if (m.length(i, 0) > s0) {
      EXPECT_NEAR(stuck(i, 0), std::max(0.0, e0 + arm[i]), 1e-14) << i;
    }
    if (m.length(i, 1) > s1) {
      EXPECT_NEAR(stuck(i, 1), std::max(0.0, e1 + arm[i]), 1e-14) << i;
    }
  }
}

// The torque of a band that rubs and relaxes: the capstan fit alone is
// biased by the arm, the fit of both recovers k, k_m, tau and mu from the
// viscoelastic fit's kind of start.
TEST(BandCapstan, FitOfBothRecoversTheArmAndTheFriction) {
  const int n = 2000;
  const TwoSegments m = bend(n, 0.01);
  const double k = 800.0, l0 = 0.49, mu = 0.3, rho = 0.15, tau = 1.0;
  Fit f = fitRowsOf(m, k, l0, mu);
  f.rows.time = Eigen::VectorXd::LinSpaced(n, 0.0, 0.01 * (n - 1));
  const Eigen::VectorXd arm = maxwellArmTension(f.rows.time, m.length, l0, rho, tau);
  const Eigen::MatrixXd t = capstanTensionPerStiffness(m.length, m.turn, l0, mu, arm);
  for (Eigen::Index r = 0; r < f.torque.size(); ++r) {
    f.torque[r] = -k * t(f.rows.sample[static_cast<std::size_t>(r)], 0) * 0.05 + 1e-3 * std::sin(37.0 * r);
  }
  CapstanArmStart start;
  start.relaxation_time = 0.5;
  start.ratio = Eigen::VectorXd::Constant(1, 0.05);
  const CapstanFit both = fitCapstan(f.rows, f.torque, Eigen::VectorXd::Constant(1, 0.495), 0.8, &start);
  EXPECT_NEAR(both.stiffness[0] / k, 1.0, 5e-3);
  EXPECT_NEAR(both.natural_length[0], l0, 5e-4);
  EXPECT_NEAR(both.friction, mu, 0.02);
  EXPECT_NEAR(both.relaxing_stiffness[0] / (rho * k), 1.0, 0.05);
  EXPECT_NEAR(both.relaxation_time / tau, 1.0, 0.1);
  EXPECT_LT(both.relative_std[0], 0.01);
  // Friction alone lends the arm's work to k and mu.
  const CapstanFit alone = fitCapstan(f.rows, f.torque, Eigen::VectorXd::Constant(1, 0.495));
  EXPECT_GT(alone.rmse, 3.0 * both.rmse);
  EXPECT_GT(std::abs(alone.stiffness[0] / k - 1.0), 5.0 * std::abs(both.stiffness[0] / k - 1.0));
  EXPECT_EQ(alone.relaxing_stiffness[0], 0.0);
  EXPECT_TRUE(std::isnan(alone.relaxation_time));
}

// On a band that rubs but does not relax the fit of both keeps the
// capstan fit's estimate: the arm, started by the scan, is dropped or
// negligible.
TEST(BandCapstan, FitOfBothFindsNoArmWhereThereIsNone) {
  const int n = 2000;
  const TwoSegments m = bend(n, 0.01);
  const double k = 800.0, l0 = 0.49, mu = 0.3;
  Fit f = fitRowsOf(m, k, l0, mu);
  f.rows.time = Eigen::VectorXd::LinSpaced(n, 0.0, 0.01 * (n - 1));
  for (Eigen::Index r = 0; r < f.torque.size(); ++r) f.torque[r] += 1e-3 * std::sin(37.0 * r);
  const CapstanArmStart scan_only;  // no viscoelastic start: the scan alone
  const CapstanFit both = fitCapstan(f.rows, f.torque, Eigen::VectorXd::Constant(1, 0.495), 0.8, &scan_only);
  EXPECT_NEAR(both.stiffness[0] / k, 1.0, 2e-3);
  EXPECT_NEAR(both.friction, mu, 0.01);
  if (std::isfinite(both.relaxation_time)) {
    EXPECT_LT(both.relaxing_stiffness[0], 0.01 * k) << "an arm where the band has none";
  } else {
    EXPECT_EQ(both.relaxing_stiffness[0], 0.0);
  }
}

TEST(BandCapstan, BadInputIsRefusedWithItsReason) {
  const TwoSegments m = bend(200, 0.01);
  Fit f = fitRowsOf(m, 800.0, 0.49, 0.3);
  const Eigen::VectorXd start = Eigen::VectorXd::Constant(1, 0.49);
  auto message = [&](const CapstanRows& rows, const Eigen::VectorXd& torque, const Eigen::VectorXd& l0) {
    try {
      fitCapstan(rows, torque, l0);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(f.rows, f.torque.head(3), start), "fitCapstan: inconsistent sizes");
  CapstanRows none = f.rows;
  none.num_groups = 0;
  EXPECT_EQ(message(none, f.torque, start), "fitCapstan: no fitted group");
  EXPECT_EQ(message(f.rows, f.torque, Eigen::VectorXd::Constant(1, std::nan(""))),
            "fitCapstan: a fitted band needs a finite, positive start");
  auto armsMessage = [&](const CapstanRows& rows, const CapstanArmStart& arms) {
    try {
      fitCapstan(rows, f.torque, start, 0.8, &arms);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CapstanRows timed = f.rows;
  timed.time = Eigen::VectorXd::LinSpaced(200, 0.0, 1.99);
  CapstanArmStart arms;
  arms.ratio = Eigen::VectorXd::Constant(2, 0.1);
  EXPECT_EQ(armsMessage(timed, arms), "fitCapstan: the arms need one finite ratio >= 0 per group");
  arms.ratio = Eigen::VectorXd::Constant(1, 0.1);
  arms.relaxation_time = 0.0;
  EXPECT_EQ(armsMessage(timed, arms), "fitCapstan: the arms need a finite relaxation time > 0 (or NaN: none to start from)");
  arms.relaxation_time = 1.0;
  EXPECT_EQ(armsMessage(f.rows, arms), "fitCapstan: the arms need one time per sample");
  EXPECT_THROW(capstanTensionPerStiffness(m.length, m.turn, 0.49, 0.3, Eigen::VectorXd::Zero(3)), std::invalid_argument);
  EXPECT_THROW(maxwellArmTension(timed.time, m.length, 0.49, -0.1, 1.0), std::invalid_argument);
  EXPECT_THROW(capstanTensionPerStiffness(m.length, m.turn, 0.0, 0.3), std::invalid_argument);
  EXPECT_THROW(capstanTensionPerStiffness(m.length, m.turn.leftCols(1), 0.49, 0.3), std::invalid_argument);
}

}  // namespace
}  // namespace suitsim::eval
