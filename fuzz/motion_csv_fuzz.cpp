// libFuzzer target: motion tables (CSV) through their reader. A refused
// table is a SceneError starting with the CSV's path and line; any other
// exception, a crash or a sanitizer report is a finding.
#include <cstdint>
#include <string>

#include "fuzz_input.h"
#include "suitsim/scene/motion_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = suitsim::fuzz::writeInput(data, size, "motion.csv");
  try {
    suitsim::io::readMotionCsv(path);
  } catch (const suitsim::io::SceneError& e) {
    suitsim::fuzz::expectNamed(e.what(), path);
  }
  return 0;
}
