// The messages a sweep's ranks exchange (run_sweep.cpp), behind one small
// interface so that a build without MPI (SUITSIM_WITH_MPI off, or Open MPI
// missing) is one rank with nothing to send. MPI is started only when the
// program runs under mpirun (Open MPI's OMPI_COMM_WORLD_SIZE is set):
// started alone, even an MPI build runs as a plain process.
#pragma once

#include <optional>
#include <string>

namespace suitsim::sweep {

class MpiLink {
 public:
  static MpiLink& instance();

  /// Starts MPI (threads: funnelled through the main thread) when launched
  /// by mpirun. Returns false with `error` set when that fails.
  bool start(int* argc, char*** argv, std::string* error);
  /// Ends MPI (a barrier first, so no rank leaves while others still talk).
  void stop();
  /// Ends every rank at once with `code` (after a failure or a signal on
  /// one rank, the others would wait forever).
  [[noreturn]] void abort(int code);
  /// Waits until every rank is here (nothing without MPI).
  void barrier();

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool active() const { return active_; }

  enum Kind { kRequest, kRow };
  struct Message {
    Kind kind;
    int source;
    int point;        ///< kRow
    std::string row;  ///< kRow
  };
  /// Rank 0: the next request or row from another rank, if one waits.
  std::optional<Message> poll();
  /// Rank 0: answers a request with a point index, or -1 for "no more".
  void sendPoint(int dest, int point);
  /// Other ranks: asks rank 0 for a point and waits for the answer.
  int requestPoint();
  /// Other ranks: sends a finished point's row to rank 0.
  void sendRow(int point, const std::string& row);

 private:
  int rank_ = 0;
  int size_ = 1;
  bool active_ = false;
};

}  // namespace suitsim::sweep
