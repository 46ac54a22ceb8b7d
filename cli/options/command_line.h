// The command line of every suitsim program (`suitsim` and its commands,
// `suitsim-view`), on CLI11: one way to parse, one --help layout, one error
// format and one exit code for bad options, and the options several
// programs share, defined once.
//
// A bad command line prints, on stderr and nothing else,
//     suitsim run: --threads: needs a whole number from 1 to 1024 (got '0')
//     usage: suitsim run SCENE --out DIR [--duration S] [--dt S] [--threads N] [--trial NAME] [--quiet]
//     run 'suitsim run --help' for the options
// and the program exits with 2 before it reads or writes anything.
#pragma once

#include <charconv>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "suitsim/core/number_text.h"

namespace suitsim::cli {

/// Sets up `app` (before any option or subcommand is added, which inherit
/// it): our usage line in --help and in errors, `footer` under the help.
void configureApp(CLI::App& app, const std::string& footer = "");

/// Parses argv. Returns nullopt when the program should go on, else the exit
/// code to return: 0 after --help (printed on stdout), 2 after a bad command
/// line (reported by usageError on the command it concerns). An unknown
/// first word of a program with commands is reported as an unknown command.
std::optional<int> parseCommandLine(CLI::App& app, int argc, const char* const* argv);

/// "PROGRAM [COMMAND]: message", the usage line and a pointer to --help on
/// stderr. Returns 2, the exit code of bad input.
int usageError(const CLI::App& command, const std::string& message);

/// "usage: suitsim run SCENE --out DIR [--dt S] ...", from the options
/// `command` has (wrapped at about 110 columns, no final newline).
std::string usageLine(const CLI::App& command);

// ---- values checked as they are parsed ----------------------------------------------
// A refused value is reported as "--name: needs <what> (got 'value')".

/// Reads the whole of `text` as a number with std::from_chars, as the scene
/// reader does: no spaces, no '+', nothing after it. False leaves a
/// half-read value in `*out`.
template <typename T>
bool parseWholeText(const std::string& text, T* out) {
  const char* end = text.data() + text.size();
  const auto r = suitsim::fromChars(text.data(), end, *out);
  return r.ec == std::errc() && r.ptr == end && !text.empty();
}

/// An option whose text `parse` reads into its destination; false refuses it.
/// `needs` says what a good value is ("WxH, 64 to 8192 pixels each").
CLI::Option* addParsedOption(CLI::App& app, const std::string& name, const std::string& value_name,
                             std::function<bool(const std::string&)> parse, const std::string& needs,
                             const std::string& help);

/// A non-empty text (a file, a folder, a name).
CLI::Option* addTextOption(CLI::App& app, const std::string& name, const std::string& value_name, std::string* value,
                           const std::string& help);

/// A whole number in [lo, hi], decimal digits only ("1.5", "2x", " 3" refused).
CLI::Option* addWholeNumberOption(CLI::App& app, const std::string& name, const std::string& value_name, int* value,
                                  int lo, int hi, const std::string& help);

/// What a real-valued option accepts: finite, above `min` (or at it when
/// `min_allowed`), at most `max`.
struct NumberRange {
  double min = 0.0;
  bool min_allowed = false;
  double max = 0.0;  ///< 0 or less: no upper bound
};

/// A finite number in `range`. Read with std::from_chars, as the scene reader
/// reads numbers, so `--dt 1e-4` and `dt="1e-4"` give the same bits.
CLI::Option* addNumberOption(CLI::App& app, const std::string& name, const std::string& value_name, double* value,
                             NumberRange range, const std::string& help);

/// One of `choices` ("on|off").
CLI::Option* addChoiceOption(CLI::App& app, const std::string& name, std::string* value,
                             const std::vector<std::string>& choices, const std::string& help);

// ---- the options several programs share ------------------------------------------------

/// The scene (or file) to read: one required positional argument, named
/// `value_name` ("SCENE", "FILE"). Whether it exists is for the reader to say.
CLI::Option* addSceneArgument(CLI::App& app, std::string* path, const std::string& value_name = "SCENE",
                              const std::string& help = "the scene file (see docs/scene-format.md)");

/// --out DIR, required.
CLI::Option* addOutOption(CLI::App& app, std::string* dir, const std::string& help);

/// --threads N, 1 to 1024 (the bound `<simulation threads>` has too).
/// `help` says what the default is; `*threads` keeps it when not given.
CLI::Option* addThreadsOption(CLI::App& app, int* threads, const std::string& help);

/// --trial NAME: one trial of an experiment.
CLI::Option* addTrialOption(CLI::App& app, std::string* trial, const std::string& help);

/// --quiet: errors only.
CLI::Option* addQuietFlag(CLI::App& app, bool* quiet, const std::string& help);

}  // namespace suitsim::cli
