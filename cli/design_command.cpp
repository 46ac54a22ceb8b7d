// `suitsim design-motions SCENE --out DIR`: excitation design (Kang et al.
// 2023) for a scene's identification trials: options in, the design
// library's curriculum, files out (DIR/scene.xml, DIR/motions/*.csv,
// DIR/design.json, DIR/design.md). Written under temporary names and renamed
// at the end, so a failed run leaves nothing.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "command_line.h"
#include "commands.h"
#include "suitsim/design/curriculum.h"
#include "suitsim/design/design_report.h"
#include "suitsim/design/design_scene.h"
#include "suitsim/scene/scene.h"

namespace suitsim::cli {

namespace {

namespace fs = std::filesystem;

struct DesignCommandOptions {
  design::DesignOptions design;
  std::string out;
  int seed = 1;
  bool quiet = false;
  std::string margin_rule = "fixed";
  std::string collision = "urdf";
  std::string start = "scene";
  std::string selection = "curriculum";
  int selection_seed = 1;
};

bool writeFile(const fs::path& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  f.close();
  return static_cast<bool>(f);
}

int designChecked(const CLI::App& app, DesignCommandOptions& opt) {
  if ((app.count("--relax-scale") > 0 || app.count("--relax-bias") > 0) && opt.margin_rule != "relaxed") {
    return usageError(app, "--relax-scale and --relax-bias set the relaxation: they need --margin-rule relaxed");
  }
  if (app.count("--selection-seed") > 0 && opt.selection != "random") {
    return usageError(app, "--selection-seed seeds the random choice: it needs --selection random");
  }
  opt.design.relax_margin = opt.margin_rule == "relaxed";
  opt.design.start_from_apriori = opt.start == "apriori";
  opt.design.random_selection = opt.selection == "random";
  opt.design.selection_seed = static_cast<std::uint64_t>(opt.selection_seed);
  opt.design.urdf_collision = opt.collision == "urdf";
  const fs::path out(opt.out);
  std::error_code ec;
  const bool out_existed = fs::exists(out, ec);
  const fs::path work = out / ".design-work";
  const fs::path partial = out / ".design.partial";
  const auto cleanUp = [&](bool remove_out) {
    std::error_code ignored;
    fs::remove_all(work, ignored);
    fs::remove_all(partial, ignored);
    if (remove_out && !out_existed) fs::remove(out, ignored);  // only if empty
  };
  opt.design.seed = static_cast<std::uint64_t>(opt.seed);
  opt.design.work_dir = work;
  if (!opt.quiet) opt.design.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  fs::create_directories(work, ec);
  if (ec) {
    std::fprintf(stderr, "error: cannot create '%s': %s\n", work.c_str(), ec.message().c_str());
    return 1;
  }
  design::DesignResult result;
  try {
    result = design::designMotions(opt.design);
  } catch (const io::SceneError& e) {
    cleanUp(true);
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::invalid_argument& e) {
    cleanUp(true);
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    cleanUp(true);
    std::fprintf(stderr, "error: design failed: %s\n", e.what());
    return 1;
  }

  // The chosen motions as CSV files (a CSV from --motions as it was), the
  // scene, the report: all under the partial folder first.
  fs::create_directories(partial / "motions", ec);
  std::vector<std::string> files;
  std::vector<design::DesignedTrial> trials;
  bool ok = !ec;
  for (const design::ChosenMotion& c : result.chosen) {
    const design::CandidateMotion& m = result.library[static_cast<std::size_t>(c.candidate)];
    const std::string file = "motions/" + c.name + ".csv";
    files.push_back(file);
    design::DesignedTrial t{c.name, &m, ""};
    if (m.source == "generated" || m.source == "scene") {
      ok = ok && writeFile(partial / file, design::motionCsv(m, result.joint_names, 0.01));
    } else {
      fs::copy_file(m.source, partial / file, fs::copy_options::overwrite_existing, ec);
      ok = ok && !ec;
      t.file = fs::absolute(out / file).lexically_normal().string();
    }
    trials.push_back(t);
  }
  try {
    ok = ok && writeFile(partial / "scene.xml", design::designScene(opt.design.scene, trials, result.joint_names, design::KeepTrials::kEvaluation));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    ok = false;
  }
  // The design the guard set aside, for a user who wants to see for
  // themselves (its CSV motions read from where they came from).
  if (ok && !result.set_aside.empty()) {
    std::vector<design::DesignedTrial> aside;
    for (const design::ChosenMotion& c : result.set_aside) {
      const design::CandidateMotion& m = result.library[static_cast<std::size_t>(c.candidate)];
      const bool from_file = m.source != "generated" && m.source != "scene";
      aside.push_back({c.name, &m, from_file ? fs::absolute(m.source).lexically_normal().string() : ""});
    }
    try {
      ok = writeFile(partial / "set_aside.xml", design::designScene(opt.design.scene, aside, result.joint_names,
                                                                    design::KeepTrials::kEvaluation));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      ok = false;
    }
  }
  ok = ok && writeFile(partial / "design.json",
                       design::designReportJson(result, opt.design.target, files)
                               .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                           "\n");
  ok = ok && writeFile(partial / "design.md", design::designReportMarkdown(result, opt.design.target, files));
  if (ok) {
    fs::create_directories(out / "motions", ec);
    for (const std::string& f : files) {
      if (!ec) fs::rename(partial / f, out / f, ec);
    }
    for (const char* f : {"design.json", "design.md", "scene.xml"}) {
      if (!ec) fs::rename(partial / f, out / f, ec);
    }
    if (!ec && !result.set_aside.empty()) {
      fs::rename(partial / "set_aside.xml", out / "set_aside.xml", ec);
    } else if (!ec) {
      fs::remove(out / "set_aside.xml", ec);  // an earlier run's, no longer true
    }
    ok = !ec;
  }
  cleanUp(!ok);
  if (!ok) {
    std::fprintf(stderr, "error: writing the design into '%s' failed\n", out.c_str());
    return 1;
  }
  if (!opt.quiet) {
    const design::DesignIteration& first = result.iterations.front();
    const design::DesignIteration& last = result.iterations.back();
    if (first.identified.determined < 0) {  // started from the a-priori model: nothing identified at iteration 0
      std::printf("design: %zu motions; base parameters with relative std below %.3g %%: %d of %d; condition number %.4g\n",
                  result.chosen.size(), 100.0 * opt.design.target, last.identified.determined, result.num_base,
                  last.identified.condition_number);
    } else {
      std::printf("design: %zu motions; base parameters with relative std below %.3g %%: %d (scene's motions) -> %d; "
                  "condition number %.4g -> %.4g\n",
                  result.chosen.size(), 100.0 * opt.design.target, first.identified.determined,
                  last.identified.determined, first.identified.condition_number, last.identified.condition_number);
    }
    std::printf("suit-fit guard: %s\n", result.fit_guard.c_str());
    std::printf("wrote %s, %s, %s and %zu motions in %.1f s\n", (out / "scene.xml").c_str(), (out / "design.json").c_str(),
                (out / "design.md").c_str(), files.size(), result.wall_s);
  }
  return 0;
}

}  // namespace

Command addDesignMotionsCommand(CLI::App& suitsim) {
  auto opt = std::make_shared<DesignCommandOptions>();
  CLI::App* app = suitsim.add_subcommand(
      "design-motions",
      "excitation design: choose identification motions that pin the parameters down (Kang et al. 2023); writes "
      "DIR/scene.xml with them, the motions and a report");
  addSceneArgument(*app, &opt->design.scene);
  addOutOption(*app, &opt->out, "where to write the scene, the motions and the report (created if needed)");
  addWholeNumberOption(*app, "--seed", "N", &opt->seed, 0, 2147483647, "seed of the generated motions (default 1)");
  addWholeNumberOption(*app, "--candidates", "N", &opt->design.candidates, 0, 100000,
                       "generated candidate motions in the library (default 300)");
  addTextOption(*app, "--motions", "DIR", &opt->design.motions_dir,
                "add every motion CSV in DIR (time,<joint>,...) to the library");
  addNumberOption(*app, "--margin", "M", &opt->design.margin, {0.0, true, 0.0},
                  "the ZMP must stay M metres inside the support polygon (default: 0.4 of its inscribed radius)");
  addChoiceOption(*app, "--margin-rule", &opt->margin_rule, {"fixed", "relaxed"},
                  "fixed: the same ZMP margin in every iteration (default); relaxed: --margin is the first iteration's, "
                  "and it shrinks as the identified condition number falls (Kang et al. (20))");
  addNumberOption(*app, "--relax-scale", "A", &opt->design.relax_scale, {0.0, true, 0.0},
                  "relaxed: the scale a per unit of condition number (default 2.5e-4)");
  addNumberOption(*app, "--relax-bias", "B", &opt->design.relax_bias, {0.0, false, 0.0},
                  "relaxed: the bias b; the margin never falls below 1 - exp(-b) of the first (default 1)");
  addChoiceOption(*app, "--collision", &opt->collision, {"urdf", "inertia"},
                  "self-collision shapes: the URDF's primitive <collision> shapes where a link has them, capsules "
                  "from inertia elsewhere (urdf, default), or capsules from inertia for every body (inertia)");
  addNumberOption(*app, "--segment-min", "S", &opt->design.segment_min_s, {0.0, false, 0.0},
                  "shortest segment between two keyframes (s; default: a 24th of a trial)");
  addNumberOption(*app, "--segment-max", "S", &opt->design.segment_max_s, {0.0, false, 0.0},
                  "longest segment between two keyframes (s; default: an 8th of a trial)");
  addWholeNumberOption(*app, "--iterations", "N", &opt->design.iterations, 1, 100,
                       "curriculum iterations, at most one per identification trial (default 2)");
  addChoiceOption(*app, "--start", &opt->start, {"scene", "apriori"},
                  "scene: start from the scene's own identification motions, simulated and identified (default); "
                  "apriori: from the a-priori model alone, as Kang et al. do (the scene's motions only set the budget)");
  addChoiceOption(*app, "--selection", &opt->selection, {"curriculum", "random"},
                  "curriculum: choose by condition number, then by predicted reliability (default); random: a random "
                  "motion among those that pass each iteration's checks (Kang et al.'s baseline)");
  addWholeNumberOption(*app, "--selection-seed", "N", &opt->selection_seed, 0, 2147483647,
                       "seed of --selection random (default 1)");
  addThreadsOption(*app, &opt->design.threads,
                   "threads for the library, the simulations and the identification (default: one per core)");
  addQuietFlag(*app, &opt->quiet, "nothing on stdout or stderr except errors");
  return {app, [app, opt] { return designChecked(*app, *opt); }};
}

}  // namespace suitsim::cli
