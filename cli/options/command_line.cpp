#include "command_line.h"

#include <limits>
#include <cmath>
#include <cstdio>
#include <memory>
#include <system_error>

namespace suitsim::cli {

namespace {

// The scene reader's bound for <simulation threads> is the same.
constexpr int kMaxThreads = 1024;
constexpr std::size_t kUsageWidth = 110;

// "suitsim run" for the `run` subcommand of `suitsim`.
std::string fullName(const CLI::App& app) {
  std::string name = app.get_name();
  for (const CLI::App* p = app.get_parent(); p != nullptr; p = p->get_parent()) name = p->get_name() + " " + name;
  return name;
}

// The option's longest spelling: "--threads".
std::string optionName(const CLI::Option& opt) {
  if (!opt.get_lnames().empty()) return "--" + opt.get_lnames().front();
  if (!opt.get_snames().empty()) return "-" + opt.get_snames().front();
  return opt.get_name();
}

// The help and the errors show our synopsis, the one docs/commands.md
// shows, instead of CLI11's "Usage: NAME [OPTIONS] SCENE".
class UsageFormatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App* app, std::string /*name*/) const override {
    return usageLine(*app) + "\n";
  }
};

// The deepest command the parse got into, where an error belongs.
const CLI::App& selectedCommand(const CLI::App& app) {
  const CLI::App* at = &app;
  for (auto subs = at->get_subcommands(); !subs.empty(); subs = at->get_subcommands()) at = subs.front();
  return *at;
}

std::string formatBound(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace

void configureApp(CLI::App& app, const std::string& footer) {
  app.formatter(std::make_shared<UsageFormatter>());
  app.set_help_flag("-h,--help", "print this help and exit");
  if (!footer.empty()) app.footer(footer);
}

std::optional<int> parseCommandLine(CLI::App& app, int argc, const char* const* argv) {
  // CLI11 reports a misspelt command as "a subcommand is required" or as
  // unexpected arguments; name it instead.
  const auto commands = app.get_subcommands({});
  if (!commands.empty() && argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const CLI::App* c : commands) known = known || c->check_name(argv[1]);
    if (!known) return usageError(app, std::string("unknown command '") + argv[1] + "'");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    return usageError(selectedCommand(app), e.what());
  }
  if (!commands.empty() && app.get_subcommands().empty()) return usageError(app, "no command given");
  return std::nullopt;
}

int usageError(const CLI::App& command, const std::string& message) {
  const std::string name = fullName(command);
  std::fprintf(stderr, "%s: %s\n%s\nrun '%s --help' for the options\n", name.c_str(), message.c_str(),
               usageLine(command).c_str(), name.c_str());
  return 2;
}

std::string usageLine(const CLI::App& command) {
  std::vector<std::string> words;
  if (!command.get_subcommands({}).empty()) words.push_back("COMMAND");
  for (const CLI::Option* opt : command.get_options()) {
    if (!opt->get_positional()) continue;
    words.push_back(opt->get_required() ? opt->get_name() : "[" + opt->get_name() + "]");
  }
  for (const CLI::Option* opt : command.get_options()) {
    if (opt->get_positional() || opt == command.get_help_ptr()) continue;
    std::string word = optionName(*opt);
    if (!opt->get_type_name().empty()) word += " " + opt->get_type_name();  // a flag has none
    words.push_back(opt->get_required() ? word : "[" + word + "]");
  }
  if (!command.get_subcommands({}).empty()) words.push_back("[OPTIONS]");
  const std::string head = "usage: " + fullName(command);
  std::string text = head, line = head;
  for (const std::string& w : words) {
    if (line.size() + 1 + w.size() > kUsageWidth && line.size() > head.size()) {
      line = std::string(head.size(), ' ');
      text += "\n" + line;
    }
    line += " " + w;
    text += " " + w;
  }
  return text;
}

CLI::Option* addParsedOption(CLI::App& app, const std::string& name, const std::string& value_name,
                             std::function<bool(const std::string&)> parse, const std::string& needs,
                             const std::string& help) {
  // The check does the reading: CLI11 runs it on every value before the
  // option counts as given, and an empty message lets the value through.
  CLI::Validator reader(
      [parse = std::move(parse), needs](std::string& text) {
        return parse(text) ? std::string() : "needs " + needs + " (got '" + text + "')";
      },
      "");
  return app.add_option_function<std::string>(name, [](const std::string&) {}, help)
      ->type_name(value_name)
      ->check(reader);
}

CLI::Option* addTextOption(CLI::App& app, const std::string& name, const std::string& value_name, std::string* value,
                           const std::string& help) {
  return addParsedOption(
      app, name, value_name,
      [value](const std::string& text) {
        *value = text;
        return !text.empty();
      },
      "a non-empty " + value_name, help);
}

CLI::Option* addWholeNumberOption(CLI::App& app, const std::string& name, const std::string& value_name, int* value,
                                  int lo, int hi, const std::string& help) {
  const std::string needs = hi == std::numeric_limits<int>::max()
                                ? "a whole number >= " + std::to_string(lo)
                                : "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  return addParsedOption(
      app, name, value_name,
      [value, lo, hi](const std::string& text) {
        int v = 0;
        if (!parseWholeText(text, &v) || v < lo || v > hi) return false;
        *value = v;
        return true;
      },
      needs, help);
}

CLI::Option* addNumberOption(CLI::App& app, const std::string& name, const std::string& value_name, double* value,
                             NumberRange range, const std::string& help) {
  std::string needs = "a number " + std::string(range.min_allowed ? ">= " : "> ") + formatBound(range.min);
  if (range.max > 0.0) needs += " and <= " + formatBound(range.max);
  return addParsedOption(
      app, name, value_name,
      [value, range](const std::string& text) {
        double v = 0.0;
        if (!parseWholeText(text, &v) || !std::isfinite(v)) return false;
        if (range.min_allowed ? v < range.min : !(v > range.min)) return false;
        if (range.max > 0.0 && v > range.max) return false;
        *value = v;
        return true;
      },
      needs, help);
}

CLI::Option* addChoiceOption(CLI::App& app, const std::string& name, std::string* value,
                             const std::vector<std::string>& choices, const std::string& help) {
  std::string needs, value_name;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    needs += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
    value_name += (i == 0 ? "" : "|") + choices[i];
  }
  return addParsedOption(
      app, name, value_name,
      [value, choices](const std::string& text) {
        for (const std::string& c : choices) {
          if (text == c) {
            *value = text;
            return true;
          }
        }
        return false;
      },
      needs, help);
}

CLI::Option* addSceneArgument(CLI::App& app, std::string* path, const std::string& value_name,
                              const std::string& help) {
  return app.add_option(value_name, *path, help)->required()->type_name("");
}

CLI::Option* addOutOption(CLI::App& app, std::string* dir, const std::string& help) {
  return addTextOption(app, "--out", "DIR", dir, help)->required();
}

CLI::Option* addThreadsOption(CLI::App& app, int* threads, const std::string& help) {
  return addWholeNumberOption(app, "--threads", "N", threads, 1, kMaxThreads, help);
}

CLI::Option* addTrialOption(CLI::App& app, std::string* trial, const std::string& help) {
  return addTextOption(app, "--trial", "NAME", trial, help);
}

CLI::Option* addQuietFlag(CLI::App& app, bool* quiet, const std::string& help) {
  return app.add_flag("--quiet", *quiet, help);
}

}  // namespace suitsim::cli
