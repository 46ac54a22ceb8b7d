// The hot parts of excitation design (`suitsim design-motions`,
// docs/design-motions.md) on the shipped protocols' robots, one thread:
//  - generate: candidate motions from the generator (keyframes, inverse
//    kinematics for the legs, the segments' ZMP), candidates per second;
//  - assess: the checks and the excitation rows of a generated library
//    (limits, ZMP on the base rows, self-collision with the URDF's shapes,
//    regressor rows), candidates per second;
//  - select: the greedy choice by condition number of a budget of four
//    motions from the accepted library, choices per second (each one scores
//    every candidate left: a stacked triangle and its SVD).
// The design's own settings: the a-priori model (no identification first),
// a margin of 0.4 of the support polygon's inscribed radius, the segments
// of a 12 s trial.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "suitsim/design/assessment.h"
#include "suitsim/design/candidates.h"
#include "suitsim/design/design_robot.h"
#include "suitsim/design/selection.h"
#include "suitsim/design/self_collision.h"
#include "suitsim/rigid/regressor.h"
#include "suitsim/scene/scene.h"

namespace {

using namespace suitsim;

constexpr int kLibrary = 24;  // candidates generated once for assess and select

struct DesignCase {
  design::DesignRobot robot;
  std::unique_ptr<design::SelfCollision> collision;
  design::GeneratorOptions generator;
  design::AssessmentOptions assessment;
  std::vector<design::CandidateMotion> library;
  std::vector<Eigen::MatrixXd> pool;  // accepted candidates' triangles
};

/// The robot of `scene_file` (in scenes/) as the design sees it, loaded once.
DesignCase& designCase(const std::string& scene_file) {
  static std::map<std::string, std::unique_ptr<DesignCase>> cases;
  std::unique_ptr<DesignCase>& c = cases[scene_file];
  if (c) return *c;
  const std::string path = std::string(SUITSIM_SOURCE_DIR) + "/scenes/" + scene_file;
  std::string trial;
  for (const io::TrialSpec& t : io::listTrials(path)) {
    if (t.purpose == "identification" && trial.empty()) trial = t.name;
  }
  const io::Scene scene = io::loadScene(path, trial);
  c = std::make_unique<DesignCase>(DesignCase{design::makeDesignRobot(scene.robot.value()), nullptr, {}, {}, {}, {}});
  const design::DesignRobot& robot = c->robot;
  c->collision = std::make_unique<design::SelfCollision>(robot.model(), robot.links, robot.stance.initial);
  const double duration = scene.simulation.duration;
  const double margin = 0.4 * design::inscribedRadius(robot.polygon);
  c->generator.start_s = duration / 15.0;
  c->generator.end_s = 0.95 * duration;
  c->generator.segment_min_s = duration / 24.0;
  c->generator.segment_max_s = duration / 8.0;
  c->generator.com_margin = margin;
  c->assessment.zmp_margin = margin;
  c->assessment.speed_fraction = c->generator.speed_fraction;
  c->assessment.max_duration = duration;
  c->assessment.excitation.torque_phi = robot.base.fromStandard(eval::standardParameters(robot.model()));
  c->library = design::generateCandidates(robot, c->generator, kLibrary, 1, 1);
  for (const design::CandidateMotion& m : c->library) {
    const design::Assessment a = design::assessCandidate(robot, *c->collision, m, c->assessment);
    if (a.accepted) c->pool.push_back(a.triangle);
  }
  return *c;
}

void generate(benchmark::State& bench, const std::string& scene_file) {
  DesignCase& c = designCase(scene_file);
  std::uint64_t seed = 100;
  for (auto _ : bench) {
    const std::vector<design::CandidateMotion> one = design::generateCandidates(c.robot, c.generator, 1, seed++, 1);
    benchmark::DoNotOptimize(one.front().time.data());
  }
  bench.counters["candidates_per_s"] = benchmark::Counter(static_cast<double>(bench.iterations()), benchmark::Counter::kIsRate);
  bench.counters["joints"] = c.robot.model().num_joints;
}

void assess(benchmark::State& bench, const std::string& scene_file) {
  DesignCase& c = designCase(scene_file);
  std::size_t k = 0;
  for (auto _ : bench) {
    const design::Assessment a = design::assessCandidate(c.robot, *c.collision, c.library[k++ % c.library.size()], c.assessment);
    benchmark::DoNotOptimize(a.zmp_margin);
  }
  bench.counters["candidates_per_s"] = benchmark::Counter(static_cast<double>(bench.iterations()), benchmark::Counter::kIsRate);
  bench.counters["collision_pairs"] = c.collision->numPairs();
}

void select(benchmark::State& bench, const std::string& scene_file) {
  DesignCase& c = designCase(scene_file);
  const int columns = static_cast<int>(c.pool.empty() ? 0 : c.pool.front().rows());
  const Eigen::MatrixXd start = Eigen::MatrixXd::Zero(columns, columns);
  for (auto _ : bench) {
    const design::Selection s = design::greedySelect(start, c.pool, 4, design::conditionScore, 1);
    benchmark::DoNotOptimize(s.score.data());
  }
  bench.counters["selections_per_s"] = benchmark::Counter(static_cast<double>(bench.iterations()), benchmark::Counter::kIsRate);
  bench.counters["pool"] = static_cast<double>(c.pool.size());
  bench.counters["columns"] = columns;
}

BENCHMARK_CAPTURE(generate, jvrc1, std::string("jvrc1_protocol.xml"))->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(generate, h1, std::string("h1_protocol.xml"))->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(assess, jvrc1, std::string("jvrc1_protocol.xml"))->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(assess, h1, std::string("h1_protocol.xml"))->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(select, jvrc1, std::string("jvrc1_protocol.xml"))->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(select, h1, std::string("h1_protocol.xml"))->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
