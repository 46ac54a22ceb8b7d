// Shared by the fuzz targets: our readers take paths (a user hands us files,
// and the path is what every error message names), so each input is written
// to a file in a scratch folder first. The folder holds a `models` link to
// the repository's robots, so a scene that says urdf="../models/..." (as the
// shipped scenes do) reaches a real robot from fuzz/scenes/.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace suitsim::fuzz {

/// The scratch folder, made once per process: $TMPDIR/suitsim-fuzz-<pid>.
inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::filesystem::path d = std::filesystem::path(tmp && *tmp ? tmp : "/tmp") /
                              ("suitsim-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d / "scenes");
    std::error_code ec;
    std::filesystem::create_directory_symlink(SUITSIM_SOURCE_DIR "/models", d / "models", ec);
    return d;
  }();
  return dir;
}

/// Writes the fuzzer's bytes to scratch()/`relative` and returns its path.
inline std::string writeInput(const std::uint8_t* data, std::size_t size, const std::string& relative) {
  const std::filesystem::path p = scratch() / relative;
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", p.c_str());
    std::abort();
  }
  return p.string();
}

/// A refusal must say where: its message starts with the file's path (the
/// "path:line: problem" contract of every reader). Anything else is a bug
/// that the fuzzer should report, so it aborts.
inline void expectNamed(const std::string& what, const std::string& path) {
  if (what.rfind(path, 0) != 0) {
    std::fprintf(stderr, "fuzz: error message does not start with the file's path '%s':\n%s\n", path.c_str(),
                 what.c_str());
    std::abort();
  }
}

}  // namespace suitsim::fuzz
