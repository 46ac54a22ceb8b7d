// The `suitsim` subcommands. Each adds itself, with its options, to the
// program's CLI::App; `run` then does the work once the whole command line
// has parsed, and returns the process exit code: 0 success, 1 a run-time
// failure (diverged, cannot write), 2 bad input.
#pragma once

#include <functional>

#include "suitsim/eval/identification.h"
#include "suitsim/eval/robot_identification.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace suitsim::cli {

struct Command {
  CLI::App* app = nullptr;   ///< the subcommand; parsed() says whether it was chosen
  std::function<int()> run;  ///< the command with the parsed options
  /// The folder the command writes when it is not --out (sweep-summary's
  /// DIR): locked like --out (output_lock.h).
  const CLI::Option* folder = nullptr;
};

Command addRunCommand(CLI::App& suitsim);
Command addInfoCommand(CLI::App& suitsim);  // writes no file
Command addIdentifyCommand(CLI::App& suitsim);
Command addEvaluateCommand(CLI::App& suitsim);
Command addSweepCommand(CLI::App& suitsim);         // sweep_command.cpp
Command addSweepSummaryCommand(CLI::App& suitsim);
Command addBudgetCommand(CLI::App& suitsim);         // budget_command.cpp
Command addDesignMotionsCommand(CLI::App& suitsim);  // design_command.cpp

/// --rest-rows exclude|sign-rule (identify and evaluate).
CLI::Option* addRestRowsOption(CLI::App& command, eval::IdentificationOptions::RestRows* rows);
CLI::Option* addArmatureOption(CLI::App& command, eval::IdentificationOptions::Armature* armature);
CLI::Option* addGearOption(CLI::App& command, eval::IdentificationOptions::Gear* gear);
CLI::Option* addHeatingOption(CLI::App& command, eval::PipelineOptions::Heating* heating);
CLI::Option* addSensorDelayOption(CLI::App& command, eval::PipelineOptions::SensorDelay* delay);
CLI::Option* addGearTwistOption(CLI::App& command, eval::PipelineOptions::GearTwist* twist);

}  // namespace suitsim::cli
