// Sweeps and the error budget from Python: the sweep library's runSweep on
// this process's threads (no MPI: a Python session is one process), into a
// folder, then the results table read back for the package to turn into
// records and arrays. The same calls `suitsim sweep` and `suitsim budget`
// make, in the same order, so the tables agree with theirs.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "suitsim/scene/scene.h"
#include "suitsim/sweep/budget.h"
#include "suitsim/sweep/summary.h"
#include "suitsim/sweep/sweep.h"
#include "suitsim/sweep/table.h"

namespace py = pybind11;

namespace suitsim::python {

namespace {

namespace fs = std::filesystem;

sweep::SweepOptions sweepOptions(int threads, bool keep_streams) {
  if (threads < 0 || threads > 1024) {
    throw std::invalid_argument("threads: needs a whole number from 1 to 1024 (got " + std::to_string(threads) + ")");
  }
  sweep::SweepOptions so;
  so.threads = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  so.keep_streams = keep_streams;
  so.quiet = true;
  return so;
}

py::tuple resultsOf(const fs::path& out) {
  const sweep::TableText t = sweep::readResultsTable(out / "results.csv");
  return py::make_tuple(t.header, t.rows);
}

py::tuple runSweep(const std::string& spec_path, const std::string& out, int threads, bool keep_streams) {
  const sweep::SweepOptions so = sweepOptions(threads, keep_streams);
  sweep::SweepSpec spec;
  {
    py::gil_scoped_release release;
    spec = sweep::readSweep(spec_path);
    fs::create_directories(out);
  }
  runInterruptible([&] {
    sweep::runSweep(spec, out, so);
    sweep::writeSummary(out, false, {});  // summary.md; plots stay the command's
  });
  return resultsOf(out);
}

py::tuple runBudget(const std::string& scene_path, const std::string& out, const std::string& realism_word, int seeds,
                    long first_seed, bool remedies, int threads, bool keep_streams) {
  const sweep::SweepOptions so = sweepOptions(threads, keep_streams);
  if (seeds < 1 || seeds > 1000) {
    throw std::invalid_argument("seeds: needs a whole number from 1 to 1000 (got " + std::to_string(seeds) + ")");
  }
  if (first_seed < 0 || first_seed > 1000000000) {
    throw std::invalid_argument("first_seed: needs a whole number from 0 to 1000000000 (got " +
                                std::to_string(first_seed) + ")");
  }
  sweep::SweepSpec spec;
  std::vector<std::string> notes;
  {
    py::gil_scoped_release release;
    // Which sources: a preset, a realism file, or the scene's own <realism>, as `suitsim budget --realism`.
    io::Realism realism;
    if (realism_word == "scene") {
      realism = io::readScene(scene_path).realism;
      realism.source = scene_path;
    } else {
      realism = io::realismOption(realism_word);
    }
    sweep::BudgetPlan plan;
    plan.seeds = seeds;
    plan.first_seed = first_seed;
    plan.remedies = remedies;
    fs::create_directories(out);
    spec = sweep::readSweep(sweep::writeBudgetSweep(scene_path, realism, plan, out, &notes).string());
  }
  runInterruptible([&] {
    sweep::runSweep(spec, out, so);
    sweep::writeBudgetSummary(out, false, {});
  });
  std::ifstream f(fs::path(out) / "budget.json");
  std::stringstream text;
  text << f.rdbuf();
  return py::make_tuple(resultsOf(out), text.str(), notes);
}

}  // namespace

void bindSweeps(py::module_& m) {
  m.def("sweep", &runSweep, py::arg("spec"), py::arg("out"), py::arg("threads"), py::arg("keep_streams"));
  m.def("budget", &runBudget, py::arg("scene"), py::arg("out"), py::arg("realism"), py::arg("seeds"),
        py::arg("first_seed"), py::arg("remedies"), py::arg("threads"), py::arg("keep_streams"));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const sweep::Interrupted&) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
    }
  });
}

}  // namespace suitsim::python
