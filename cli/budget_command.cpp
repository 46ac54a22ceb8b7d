// `suitsim budget SCENE --out DIR` (docs/realism.md#the-budget): parsing and
// reporting only; the budget is a sweep (the sweep library's budget.h).
#include <cstdio>
#include <filesystem>
#include <memory>

#include "command_line.h"
#include "commands.h"
#include "sweep_session.h"
#include "suitsim/scene/scene.h"
#include "suitsim/report/report.h"
#include "suitsim/sweep/budget.h"
#include "suitsim/sweep/sweep.h"

namespace suitsim::cli {

namespace fs = std::filesystem;

namespace {

struct BudgetOptions {
  std::string scene, out;
  std::string realism = "realistic";
  int seeds = 3;
  int first_seed = 1;
  bool remedies = true;
  int threads = 0;  // 0: one per core alone, one per rank under mpirun
  bool keep_streams = false;
  bool plots = true;
  bool quiet = false;
};

int budgetChecked(const BudgetOptions& opt) {
  SweepSession session;
  if (!session.start()) return 2;
  const bool writer = session.writer();
  const bool quiet = opt.quiet || !writer;
  const fs::path out(opt.out);
  std::error_code ec;
  const bool out_existed = fs::exists(out, ec);
  const auto refuse = [&](const std::string& message) {
    if (writer && !message.empty()) std::fprintf(stderr, "error: %s\n", message.c_str());
    std::error_code ignored;
    if (!out_existed && writer) fs::remove_all(out, ignored);
    return session.finish(2);
  };
  sweep::SweepSpec spec;
  try {
    // Which sources: a preset, a realism file, or the scene's own <realism>.
    io::Realism realism;
    if (opt.realism == "scene") {
      realism = io::readScene(opt.scene).realism;
      realism.source = opt.scene;
    } else {
      realism = io::realismOption(opt.realism);
    }
    sweep::BudgetPlan plan;
    plan.seeds = opt.seeds;
    plan.first_seed = opt.first_seed;
    plan.remedies = opt.remedies;
    // Rank 0 writes the budget's files; the others read them once written.
    fs::path sweep_file = out / "budget.xml";
    std::vector<std::string> notes;
    if (writer) sweep_file = sweep::writeBudgetSweep(opt.scene, realism, plan, out, &notes);
    if (!quiet) {
      for (const std::string& n : notes) std::fprintf(stderr, "note: %s\n", n.c_str());
    }
    session.barrier();
    spec = sweep::readSweep(sweep_file.string());
  } catch (const io::SceneError& e) {
    return refuse(e.what());
  } catch (const std::invalid_argument& e) {
    return refuse(e.what());
  } catch (const std::exception& e) {
    if (writer) std::fprintf(stderr, "error: %s\n", e.what());
    return session.finish(1);
  }
  sweep::SweepOptions so;
  so.threads = session.threads(opt.threads);
  so.keep_streams = opt.keep_streams;
  so.quiet = quiet;
  if (!quiet) {
    std::string sources;
    for (const std::string& v : spec.parameters.front().values) sources += (sources.empty() ? "" : ", ") + v;
    std::fprintf(stderr, "budget of %s: %zu evaluations (sources %s; %d seed%s) on %d process%s x %d thread%s\n",
                 opt.scene.c_str(), sweep::enumeratePoints(spec).size(), sources.c_str(), opt.seeds,
                 opt.seeds > 1 ? "s" : "", session.ranks(), session.ranks() > 1 ? "es" : "", so.threads,
                 so.threads > 1 ? "s" : "");
  }
  const int ran = session.runPoints(spec, out, so, quiet, [](const sweep::Point& p) {
    return p.id + " (source " + p.values.front() + ", seed " + std::to_string(p.seed) + ")";
  });
  if (ran == 2) return refuse("");  // a point's scene the evaluation refuses (printed): nothing ran
  if (ran != 0) return session.finish(ran);
  int code = 0;
  if (writer) {
    try {
      fs::path script;
      if (opt.plots) script = report::findScript(fs::read_symlink("/proc/self/exe", ec), "plot_budget.py");
      const sweep::SummaryFiles files = sweep::writeBudgetSummary(out, opt.plots, script);
      if (!quiet) {
        if (opt.plots && !files.note.empty()) std::fprintf(stderr, "warning: %s\n", files.note.c_str());
        std::printf("wrote %s, %s and %zu plots\n", (out / "budget.md").c_str(), (out / "budget.json").c_str(),
                    files.pngs.size());
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      code = 1;
    }
  }
  return session.finish(code);
}

}  // namespace

Command addBudgetCommand(CLI::App& suitsim) {
  auto opt = std::make_shared<BudgetOptions>();
  CLI::App* app = suitsim.add_subcommand(
      "budget", "the error budget: evaluate a scene with no error source, each source alone and all together, "
                "over several seeds, with and without the evaluator's remedies (docs/realism.md); resumable, "
                "runs across processes under mpirun");
  addSceneArgument(*app, &opt->scene);
  addOutOption(*app, &opt->out, "where budget.md, budget.json, results.csv and points/ go (a budget there is continued)");
  addTextOption(*app, "--realism", "realistic|FILE|scene", &opt->realism,
                "the sources and their magnitudes: the realistic preset (default), a realism file, or the scene's "
                "own <realism>");
  addWholeNumberOption(*app, "--seeds", "N", &opt->seeds, 1, 1000,
                       "seeds per source: the sensors' noise and the sources' draws (default 3)");
  addWholeNumberOption(*app, "--first-seed", "N", &opt->first_seed, 0, 1000000000, "the first seed (default 1)");
  app->add_flag("--no-remedies", [o = opt.get()](std::int64_t) { o->remedies = false; },
                "evaluate each point once, as the paper does (no remedied evaluation)");
  addThreadsOption(*app, &opt->threads,
                   "evaluations run at once by this process (default: one per core; one per rank under mpirun)");
  app->add_flag("--keep-streams", opt->keep_streams, "keep each evaluation's sensor streams (points/<id>/trials/)");
  app->add_flag("--no-plots", [o = opt.get()](std::int64_t) { o->plots = false; }, "no PNG files");
  addQuietFlag(*app, &opt->quiet, "errors only");
  return {app, [opt] { return budgetChecked(*opt); }};
}

}  // namespace suitsim::cli
