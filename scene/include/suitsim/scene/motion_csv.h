// Motion CSV files: the reference motions a scene's <motion file> names, and
// the motion library `suitsim design-motions --motions DIR` reads.
#pragma once

#include <string>
#include <vector>

namespace suitsim::io {

/// A motion CSV as read: optional '#' lines, a header "time,<joint>,...",
/// then one row per sample. Units in brackets after a name ("R_KNEE[rad]")
/// are allowed.
struct MotionTable {
  std::vector<std::string> joints;
  std::vector<double> time;    ///< (s), strictly increasing
  std::vector<double> angles;  ///< row-major, (time.size() x joints.size()) (rad)
  std::vector<int> line;       ///< each row's line in the file (1-based), for error messages
  int header_line = 1;         ///< the header's line (after any '#' lines), for errors about a column
};

/// Reads a motion CSV. Throws SceneError (scene.h) naming the CSV file and line.
MotionTable readMotionCsv(const std::string& path);

}  // namespace suitsim::io
