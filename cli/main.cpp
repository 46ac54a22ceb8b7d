// The `suitsim` command: argument dispatch only; the work is in the libraries.
#include <cstdio>
#include <cstring>

#include "commands.h"

namespace {

void printUsage(std::FILE* out) {
  std::fprintf(out,
               "usage: suitsim <command> [options]\n"
               "\n"
               "commands:\n"
               "  run SCENE --out DIR [--duration S] [--dt S] [--threads N] [--quiet]\n"
               "      simulate a scene (every trial of an experiment) headless; writes streams and summaries\n"
               "  evaluate SCENE --out DIR [--noise on|off] [--stribeck on|off] [--threads N]\n"
               "      the whole evaluation: run the experiment, identify, supporting torque, band stiffness, report\n"
               "  identify --scene SCENE --streams DIR --out OUT\n"
               "      identify the robot from an experiment's sensor streams; writes OUT/identification.json\n"
               "  info FILE [--json]\n"
               "      describe what a scene or a URDF builds (counts, masses, joints, channels)\n"
               "\n"
               "exit codes: 0 success, 1 run-time failure, 2 bad input (scene or options)\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    printUsage(stderr);
    return 2;
  }
  if (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "help") == 0) {
    printUsage(stdout);
    return 0;
  }
  if (std::strcmp(argv[1], "run") == 0) return suitsim::cli::runCommand(argc - 1, argv + 1);
  if (std::strcmp(argv[1], "evaluate") == 0) return suitsim::cli::evaluateCommand(argc - 1, argv + 1);
  if (std::strcmp(argv[1], "identify") == 0) return suitsim::cli::identifyCommand(argc - 1, argv + 1);
  if (std::strcmp(argv[1], "info") == 0) return suitsim::cli::infoCommand(argc - 1, argv + 1);
  std::fprintf(stderr, "suitsim: unknown command '%s'\n", argv[1]);
  printUsage(stderr);
  return 2;
}
