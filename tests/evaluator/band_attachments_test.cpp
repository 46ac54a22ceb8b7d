// The straps' correction (evaluator/src/band_attachments.cpp): the band's
// own stiffness behind two straps in series, against the series formula
// the engine's truth uses (articulated.h, wornStiffness).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "suitsim/robot/suit.h"
#include "suitsim/eval/band_attachments.h"

namespace suitsim::eval {
namespace {

SuitFit fitWith(double worn, double relative_std) {
  SuitFit fit;
  MethodFit m;
  GroupEstimate g;
  g.name = "A";
  g.identifiable = true;
  g.stiffness = worn;
  g.relative_std = relative_std;
  m.groups.push_back(g);
  GroupEstimate lost;
  lost.name = "B";
  lost.identifiable = false;
  lost.stiffness = std::nan("");
  lost.reason = "relative std 14 % > 10 %";
  m.groups.push_back(lost);
  fit.methods.push_back(m);
  return fit;
}

TEST(BandAttachments, ReadsTheBandBehindItsStrapsAsTheTruthWearsIt) {
  RobotBand band;
  band.stiffness = 1000.0;
  band.attachment_stiffness = 10000.0;
  const double worn = wornStiffness(band);  // 833.3 N/m: a sixth softer
  SuitFit fit = fitWith(worn, 0.01);
  correctForAttachments(fit, 10000.0);
  const GroupEstimate& a = fit.methods[0].groups[0];
  EXPECT_TRUE(a.identifiable);
  EXPECT_NEAR(a.stiffness, 1000.0, 1e-9);
  EXPECT_EQ(a.worn_stiffness, worn);
  EXPECT_NEAR(a.relative_std, 0.01 * 1000.0 / worn, 1e-12);  // dk/dk_w k_w / k = k / k_w
  const GroupEstimate& b = fit.methods[0].groups[1];  // left as it was
  EXPECT_FALSE(b.identifiable);
  EXPECT_TRUE(std::isnan(b.worn_stiffness));
  EXPECT_EQ(b.reason, "relative std 14 % > 10 %");
}

TEST(BandAttachments, AWornBandStifferThanItsStrapsIsNoBand) {
  SuitFit fit = fitWith(5200.0, 0.01);
  correctForAttachments(fit, 10000.0);
  const GroupEstimate& a = fit.methods[0].groups[0];
  EXPECT_FALSE(a.identifiable);
  EXPECT_TRUE(std::isnan(a.stiffness));
  EXPECT_NE(a.reason.find("not below the straps' series stiffness 5000 N/m"), std::string::npos) << a.reason;
  EXPECT_THROW(correctForAttachments(fit, 0.0), std::invalid_argument);
  EXPECT_THROW(correctForAttachments(fit, std::nan("")), std::invalid_argument);
}

TEST(BandAttachments, ParsesItsWords) {
  Straps s = Straps::Ignored;
  EXPECT_TRUE(parseStraps("corrected", &s));
  EXPECT_EQ(s, Straps::Corrected);
  EXPECT_STREQ(strapsName(s), "corrected");
  EXPECT_FALSE(parseStraps("tight", &s));
  EXPECT_EQ(s, Straps::Corrected);
}

}  // namespace
}  // namespace suitsim::eval
