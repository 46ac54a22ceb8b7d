// Running a sweep (docs/sweeps.md): every point is the whole evaluation of
// its scene through the libraries (experiment: trials; evaluator: the
// streams only; report: scoring against the truth), one row each in
// DIR/results.csv and DIR/points/<id>/{scene.xml, report.json,
// identification.json}. Points run in parallel on threads and, built with
// MPI, across processes; a point's row depends on the point alone.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "suitsim/sweep/points.h"
#include "suitsim/sweep/spec.h"

namespace suitsim::sweep {

struct SweepOptions {
  int threads = 1;            ///< points at once in this process (each point runs on one thread)
  bool keep_streams = false;  ///< keep each point's trials/ (streams are large: about 10 MB per trial)
  bool quiet = false;
};

/// What each row reports: the suits the scene's evaluation trials wear (in
/// the order first worn) and each suit's stiffness groups (as declared).
struct ResultLayout {
  struct Suit {
    std::string name;
    std::vector<std::string> groups;
  };
  std::vector<Suit> suits;
};

/// The table's columns: point, id, one per parameter, seed (with seeds),
/// status, then per suit and group the true stiffness and each approach's
/// estimate and relative error, the identification's figures, and the
/// point's times (columns whose names hold "time").
std::vector<std::string> resultsHeader(const SweepSpec& spec, const ResultLayout& layout);

/// Checks, before anything runs, that the first point and every value of
/// every parameter (one parameter varied at a time from the first point)
/// make an evaluable scene; scenes are written into `scratch`. Throws
/// io::SceneError "sweep:line: <parameter> value 'v': <the scene's
/// problem>". Returns the layout of the first point, which every point must
/// share (a parameter may not add or remove suits or groups).
/// With `every_value` false only the first point is checked (the other
/// ranks of an MPI sweep, which need the layout; rank 0 checks them all).
ResultLayout checkPoints(const SweepSpec& spec, const std::string& base_xml, const std::filesystem::path& scratch,
                         bool every_value = true);

/// Thrown by runPoint when Ctrl-C or SIGTERM stopped it (nothing is kept).
struct Interrupted {};

/// Runs one point in DIR/points/<id>/ and returns its row (header order,
/// CSV-escaped). A point that cannot be evaluated (its simulation diverges,
/// the evaluation fails) still gives a row, its status saying why and its
/// results empty: which designs the method can evaluate at all is a result.
std::vector<std::string> runPoint(const SweepSpec& spec, const std::string& base_xml, const ResultLayout& layout,
                                  const Point& point, const std::filesystem::path& out, const SweepOptions& options);

/// Called on the rank that writes the table as each row lands: the point,
/// rows done, rows in all.
using RowDone = std::function<void(const Point&, std::size_t, std::size_t)>;

/// Runs every point whose row is not yet in DIR/results.csv, on
/// options.threads threads of this process, or, when MPI is initialised
/// with more than one rank, across the ranks (rank 0 hands out points one
/// at a time and writes the table). Returns the number of points run here.
/// Throws io::SceneError for a table another grid or another base scene
/// made (DIR/results.origin.json, written before the first row, says what
/// made it), std::runtime_error for a table it cannot resume or write, and
/// Interrupted when a signal stopped it (rows written so far stay).
std::size_t runSweep(const SweepSpec& spec, const std::filesystem::path& out, const SweepOptions& options,
                     const RowDone& on_row = {});

/// Whether this build has MPI (SUITSIM_WITH_MPI).
bool haveMpi();

}  // namespace suitsim::sweep
