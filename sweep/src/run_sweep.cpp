// Handing out a sweep's points: threads in one process, and, built with MPI,
// ranks across machines. Rank 0 writes the table; every rank (rank 0 too)
// runs points on its own threads. Points go out one at a time on request
// (dynamic: a point costs seconds to minutes), and only rank 0's main
// thread and each rank's main thread speak MPI (MPI_THREAD_FUNNELED).
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "suitsim/core/random.h"
#include "suitsim/experiment/interrupt.h"
#include "suitsim/scene/scene.h"
#include "suitsim/sweep/mpi_link.h"
#include "suitsim/sweep/sweep.h"
#include "suitsim/sweep/table.h"

namespace suitsim::sweep {

namespace fs = std::filesystem;

namespace {

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// What made a results table: the base scene's text (its hash) and every
// point's values and seed. Rows are matched by point index, so a table
// resumed by another grid (4 values, then 2 under the same names) would mix
// the two and run nothing; a changed base scene would mix two scenes.
nlohmann::ordered_json originOf(const SweepSpec& spec, const std::string& base_xml, const std::vector<Point>& points) {
  nlohmann::ordered_json o;
  o["sweep"] = spec.path;
  o["base_scene"] = spec.scene;
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(nameHash64(base_xml)));
  o["base_scene_hash"] = hash;
  o["points"] = nlohmann::ordered_json::array();
  for (const Point& p : points) {
    nlohmann::ordered_json q;
    q["id"] = p.id;
    q["values"] = p.values;
    if (spec.seeds.count > 0) q["seed"] = p.seed;
    o["points"].push_back(q);
  }
  return o;
}

std::string pointText(const SweepSpec& spec, const nlohmann::ordered_json& point) {
  std::string text = point.value("id", std::string("?")) + " (";
  const nlohmann::ordered_json values = point.value("values", nlohmann::ordered_json::array());
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (k) text += ", ";
    text += (k < spec.parameters.size() ? spec.parameters[k].name : "?") + "=" +
            (values[k].is_string() ? values[k].get<std::string>() : values[k].dump());
  }
  if (point.contains("seed")) text += ", seed " + point["seed"].dump();
  return text + ")";
}

// Refuses (io::SceneError: bad input, exit 2) a table that another sweep
// or another base scene made; records the origin of a table not begun yet.
void checkOrigin(const SweepSpec& spec, const std::string& base_xml, const std::vector<Point>& points,
                 const fs::path& out, const ResultsTable& table) {
  const fs::path file = out / "results.origin.json";
  const nlohmann::ordered_json now = originOf(spec, base_xml, points);
  const std::string table_name = (out / "results.csv").string();
  std::error_code ec;
  if (table.size() == 0) {
    // Written before the first row, under a temporary name: a table with
    // rows always has its origin beside it.
    const fs::path tmp = out / ".results.origin.json.partial";
    {
      std::ofstream f(tmp, std::ios::trunc);
      f << now.dump(1) << "\n";
      f.close();
      if (!f) throw std::runtime_error("cannot write '" + tmp.string() + "'");
    }
    fs::rename(tmp, file, ec);
    if (ec) throw std::runtime_error("cannot rename '" + tmp.string() + "': " + ec.message());
    return;
  }
  const auto refuse = [&](const std::string& what) {
    throw io::SceneError(table_name + ": " + what + "; give another --out, or remove the table to start again");
  };
  nlohmann::ordered_json then;
  {
    std::ifstream in(file);
    if (!in) refuse("no results.origin.json beside it (an older suitsim made it): nothing says which sweep it holds");
    try {
      in >> then;
    } catch (const std::exception&) {
      refuse(file.string() + " cannot be read as JSON");
    }
  }
  if (then.value("base_scene_hash", std::string()) != now["base_scene_hash"].get<std::string>()) {
    refuse("the base scene has changed since the table was begun (its text's hash was " +
           then.value("base_scene_hash", std::string("?")) + " for '" + then.value("base_scene", std::string("?")) +
           "', it is " + now["base_scene_hash"].get<std::string>() + " for '" + spec.scene + "')");
  }
  const nlohmann::ordered_json before = then.value("points", nlohmann::ordered_json::array());
  const nlohmann::ordered_json& after = now["points"];
  if (before.size() != after.size()) {
    refuse("another grid made it: " + std::to_string(before.size()) + " points (sweep file '" +
           then.value("sweep", std::string("?")) + "'), this sweep has " + std::to_string(after.size()));
  }
  for (std::size_t k = 0; k < before.size(); ++k) {
    if (before[k] != after[k]) {
      refuse("another grid made it: its point " + pointText(spec, before[k]) + " is " + pointText(spec, after[k]) +
             " in this sweep ('" + spec.path + "')");
    }
  }
}

// Work shared by this process's threads: the next point to run (from a
// local list on rank 0, or by asking rank 0 elsewhere) and finished rows.
class Queue {
 public:
  // Blocks until a point is available; -1 when there is no more work.
  int next() {
    std::unique_lock<std::mutex> lock(mutex_);
    ++waiting_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return !ready_.empty() || closed_; });
    --waiting_;
    if (ready_.empty()) return -1;
    const int p = ready_.front();
    ready_.pop_front();
    return p;
  }
  void give(int point) {
    std::lock_guard<std::mutex> lock(mutex_);
    ready_.push_back(point);
    changed_.notify_all();
  }
  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }
  // Threads waiting for a point that none has been asked for yet.
  int hungry() {
    std::lock_guard<std::mutex> lock(mutex_);
    return waiting_ - static_cast<int>(ready_.size());
  }
  void finished(int point, std::string row) {
    std::lock_guard<std::mutex> lock(mutex_);
    done_.emplace_back(point, std::move(row));
    changed_.notify_all();
  }
  std::vector<std::pair<int, std::string>> takeFinished() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::pair<int, std::string>> out(done_.begin(), done_.end());
    done_.clear();
    return out;
  }
  // Waits up to `ms` for anything to change.
  void idle(int ms) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_for(lock, std::chrono::milliseconds(ms));
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<int> ready_;
  std::deque<std::pair<int, std::string>> done_;
  int waiting_ = 0;
  bool closed_ = false;
};

}  // namespace

std::size_t runSweep(const SweepSpec& spec, const fs::path& out, const SweepOptions& options, const RowDone& on_row) {
  const std::string base_xml = readText(spec.scene);
  const std::vector<Point> points = enumeratePoints(spec);
  MpiLink& mpi = MpiLink::instance();
  const bool writer = mpi.rank() == 0;

  // Every rank checks the scenes itself (cheap next to a point) rather than
  // being sent the layout; rank 0 alone touches the table.
  const ResultLayout layout =
      checkPoints(spec, base_xml, out / (".check-" + std::to_string(mpi.rank())), writer);
  ResultsTable table(out / "results.csv", resultsHeader(spec, layout));
  std::deque<int> pending;
  if (writer) {
    table.resume();
    checkOrigin(spec, base_xml, points, out, table);
    for (const Point& p : points) {
      if (!table.has(p.index)) pending.push_back(p.index);
    }
  }
  const std::size_t total = points.size();
  std::size_t written = writer ? table.size() : 0;

  Queue queue;
  std::atomic<bool> interrupted{false};
  std::atomic<std::size_t> ran{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const int threads = std::max(1, options.threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      omp_set_num_threads(1);  // one point, one thread: the points are the parallelism
      for (int p; (p = queue.next()) >= 0;) {
        try {
          queue.finished(p, joinCsv(runPoint(spec, base_xml, layout, points[static_cast<std::size_t>(p)], out, options)));
          ++ran;
        } catch (const Interrupted&) {
          interrupted = true;
          queue.close();
        } catch (...) {
          std::lock_guard<std::mutex> lock(failure_mutex);
          if (!failure) failure = std::current_exception();
          queue.close();
        }
      }
    });
  }

  const auto record = [&](int p, const std::string& row) {
    std::vector<std::string> fields;
    splitCsv(row, &fields);
    table.add(p, fields);
    ++written;
    if (on_row) on_row(points[static_cast<std::size_t>(p)], written, total);
  };
  const auto stopped = [&] {
    std::lock_guard<std::mutex> lock(failure_mutex);
    return interrupted.load() || failure != nullptr || experiment::interruptSignal() != 0;
  };

  // The main thread: hands out points and collects rows.
  int outstanding_remote = 0;  // rank 0: points sent to other ranks, rows not back
  int remote_ranks_open = writer ? mpi.size() - 1 : 0;
  bool local_done = false;
  while (true) {
    if (stopped()) break;
    if (writer) {
      // Our own threads first take from the list, then other ranks ask.
      for (int h = queue.hungry(); h > 0 && !pending.empty(); --h) {
        queue.give(pending.front());
        pending.pop_front();
      }
      for (auto& [p, row] : queue.takeFinished()) record(p, row);
      while (auto msg = mpi.poll()) {
        if (msg->kind == MpiLink::kRow) {
          record(msg->point, msg->row);
          --outstanding_remote;
        } else {  // kRequest
          if (!pending.empty()) {
            mpi.sendPoint(msg->source, pending.front());
            pending.pop_front();
            ++outstanding_remote;
          } else {
            mpi.sendPoint(msg->source, -1);
            --remote_ranks_open;
          }
        }
      }
      if (pending.empty() && !local_done && queue.hungry() >= threads) {
        queue.close();  // every thread waits and nothing is left: they are done
        local_done = true;
      }
      if (local_done && outstanding_remote == 0 && remote_ranks_open == 0) break;
    } else {
      for (auto& [p, row] : queue.takeFinished()) mpi.sendRow(p, row);
      if (queue.hungry() > 0) {
        const int p = mpi.requestPoint();  // blocks for rank 0's answer
        if (p < 0) {
          queue.close();
          for (std::thread& w : workers) w.join();
          workers.clear();
          for (auto& [q, row] : queue.takeFinished()) mpi.sendRow(q, row);
          break;
        }
        queue.give(p);
      }
    }
    queue.idle(2);
  }
  queue.close();
  for (std::thread& w : workers) w.join();
  if (writer) {
    for (auto& [p, row] : queue.takeFinished()) record(p, row);
  } else {
    for (auto& [p, row] : queue.takeFinished()) mpi.sendRow(p, row);
  }
  if (failure) std::rethrow_exception(failure);
  if (interrupted || experiment::interruptSignal()) throw Interrupted{};
  return ran.load();
}

}  // namespace suitsim::sweep
