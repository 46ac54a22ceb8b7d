// The command line every suitsim program shares (cli/options, on CLI11):
// each command's --help exits 0 with its usage on stdout; an unknown option,
// a refused value or a missing scene exits 2 naming the option and what is
// wrong, with the usage, on stderr only, and writes nothing. The checked
// values are tested in-process: what they take, what they refuse, and that a
// number gets the bits the scene reader would give it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "command_line.h"

namespace {

namespace fs = std::filesystem;
using namespace suitsim::testing::cli;

class CommandLine : public suitsim::testing::CliTest {
 protected:
  bool dirIsEmpty() const { return fs::is_empty(dir_ / "work"); }
  Result runIn(const std::vector<std::string>& args) {
    fs::create_directories(dir_ / "work");
    return run(args, dir_ / "work");
  }
};

// A good command line of each command (the one an option is added to).
struct CommandCase {
  std::string name;
  std::vector<std::string> good_args;
  std::vector<std::string> options;  // each must appear in the help and the usage
};

std::vector<CommandCase> commandCases() {
  const std::string scene = sourcePath("scenes/spring_mass.xml");
  return {
      {"run", {"run", scene, "--out", "out"},
       {"SCENE", "--out DIR", "[--duration S]", "[--dt S]", "[--threads N]", "[--trial NAME]", "[--log-format csv|hdf5]", "[--quiet]"}},
      {"evaluate", {"evaluate", scene, "--out", "out"},
       {"SCENE", "--out DIR", "[--noise on|off]", "[--stribeck on|off]", "[--threads N]", "[--streams DIR]", "[--log MAP]",
        "[--band-joints J1,J2]", "[--rest-rows exclude|sign-rule]", "[--armature fit|known|ignored]", "[--no-plots]",
        "[--quiet]"}},
      {"identify", {"identify", "--scene", scene, "--streams", "streams", "--out", "out"},
       {"--scene SCENE", "--streams DIR", "--log MAP", "--out OUT", "[--rest-rows exclude|sign-rule]",
        "[--armature fit|known|ignored]", "[--quiet]"}},
      {"info", {"info", scene}, {"FILE", "[--json]"}},
  };
}

// Usage lines wrap; the options are looked for with the wrapping undone.
std::string unwrapped(const std::string& text) {
  std::string joined;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] == ' ') {
      while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
      joined.push_back(' ');
    } else {
      joined.push_back(text[i]);
    }
  }
  return joined;
}

TEST_F(CommandLine, EveryCommandsHelpExits0WithItsUsageOnStdout) {
  for (const CommandCase& c : commandCases()) {
    for (const char* help : {"--help", "-h"}) {
      SCOPED_TRACE(c.name + " " + help);
      // Help wins over everything else on the line, even a missing scene.
      const Result r = runIn({c.name, help});
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_TRUE(r.err.empty()) << r.err;
      const std::string out = unwrapped(r.out);
      EXPECT_NE(out.find("usage: suitsim " + c.name + " "), std::string::npos) << r.out;
      for (const std::string& option : c.options) EXPECT_NE(out.find(option), std::string::npos) << option;
    }
  }
  const Result r = runIn({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const CommandCase& c : commandCases()) EXPECT_NE(r.out.find("  " + c.name + " "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exit codes"), std::string::npos) << r.out;
  EXPECT_TRUE(dirIsEmpty());
}

TEST_F(CommandLine, AnUnknownOptionExits2NamingItForEveryCommand) {
  for (const CommandCase& c : commandCases()) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> args = c.good_args;
    args.push_back("--frobnicate");
    const Result r = runIn(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.rfind("suitsim " + c.name + ": ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("--frobnicate"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("usage: suitsim " + c.name + " "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("run 'suitsim " + c.name + " --help'"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_TRUE(dirIsEmpty());
  }
}

TEST_F(CommandLine, AMissingSceneExits2ForEveryCommand) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", "--out", "out"}, "suitsim run: SCENE is required"},
      {{"evaluate", "--out", "out"}, "suitsim evaluate: SCENE is required"},
      {{"identify", "--streams", "s", "--out", "out"}, "suitsim identify: --scene is required"},
      {{"info", "--json"}, "suitsim info: FILE is required"},
  };
  for (const auto& [args, message] : cases) {
    SCOPED_TRACE(suitsim::testing::shownArgs(args));
    const Result r = runIn(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_TRUE(dirIsEmpty());
  }
}

// --threads is defined once and checked the same in every command that has it.
TEST_F(CommandLine, ThreadsOutOfRangeIsRefusedTheSameInRunAndEvaluate) {
  const std::string scene = sourcePath("scenes/spring_mass.xml");
  for (const std::string command : {"run", "evaluate"}) {
    for (const std::string value : {"0", "1025", "-1", "1.5", "2x", " 3", "+3", ""}) {
      SCOPED_TRACE(command + " --threads '" + value + "'");
      const Result r = runIn({command, scene, "--out", "out", "--threads", value});
      EXPECT_EQ(r.exit_code, 2) << r.err;
      EXPECT_NE(r.err.find("suitsim " + command + ": --threads: needs a whole number from 1 to 1024 (got '" + value +
                           "')"),
                std::string::npos)
          << r.err;
      EXPECT_TRUE(dirIsEmpty());
    }
  }
}

TEST_F(CommandLine, AnArmatureChoiceOutsideTheThreeExits2) {
  const std::string scene = sourcePath("scenes/spring_mass.xml");
  for (const std::string value : {"fitted", "", "Fit", "none"}) {
    SCOPED_TRACE("--armature '" + value + "'");
    const Result r = runIn({"evaluate", scene, "--out", "out", "--armature", value});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("--armature"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("fit, known or ignored"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_TRUE(dirIsEmpty());
  }
}

TEST_F(CommandLine, AMissingOrMisspeltCommandExits2) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "suitsim: no command given"},
      {{"walk", "scene.xml"}, "suitsim: unknown command 'walk'"},
      {{"--frobnicate"}, "--frobnicate"},
  };
  for (const auto& [args, message] : cases) {
    SCOPED_TRACE(suitsim::testing::shownArgs(args));
    const Result r = runIn(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("usage: suitsim COMMAND"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// ---- the checked values, in-process ------------------------------------------------------

// Parses `args` (after the program name) into an App built by `add`;
// returns the exit code parseCommandLine gives (-1: go on).
template <typename Add>
int parse(const std::vector<std::string>& args, Add add) {
  CLI::App app("test", "prog");
  suitsim::cli::configureApp(app);
  add(app);
  std::vector<const char*> argv = {"prog"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  const auto code = suitsim::cli::parseCommandLine(app, static_cast<int>(argv.size()), argv.data());
  return code ? *code : -1;
}

TEST(CommandLineValues, NumbersAreReadLikeTheSceneReaderAndCheckedAgainstTheirRange) {
  const suitsim::cli::NumberRange positive{};
  const suitsim::cli::NumberRange at_most_1000{0.0, false, 1000.0};
  const suitsim::cli::NumberRange non_negative{0.0, true};
  struct Case {
    std::string text;
    suitsim::cli::NumberRange range;
    bool good;
  };
  const std::vector<Case> cases = {
      {"1e-4", positive, true},      {"0.1", positive, true},        {"0", positive, false},
      {"-1", positive, false},       {"inf", positive, false},       {"nan", positive, false},
      {" 1e-4", positive, false},    {"1e-4 ", positive, false},     {"abc", positive, false},
      {"", positive, false},         {"1000", at_most_1000, true},   {"1000.5", at_most_1000, false},
      {"0", non_negative, true},     {"-0.5", non_negative, false},  {"1e400", positive, false},
      // Just above the midpoint of two doubles: read via long double and
      // cast (CLI11's own conversion) it rounds twice and lands one ulp low.
      {"6.920633813553055607237577e-05", positive, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("'" + c.text + "'");
    double value = -7.0;
    const int code = parse({"--x", c.text}, [&](CLI::App& app) {
      suitsim::cli::addNumberOption(app, "--x", "S", &value, c.range, "x");
    });
    EXPECT_EQ(code, c.good ? -1 : 2);
    if (c.good) {
      // from_chars rounds once, correctly: the same double as the literal
      // (CLI11's own strtold-then-cast may round twice).
      EXPECT_EQ(value, std::stod(c.text));
    } else {
      EXPECT_EQ(value, -7.0);
    }
  }
  double exact = 0.0;
  ASSERT_EQ(parse({"--x", "1e-4"}, [&](CLI::App& app) {
              suitsim::cli::addNumberOption(app, "--x", "S", &exact, positive, "x");
            }),
            -1);
  EXPECT_EQ(exact, 1e-4);
}

TEST(CommandLineValues, WholeNumbersTakeDecimalDigitsInTheirRangeOnly) {
  for (const auto& [text, good] : std::vector<std::pair<std::string, bool>>{
           {"1", true}, {"1024", true}, {"0", false}, {"1025", false}, {"1.0", false}, {"0x10", false},
           {"1e2", false}, {"99999999999999999999", false}}) {
    SCOPED_TRACE(text);
    int value = -7;
    const int code = parse({"--threads", text}, [&](CLI::App& app) { suitsim::cli::addThreadsOption(app, &value, "t"); });
    EXPECT_EQ(code, good ? -1 : 2);
    EXPECT_EQ(value, good ? std::stoi(text) : -7);
  }
}

TEST(CommandLineValues, ChoicesTakeOneOfTheirWords) {
  std::string value;
  const auto add = [&](CLI::App& app) { suitsim::cli::addChoiceOption(app, "--mode", &value, {"a", "b", "c"}, "m"); };
  EXPECT_EQ(parse({"--mode", "b"}, add), -1);
  EXPECT_EQ(value, "b");
  EXPECT_EQ(parse({"--mode", "B"}, add), 2);
  EXPECT_EQ(parse({"--mode", ""}, add), 2);
  EXPECT_EQ(parse({"--mode"}, add), 2);
}

TEST(CommandLineValues, TheUsageLineListsEveryOptionAndWraps) {
  CLI::App app("test", "prog");
  suitsim::cli::configureApp(app);
  std::string scene, out, text;
  int n = 1;
  bool flag = false;
  suitsim::cli::addSceneArgument(app, &scene);
  suitsim::cli::addOutOption(app, &out, "o");
  suitsim::cli::addThreadsOption(app, &n, "t");
  app.add_flag("--flag", flag, "f");
  EXPECT_EQ(suitsim::cli::usageLine(app), "usage: prog SCENE --out DIR [--threads N] [--flag]");
  for (int i = 0; i < 12; ++i) suitsim::cli::addTextOption(app, "--option-" + std::to_string(i), "VALUE", &text, "");
  const std::string usage = suitsim::cli::usageLine(app);
  std::size_t start = 0;
  int lines = 0;
  for (std::size_t end; start <= usage.size(); start = end + 1, ++lines) {
    end = std::min(usage.find('\n', start), usage.size());
    EXPECT_LE(end - start, 110u) << usage;
    if (lines > 0) {
      EXPECT_EQ(usage.compare(start, 12, std::string(12, ' ')), 0) << usage;
    }
  }
  EXPECT_GT(lines, 1) << usage;
  EXPECT_NE(usage.find("[--option-11 VALUE]"), std::string::npos) << usage;
}

}  // namespace
