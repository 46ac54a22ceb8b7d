// `suitsim sweep` end to end on scenes/sweeps/smoke.xml (two points, each a
// whole evaluation of H1's protocol cut to 6-s trials): what each row holds,
// the same table for one process and for two MPI processes, resuming, bad
// input, and the summary rebuilt from the table alone.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_runner.h"
#include "error_message.h"

namespace {

namespace fs = std::filesystem;
using suitsim::testing::CliResult;
using suitsim::testing::readFile;
using suitsim::testing::sourcePath;

std::vector<std::string> splitLine(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
      cur += c;
    } else if (c == ',' && !quoted) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string column(std::size_t row, const std::string& name) const {
    for (std::size_t c = 0; c < header.size(); ++c) {
      if (header[c] == name) return rows.at(row).at(c);
    }
    ADD_FAILURE() << "no column " << name;
    return {};
  }
  // The table's text with every column whose name holds "time" emptied:
  // what must be byte-identical between runs.
  std::string withoutTimes() const {
    std::string text;
    const auto line = [&](const std::vector<std::string>& fields, bool is_header) {
      for (std::size_t c = 0; c < fields.size(); ++c) {
        text += (c ? "," : "");
        if (is_header || header[c].find("time") == std::string::npos) text += fields[c];
      }
      text += "\n";
    };
    line(header, true);
    for (const auto& r : rows) line(r, false);
    return text;
  }
};

Table readTable(const fs::path& file) {
  std::istringstream in(readFile(file));
  Table t;
  std::string line;
  while (std::getline(in, line)) {
    if (t.header.empty()) {
      t.header = splitLine(line);
    } else {
      t.rows.push_back(splitLine(line));
      EXPECT_EQ(t.rows.back().size(), t.header.size()) << line;
    }
  }
  return t;
}

class Sweep : public suitsim::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    timeout_seconds_ = 900;
  }
  // `mpirun -np 2 --oversubscribe suitsim sweep ...`; -1 without MPI.
  int mpirun(const std::vector<std::string>& args) {
#ifdef SUITSIM_MPIEXEC
    std::string command = "timeout " + std::to_string(guardSeconds()) + " ";
    command.append(suitsim::testing::quoted(SUITSIM_MPIEXEC)).append(" -np 2 --oversubscribe");
    if (::getuid() == 0) command.append(" --allow-run-as-root");  // CI containers run as root
#ifdef SUITSIM_MPI_WITHOUT_LEAK_CHECK
    command.append(" -x ASAN_OPTIONS=detect_leaks=0");  // tests/cli/CMakeLists.txt says why
#endif
    command.append(" ").append(suitsim::testing::quoted(SUITSIM_BINARY));
    for (const std::string& a : args) command.append(" ").append(suitsim::testing::quoted(a));
    command.append(" >").append(suitsim::testing::quoted((dir_ / "mpi.out").string()));
    command.append(" 2>").append(suitsim::testing::quoted((dir_ / "mpi.err").string()));
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + status;
#else
    (void)args;
    return -1;
#endif
  }
};

TEST_F(Sweep, SmokeRowsAreTheSameForOneProcessAndTwoAndResume) {
  const std::string spec = sourcePath("scenes/sweeps/smoke.xml");
  const fs::path one = dir_ / "one";
  const CliResult r = run({"sweep", spec, "--out", one.string(), "--threads", "1", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Table t = readTable(one / "results.csv");
  ASSERT_EQ(t.rows.size(), 2u);
  // Each point's values went into its scene: the truth the scoring read back
  // is the parameter's value (the modified suit at twice it).
  for (std::size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE("point " + std::to_string(i));
    EXPECT_EQ(t.column(i, "status"), "ok");
    const double k = std::stod(t.column(i, "k_A"));
    EXPECT_EQ(std::stod(t.column(i, "normal.A.true_stiffness")), k);
    EXPECT_EQ(std::stod(t.column(i, "modified.A.true_stiffness")), 2.0 * k);
    // A real estimate, near the truth (6-s trials: within 10 %).
    const std::string e = t.column(i, "normal.A.approach_a.relative_error");
    ASSERT_FALSE(e.empty());
    EXPECT_LT(std::abs(std::stod(e)), 0.10);
    EXPECT_TRUE(fs::exists(one / "points" / t.column(i, "id") / "report.json"));
    EXPECT_TRUE(fs::exists(one / "points" / t.column(i, "id") / "scene.xml"));
    EXPECT_FALSE(fs::exists(one / "points" / t.column(i, "id") / "trials"));  // streams removed
  }
  EXPECT_NE(t.column(0, "k_A"), t.column(1, "k_A"));
  EXPECT_NE(t.column(0, "normal.A.approach_a.stiffness"), t.column(1, "normal.A.approach_a.stiffness"));
  const std::string summary = readFile(one / "summary.md");
  EXPECT_NE(summary.find("2 points, 2 evaluated"), std::string::npos) << summary;
  EXPECT_NE(summary.find("Against `k_A`"), std::string::npos);

  // Two MPI processes (or, without MPI, two threads) write the same table.
  const fs::path two = dir_ / "two";
  const int code = mpirun({"sweep", spec, "--out", two.string(), "--quiet"});
  if (code == -1) {
    std::printf("built without MPI: comparing with two threads instead\n");
    ASSERT_EQ(run({"sweep", spec, "--out", two.string(), "--threads", "2", "--quiet"}).exit_code, 0);
  } else {
    ASSERT_EQ(code, 0) << readFile(dir_ / "mpi.err");
  }
  EXPECT_EQ(readTable(two / "results.csv").withoutTimes(), t.withoutTimes());

  // Resuming: a lost row is run again, and only that one.
  std::string text = readFile(two / "results.csv");
  text.erase(text.rfind('\n', text.size() - 2) + 1);  // drop the last row
  std::ofstream(two / "results.csv", std::ios::trunc) << text;
  const CliResult again = run({"sweep", spec, "--out", two.string(), "--threads", "1"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("1 points run in"), std::string::npos) << again.err;
  EXPECT_EQ(readTable(two / "results.csv").withoutTimes(), t.withoutTimes());
  // Nothing left to run: a second resume runs nothing.
  const CliResult done = run({"sweep", spec, "--out", two.string(), "--threads", "1"});
  ASSERT_EQ(done.exit_code, 0) << done.err;
  EXPECT_NE(done.err.find("0 points run in"), std::string::npos) << done.err;

  // The summary is rebuilt from the table alone.
  fs::remove(one / "summary.md");
  const CliResult s = run({"sweep-summary", one.string()});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(readFile(one / "summary.md"), summary);
}

TEST_F(Sweep, BadInputNamesTheLineAndWritesNothing) {
  const auto write = [&](const std::string& body) {
    const fs::path p = dir_ / "bad.xml";
    std::ofstream(p) << "<?xml version=\"1.0\"?>\n<sweep name=\"bad\" scene=\"" << sourcePath("scenes/h1_protocol.xml")
                     << "\">\n"
                     << body << "</sweep>\n";
    return p.string();
  };
  const fs::path out = dir_ / "out";
  // The error line (a progress line may come first).
  const auto error = [](const std::string& err) {
    const std::size_t at = err.find("error: ");
    return at == std::string::npos ? err : err.substr(at, err.find('\n', at) - at);
  };
  // An attribute path that names nothing.
  std::string spec = write("  <parameter name=\"k\" values=\"1 2\" attribute=\"robot/suit/band[@group='Z']@stiffness\"/>\n");
  CliResult r = run({"sweep", spec, "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(suitsim::testing::namesAllOnOneLine(error(r.err), {spec + ":3:", "names no element"}))
      << r.err;
  EXPECT_FALSE(fs::exists(out));
  // A value the scene refuses: the sweep's line, the value and the scene's own message.
  spec = write("  <parameter name=\"dt\" values=\"2e-4 -1\" attribute=\"simulation@dt\"/>\n");
  r = run({"sweep", spec, "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(suitsim::testing::namesAllOnOneLine(error(r.err),
                                                  {spec + ":3:", "'dt' = '-1'", "<simulation> attribute 'dt' must be > 0",
                                                   "h1_protocol.xml with the point's values"}))
      << r.err;
  EXPECT_FALSE(fs::exists(out));
  // An attribute the scene format does not have.
  spec = write("  <parameter name=\"x\" values=\"1\" attribute=\"simulation@no_such_attribute\"/>\n");
  r = run({"sweep", spec, "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(suitsim::testing::namesAllOnOneLine(error(r.err),
                                                  {spec + ":2:", "no_such_attribute"}))
      << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// A table records what made it (results.origin.json: the points' values and
// seeds, the base scene's hash): a resume by another grid under the same
// parameter names (4 values, then 2), or after the base scene changed, is
// refused with exit 2 and what differs, and the table stays as it was. Rows
// were matched by point index alone: the 2-value sweep ran nothing, exited
// 0 and its summary mixed the two grids.
TEST_F(Sweep, ResumeByAnotherGridOrSceneIsRefused) {
  // The tiny experiment: a point is a whole evaluation in well under a second.
  const fs::path scene = dir_ / "tiny.xml";
  fs::copy_file(sourcePath("tests/cli/data/tiny_experiment.xml"), scene);
  const auto sweepFile = [&](const std::string& name, const std::string& values) {
    const fs::path file = dir_ / name;
    std::ofstream(file) << "<sweep name=\"k\" scene=\"tiny.xml\">\n"
                           "  <parameter name=\"k\" values=\"" << values
                        << "\" attribute=\"robot/suit/band@stiffness\"/>\n</sweep>\n";
    return file.string();
  };
  const std::string four = sweepFile("four.xml", "60 80 100 120"), two = sweepFile("two.xml", "70 90");
  const fs::path out = dir_ / "out";
  const CliResult first = run({"sweep", four, "--out", out.string(), "--threads", "2", "--no-plots", "--quiet"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string table = readFile(out / "results.csv");

  const CliResult other = run({"sweep", two, "--out", out.string(), "--no-plots", "--quiet"});
  EXPECT_EQ(other.exit_code, 2) << other.err;
  EXPECT_NE(other.err.find((out / "results.csv").string() + ": another grid made it: 4 points"), std::string::npos)
      << other.err;
  EXPECT_NE(other.err.find("this sweep has 2"), std::string::npos) << other.err;
  EXPECT_EQ(readFile(out / "results.csv"), table);

  // The same number of points, other values: the first that differs is named.
  const std::string shifted = sweepFile("shifted.xml", "60 80 110 120");
  const CliResult moved = run({"sweep", shifted, "--out", out.string(), "--no-plots", "--quiet"});
  EXPECT_EQ(moved.exit_code, 2) << moved.err;
  EXPECT_NE(moved.err.find("its point p0002 (k=100) is p0002 (k=110)"), std::string::npos) << moved.err;

  // The same grid on a changed base scene.
  std::ofstream(scene, std::ios::app) << "<!-- changed -->\n";
  const CliResult changed = run({"sweep", four, "--out", out.string(), "--no-plots", "--quiet"});
  EXPECT_EQ(changed.exit_code, 2) << changed.err;
  EXPECT_NE(changed.err.find("the base scene has changed"), std::string::npos) << changed.err;
  EXPECT_EQ(readFile(out / "results.csv"), table);

  // The scene as it was: the same sweep resumes, with nothing left to run.
  fs::copy_file(sourcePath("tests/cli/data/tiny_experiment.xml"), scene, fs::copy_options::overwrite_existing);
  const CliResult again = run({"sweep", four, "--out", out.string(), "--no-plots"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("0 points run in"), std::string::npos) << again.err;
}

// Ctrl-C while the second point runs: the sweep stops with exit 130, the
// table holds the finished row and nothing half written (no partial row, no
// temporary table, no partial stream), and running the same command again
// runs only the point that was cut off.
TEST_F(Sweep, CtrlCKeepsTheFinishedRowsAndResumes) {
  const std::string spec = sourcePath("scenes/sweeps/smoke.xml");
  const fs::path out = dir_ / "interrupted";
  const fs::path table = out / "results.csv";
  // A shell starts the sweep, waits for the first row, then sends SIGINT as
  // Ctrl-C would; the sweep's exit code goes to a file.
  const fs::path code_file = dir_ / "code";
  std::string script = suitsim::testing::quoted(SUITSIM_BINARY) + " sweep " + suitsim::testing::quoted(spec) +
                       " --out " + suitsim::testing::quoted(out.string()) + " --threads 1 --quiet --no-plots 2>" +
                       suitsim::testing::quoted((dir_ / "sweep.err").string()) + " & pid=$!; " +
                       "while [ \"$(cat " + suitsim::testing::quoted(table.string()) +
                       " 2>/dev/null | wc -l)\" -lt 2 ] && kill -0 $pid 2>/dev/null; do sleep 0.1; done; " +
                       "kill -INT $pid; wait $pid; echo $? > " + suitsim::testing::quoted(code_file.string());
  const std::string command = "timeout " + std::to_string(guardSeconds()) + " bash -c " + suitsim::testing::quoted(script);
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(readFile(code_file), "130\n") << readFile(dir_ / "sweep.err");
  const Table cut = readTable(table);
  ASSERT_EQ(cut.rows.size(), 1u);
  EXPECT_EQ(cut.column(0, "status"), "ok");
  for (const auto& entry : fs::recursive_directory_iterator(out)) {
    const std::string name = entry.path().filename().string();
    EXPECT_EQ(name.find("partial"), std::string::npos) << entry.path();
    EXPECT_EQ(name.find(".tmp"), std::string::npos) << entry.path();
  }
  const CliResult again = run({"sweep", spec, "--out", out.string(), "--threads", "1", "--no-plots"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("1 points run in"), std::string::npos) << again.err;
  const Table whole = readTable(table);
  ASSERT_EQ(whole.rows.size(), 2u);
  EXPECT_EQ(whole.rows[0], cut.rows[0]);  // the kept row is not run again
  EXPECT_EQ(whole.column(1, "status"), "ok");
}

}  // namespace
