// The error budget (`suitsim budget`, docs/realism.md#the-budget): the whole
// evaluation of one scene with no error source, with each source of a
// <realism> alone and with all of them, over several seeds, and with the
// evaluator's remedies on the same streams. It is a sweep (sweep.h) whose
// one parameter is <realism sources>: resumable, parallel, and across
// processes under MPI like any sweep; this file writes its sweep file and
// reads its table into the budget's tables.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "suitsim/scene/scene.h"
#include "suitsim/sweep/summary.h"

namespace suitsim::sweep {

struct BudgetPlan {
  int seeds = 3;              ///< seeds per source (the sensors' noise and the realism's draws)
  std::int64_t first_seed = 1;
  bool remedies = true;       ///< evaluate each point's streams again with the remedies that apply
};

/// Writes DIR/budget_scene.xml (the scene with `realism` written out in
/// place of its own <realism>) and DIR/budget.xml (the sweep file: the
/// parameter `source` = none, each source `realism` switches on, all; the
/// seeds into realism@seed and every robot/sensors@seed; an <evaluator
/// name="remedied"> with the remedies for the sources on, when any
/// applies). Returns DIR/budget.xml. Throws io::SceneError when the scene
/// cannot be read or `realism` switches nothing on. With compliant gears
/// whose mode the scene's step cannot resolve, every point runs at the
/// step they need (a whole fraction of the output period) and `notes`
/// gains a sentence saying so.
std::filesystem::path writeBudgetSweep(const std::string& scene_path, const io::Realism& realism,
                                       const BudgetPlan& plan, const std::filesystem::path& out,
                                       std::vector<std::string>* notes = nullptr);

/// One cell of the budget: an estimate's relative error over the seeds.
struct BudgetCell {
  int n = 0;             ///< seeds with an estimate
  int missing = 0;       ///< seeds where the group was not identifiable
  double mean = 0.0;
  double half_width = 0.0;  ///< of the 95 % confidence interval of the mean (Student t, n - 1)
};

/// The 97.5 % quantile of Student's t with `dof` degrees of freedom (the
/// half width of a 95 % interval is t sd / sqrt(n)); infinity for dof < 1.
double studentT975(int dof);

/// Mean and 95 % interval of `values` (missing ones counted apart).
BudgetCell budgetCell(const std::vector<double>& values, int missing);

/// Reads DIR/results.csv (a budget's: a `source` column) and writes
/// DIR/budget.md and DIR/budget.json: per source and per approach (and per
/// remedied approach), the mean |error| over the bands and each band
/// group's signed error, as mean and 95 % interval over the seeds; with
/// `plots`, DIR/budget_*.png by `plot_script` (scripts/plot_budget.py).
/// Throws std::runtime_error for a missing or malformed table.
SummaryFiles writeBudgetSummary(const std::filesystem::path& out, bool plots,
                                const std::filesystem::path& plot_script);

}  // namespace suitsim::sweep
