// `suitsim sweep SPEC --out DIR` and `suitsim sweep-summary DIR`
// (docs/sweeps.md): parsing and reporting only; the work is the sweep
// library's.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "command_line.h"
#include "commands.h"
#include "sweep_session.h"
#include "suitsim/scene/scene.h"
#include "suitsim/report/report.h"
#include "suitsim/sweep/summary.h"
#include "suitsim/sweep/sweep.h"

namespace suitsim::cli {

namespace fs = std::filesystem;

namespace {

struct SweepCommandOptions {
  std::string spec;
  std::string out;
  int threads = 0;  // 0: one per core alone, one per rank under mpirun
  bool keep_streams = false;
  bool plots = true;
  bool quiet = false;
};

fs::path plotScript(bool plots) {
  if (!plots) return {};
  std::error_code ec;
  return report::findScript(fs::read_symlink("/proc/self/exe", ec), "plot_sweep.py");
}

int summarize(const fs::path& out, bool plots, bool quiet) {
  const sweep::SummaryFiles files = sweep::writeSummary(out, plots, plotScript(plots));
  if (!quiet) {
    if (plots && !files.note.empty()) std::fprintf(stderr, "warning: %s\n", files.note.c_str());
    std::printf("wrote %s and %zu plots\n", (out / "summary.md").c_str(), files.pngs.size());
  }
  return 0;
}

int sweepChecked(const SweepCommandOptions& opt) {
  SweepSession session;
  if (!session.start()) return 2;
  const bool writer = session.writer();
  const bool quiet = opt.quiet || !writer;
  sweep::SweepSpec spec;
  try {
    spec = sweep::readSweep(opt.spec);
  } catch (const io::SceneError& e) {
    if (writer) std::fprintf(stderr, "error: %s\n", e.what());
    return session.finish(2);
  }
  const fs::path out(opt.out);
  std::error_code ec;
  const bool out_existed = fs::exists(out, ec);
  fs::create_directories(out, ec);
  if (ec) {
    std::fprintf(stderr, "error: cannot create '%s': %s\n", out.c_str(), ec.message().c_str());
    return session.finish(1);
  }
  sweep::SweepOptions so;
  so.threads = session.threads(opt.threads);
  so.keep_streams = opt.keep_streams;
  so.quiet = quiet;
  const std::size_t total = sweep::enumeratePoints(spec).size();
  if (!quiet) {
    std::fprintf(stderr, "sweep %s: %zu points on %d process%s x %d thread%s\n", spec.name.c_str(), total,
                 session.ranks(), session.ranks() > 1 ? "es" : "", so.threads, so.threads > 1 ? "s" : "");
  }
  const auto start = std::chrono::steady_clock::now();
  std::size_t landed = 0;  // rows this run added to the table (any rank's)
  const int ran = session.runPoints(spec, out, so, quiet, [](const sweep::Point& p) { return p.id; }, &landed);
  if (ran == 2 && !out_existed) {
    // A point's scene that cannot be evaluated: nothing has run.
    std::error_code ignored;
    fs::remove_all(out, ignored);
  }
  if (ran != 0) return session.finish(ran);
  int code = 0;
  if (writer) {
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!quiet) {
      std::fprintf(stderr, "%zu points run in %.1f s (%zu were already in the table)\n", landed, wall,
                   total - landed);
    }
    try {
      code = summarize(out, opt.plots, quiet);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      code = 1;
    }
  }
  return session.finish(code);
}

}  // namespace

Command addSweepCommand(CLI::App& suitsim) {
  auto opt = std::make_shared<SweepCommandOptions>();
  CLI::App* app = suitsim.add_subcommand(
      "sweep", "evaluate every point of a sweep file (a grid or random draws of scene attributes, times seeds); "
               "resumable; runs across processes under mpirun");
  addSceneArgument(*app, &opt->spec, "SPEC", "the sweep file (see docs/sweeps.md)");
  addOutOption(*app, &opt->out, "where results.csv, summary.md and points/ go (an existing table is continued)");
  addThreadsOption(*app, &opt->threads,
                   "points run at once by this process (default: one per core; one per rank under mpirun)");
  app->add_flag("--keep-streams", opt->keep_streams, "keep each point's sensor streams (points/<id>/trials/)");
  app->add_flag("--no-plots", [o = opt.get()](std::int64_t) { o->plots = false; }, "no PNG files");
  addQuietFlag(*app, &opt->quiet, "errors only");
  return {app, [opt] { return sweepChecked(*opt); }};
}

Command addSweepSummaryCommand(CLI::App& suitsim) {
  auto opt = std::make_shared<SweepCommandOptions>();
  CLI::App* app = suitsim.add_subcommand(
      "sweep-summary", "rebuild a sweep's summary.md and plots from its results.csv alone");
  const CLI::Option* dir = addSceneArgument(*app, &opt->out, "DIR", "the sweep's output folder (holding results.csv)");
  app->add_flag("--no-plots", [o = opt.get()](std::int64_t) { o->plots = false; }, "no PNG files");
  addQuietFlag(*app, &opt->quiet, "errors only");
  return {app, [opt] {
            try {
              return summarize(opt->out, opt->plots, opt->quiet);
            } catch (const std::exception& e) {
              std::fprintf(stderr, "error: %s\n", e.what());
              return 2;
            }
          },
          dir};
}

}  // namespace suitsim::cli
