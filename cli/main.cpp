// The `suitsim` command: the command line and the dispatch only; each
// command's options are in its own file, the work is in the libraries.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "command_line.h"
#include "commands.h"
#include "output_lock.h"
#include "suitsim/core/stop.h"

namespace {

// Under mpirun every rank runs this program: rank 0 writes the folder and
// holds its lock, the others only send it rows.
bool otherMpiRank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}) {
    if (const char* rank = std::getenv(name)) return std::string(rank) != "0";
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace suitsim::cli;
  CLI::App suitsim("suitsim: simulates a humanoid robot wearing an elastic suit and evaluates the suit from the "
                   "robot's sensor streams.",
                   "suitsim");
  configureApp(suitsim, "exit codes: 0 success, 1 run-time failure, 2 bad input (scene, streams or options); "
                        "see docs/commands.md");
  // At most one command; none at all is reported by parseCommandLine, with
  // the usage, instead of CLI11's "A subcommand is required".
  suitsim.require_subcommand(0, 1);
  const std::vector<Command> commands = {addRunCommand(suitsim), addEvaluateCommand(suitsim),
                                         addIdentifyCommand(suitsim), addInfoCommand(suitsim),
                                         addSweepCommand(suitsim), addSweepSummaryCommand(suitsim), addBudgetCommand(suitsim),
                                         addDesignMotionsCommand(suitsim)};
  for (const Command& c : commands) c.app->group("Commands");  // the heading in --help
  if (const auto code = parseCommandLine(suitsim, argc, argv)) return *code;
  for (const Command& c : commands) {
    if (!c.app->parsed()) continue;
    // A folder is written by one run at a time: the lock is taken before
    // the command writes anything and held until it has ended.
    // sweep-summary rewrites a sweep's summary.md and plots in its DIR, so
    // it takes the same lock: a sweep still writing the folder (or a second
    // summary) would otherwise interleave with it.
    OutputLock lock;
    const CLI::Option* out = c.folder ? c.folder : c.app->get_option_no_throw("--out");
    if (out && out->count() > 0 && !otherMpiRank()) {
      const char* remedy = c.folder ? "wait for it to end" : "wait for it to end or choose another --out";
      if (const int code = lock.acquire(out->as<std::string>(), remedy)) return code;
    }
    // Bad input is reported and checked by the commands before anything
    // runs; what is left (out of memory for a huge scene, a filesystem
    // error) is reported here rather than ending with std::terminate.
    try {
      return c.run();
    } catch (const suitsim::Stopped& e) {
      // A command that polls the stop request but has nothing of its own
      // to remove (a plotter it ran died of Ctrl-C): 128 + the signal.
      std::fprintf(stderr, "interrupted\n");
      return 128 + e.signal();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 1;
    }
  }
  return usageError(suitsim, "no command given");  // not reached: parseCommandLine checks it
}
