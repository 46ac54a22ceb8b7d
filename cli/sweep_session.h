// What `suitsim sweep` and `suitsim budget` share: MPI started when under
// mpirun (a failure on one rank ends them all), the points run with
// progress lines, and the exit code for each way a sweep can end.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>

#include "suitsim/sweep/sweep.h"

namespace suitsim::cli {

class SweepSession {
 public:
  /// Starts MPI when under mpirun; false (the message printed) when it cannot.
  bool start();
  /// Rank 0, which writes the table and prints.
  bool writer() const;
  int ranks() const;
  /// Points at once in this process: `requested`, or one per core alone and
  /// one per rank under mpirun.
  int threads(int requested) const;
  void barrier();
  /// Ends the session with `code`; a failure ends every rank.
  int finish(int code);
  /// Runs the points not yet in DIR/results.csv. Prints "[done/all] LABEL
  /// done (t s)" per row unless `quiet`. Returns 0 when they all ran; 2 for
  /// a point's scene that cannot be evaluated (nothing has run; the message
  /// printed); 128 + signal when interrupted; 1 for any other failure.
  /// `landed` (optional) counts the rows this run added.
  int runPoints(const sweep::SweepSpec& spec, const std::filesystem::path& out, const sweep::SweepOptions& options,
                bool quiet, const std::function<std::string(const sweep::Point&)>& label, std::size_t* landed = nullptr);
};

}  // namespace suitsim::cli
