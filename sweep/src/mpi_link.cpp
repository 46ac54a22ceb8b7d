#include "suitsim/sweep/mpi_link.h"
#include "suitsim/sweep/sweep.h"

#include <cstdlib>
#include <cstring>
#include <vector>

#ifdef SUITSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace suitsim::sweep {

namespace {
constexpr int kTagRequest = 1;
constexpr int kTagPoint = 2;
constexpr int kTagRow = 3;
}  // namespace

MpiLink& MpiLink::instance() {
  static MpiLink link;
  return link;
}

#ifdef SUITSIM_HAVE_MPI

bool MpiLink::start(int* argc, char*** argv, std::string* error) {
  if (!std::getenv("OMPI_COMM_WORLD_SIZE") && !std::getenv("PMI_SIZE")) return true;  // not under mpirun
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    *error = "MPI_Init_thread failed";
    return false;
  }
  if (provided < MPI_THREAD_FUNNELED) {
    *error = "this MPI cannot be used with threads (MPI_THREAD_FUNNELED)";
    MPI_Finalize();
    return false;
  }
  active_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  return true;
}

void MpiLink::stop() {
  if (!active_) return;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  active_ = false;
}

void MpiLink::abort(int code) {
  if (active_) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

std::optional<MpiLink::Message> MpiLink::poll() {
  if (!active_ || size_ == 1) return std::nullopt;
  int flag = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
  if (!flag) return std::nullopt;
  Message m{kRequest, status.MPI_SOURCE, -1, {}};
  if (status.MPI_TAG == kTagRequest) {
    int dummy = 0;
    MPI_Recv(&dummy, 1, MPI_INT, status.MPI_SOURCE, kTagRequest, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return m;
  }
  // kTagRow: the point index (4 bytes), then the row's text.
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  std::vector<char> buffer(static_cast<std::size_t>(count));
  MPI_Recv(buffer.data(), count, MPI_CHAR, status.MPI_SOURCE, kTagRow, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  m.kind = kRow;
  std::memcpy(&m.point, buffer.data(), sizeof(int));
  m.row.assign(buffer.data() + sizeof(int), buffer.size() - sizeof(int));
  return m;
}

void MpiLink::barrier() {
  if (active_) MPI_Barrier(MPI_COMM_WORLD);
}

void MpiLink::sendPoint(int dest, int point) { MPI_Send(&point, 1, MPI_INT, dest, kTagPoint, MPI_COMM_WORLD); }

int MpiLink::requestPoint() {
  int dummy = 0, point = -1;
  MPI_Send(&dummy, 1, MPI_INT, 0, kTagRequest, MPI_COMM_WORLD);
  MPI_Recv(&point, 1, MPI_INT, 0, kTagPoint, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return point;
}

void MpiLink::sendRow(int point, const std::string& row) {
  std::vector<char> buffer(sizeof(int) + row.size());
  std::memcpy(buffer.data(), &point, sizeof(int));
  std::memcpy(buffer.data() + sizeof(int), row.data(), row.size());
  MPI_Send(buffer.data(), static_cast<int>(buffer.size()), MPI_CHAR, 0, kTagRow, MPI_COMM_WORLD);
}

#else  // one rank, nothing to send

bool MpiLink::start(int*, char***, std::string* error) {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") && std::atoi(std::getenv("OMPI_COMM_WORLD_SIZE")) > 1) {
    *error = "launched by mpirun, but this suitsim was built without MPI (install libopenmpi-dev and rebuild)";
    return false;
  }
  return true;
}
void MpiLink::stop() {}
void MpiLink::abort(int code) { std::exit(code); }
std::optional<MpiLink::Message> MpiLink::poll() { return std::nullopt; }
void MpiLink::barrier() {}
void MpiLink::sendPoint(int, int) {}
int MpiLink::requestPoint() { return -1; }
void MpiLink::sendRow(int, const std::string&) {}

#endif

}  // namespace suitsim::sweep

namespace suitsim::sweep {

bool haveMpi() {
#ifdef SUITSIM_HAVE_MPI
  return true;
#else
  return false;
#endif
}

}  // namespace suitsim::sweep
