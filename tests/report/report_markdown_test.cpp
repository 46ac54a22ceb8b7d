// report.md as a first reader meets it (issue 41): the header says what each
// setting is and where it came from, the supporting-torque table leads with
// the moving samples' RMSE (at rest static friction hides the torque from
// every method, A(7)-(8)), and the count of determined base parameters comes
// with a line on what it means for the estimates.
#include <gtest/gtest.h>

#include <string>

#include "suitsim/eval/evaluation.h"
#include "suitsim/report/report.h"
#include "suitsim/report/scoring.h"

namespace suitsim::report {
namespace {

std::string markdown(const RunInfo& run) {
  eval::EvaluationResult result;
  result.scene_name = "toy";
  result.identification.full.phi_relative_std = Eigen::VectorXd(5);
  result.identification.full.phi_relative_std << 1e-4, 0.02, 0.3, 0.5, 4.0;  // median 0.3
  eval::SupportCurves curve;
  curve.motion = "bend";
  curve.suit = "soft";
  result.curves.push_back(curve);
  Score score;
  CurveScore cs;
  cs.joint = "hip";
  cs.rmse = {1.11, 1.12, 1.13, 1.14};         // every sample
  cs.moving_rmse = {0.211, 0.212, 0.213, 0.214};  // where the joint moves
  cs.model_rms = 3.0;
  score.curves.push_back(cs);
  return reportMarkdown(result, score, run, {}, "");
}

TEST(ReportMarkdown, HeaderSaysWhatEachSettingIs) {
  RunInfo run;
  run.scene_path = "toy.xml";
  run.noise = "scene";
  const std::string md = markdown(run);
  EXPECT_NE(md.find("sensor noise (the sensors' random errors"), std::string::npos) << md;
  EXPECT_NE(md.find("as the scene declares"), std::string::npos) << md;
  EXPECT_NE(md.find("Stribeck friction (the joints' drop from static to sliding friction"), std::string::npos) << md;
  EXPECT_EQ(md.find("noise scene"), std::string::npos) << md;
  run.noise = "off";
  EXPECT_NE(markdown(run).find("off (--noise off)"), std::string::npos);
}

TEST(ReportMarkdown, SupportingTorqueLeadsWithTheMovingSamples) {
  const std::string md = markdown(RunInfo{});
  EXPECT_NE(md.find("| 0.211 (1.11) |"), std::string::npos) << md;
  EXPECT_NE(md.find("over the samples where that joint moves; in brackets, over every sample"), std::string::npos);
}

TEST(ReportMarkdown, DeterminedCountSaysWhatItMeans) {
  const std::string md = markdown(RunInfo{});
  EXPECT_NE(md.find("what this means:"), std::string::npos) << md;
  EXPECT_NE(md.find("median one has a relative std of 30 %"), std::string::npos) << md;
}

}  // namespace
}  // namespace suitsim::report
