// The `suitsim` subcommands. Each returns the process exit code:
// 0 success, 1 a run-time failure (diverged, cannot write), 2 bad input.
#pragma once

namespace suitsim::cli {

int runCommand(int argc, char** argv);   // argv[0] is "run"
int infoCommand(int argc, char** argv);  // argv[0] is "info"; writes no file
int identifyCommand(int argc, char** argv);  // argv[0] is "identify"
int evaluateCommand(int argc, char** argv);  // argv[0] is "evaluate"

}  // namespace suitsim::cli
