#include "suitsim/report/truth.h"


#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "suitsim/core/number_text.h"
#include "suitsim/scene/scene.h"

namespace suitsim::report {

Truth loadTruth(const std::string& scene_path, const io::Realism* realism) {
  Truth truth;
  std::vector<io::TrialSpec> trials = io::listTrials(scene_path);
  if (trials.empty()) trials.push_back(io::TrialSpec{});
  for (const io::TrialSpec& t : trials) {
    io::SceneOverrides overrides;
    if (realism) overrides.realism = *realism;
    const io::SceneDescription scene = io::readScene(scene_path, t.name, overrides);
    if (&t == &trials.front()) truth.realism = scene.realism;
    if (!scene.robot) continue;
    if (!(truth.torque_noise.rate > 0.0)) truth.torque_noise = torqueNoise(scene);
    // A band's natural_length="auto" is its length at the initial pose as
    // compiled into particles (what the simulation used): only then is the
    // trial compiled.
    const bool auto_length = std::any_of(scene.robot->bands.begin(), scene.robot->bands.end(),
                                         [](const RobotBand& b) { return b.natural_length < 0.0; });
    truth.bands[t.name] = auto_length ? io::compileScene(scene).robot->bands : scene.robot->bands;
    if (const auto& device = scene.robot->exoskeleton) {
      auto& settings = truth.device_settings[device->name];
      for (std::size_t k = 1; k < device->segments.size(); ++k) {
        settings[exoPartName(*device, static_cast<int>(k))] = device->segments[k].impedance;
      }
    }
    if (t.purpose == "identification" || truth.total_mass == 0.0) truth.total_mass = scene.robot->truth.totalMass();
  }
  return truth;
}

namespace {

// The columns of a truth.csv whose labels `want` picks, with the time:
// false when the file is missing or no column is picked.
template <class Want>
bool readTruthColumns(const std::filesystem::path& path, Want want, std::vector<double>* time,
                      std::vector<std::string>* labels, std::vector<std::vector<double>>* columns) {
  std::ifstream f(path);
  if (!f) return false;
  std::string line;
  int line_no = 0, time_col = -1;
  std::vector<int> cols;
  while (std::getline(f, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string_view> fields;
    for (std::size_t a = 0;;) {
      const std::size_t b = line.find(',', a);
      fields.emplace_back(line.data() + a, (b == std::string::npos ? line.size() : b) - a);
      if (b == std::string::npos) break;
      a = b + 1;
    }
    if (time_col < 0) {  // the header row
      for (std::size_t c = 0; c < fields.size(); ++c) {
        if (fields[c] == "time[s]") time_col = static_cast<int>(c);
        else if (want(fields[c])) {
          cols.push_back(static_cast<int>(c));
          labels->emplace_back(fields[c]);
        }
      }
      if (time_col < 0) throw std::runtime_error(path.string() + ":" + std::to_string(line_no) + ": no time[s] column");
      if (cols.empty()) return false;
      columns->assign(cols.size(), {});
      continue;
    }
    const auto number = [&](int c) {
      if (c >= static_cast<int>(fields.size())) {
        throw std::runtime_error(path.string() + ":" + std::to_string(line_no) + ": too few fields");
      }
      const std::string_view v = fields[c];
      if (v == "nan" || v == "-nan") return std::nan("");
      double x = 0.0;
      const auto [end, ec] = fromChars(v.data(), v.data() + v.size(), x);
      if (ec != std::errc() || end != v.data() + v.size()) {
        throw std::runtime_error(path.string() + ":" + std::to_string(line_no) + ": not a number: '" + std::string(v) +
                                 "'");
      }
      return x;
    };
    time->push_back(number(time_col));
    for (std::size_t k = 0; k < cols.size(); ++k) (*columns)[k].push_back(number(cols[k]));
  }
  return time_col >= 0 && !cols.empty();
}

std::filesystem::path truthPath(const std::string& streams_dir, const std::string& trial) {
  return trial.empty() ? std::filesystem::path(streams_dir) / "truth.csv"
                       : std::filesystem::path(streams_dir) / trial / "truth.csv";
}

}  // namespace

void loadBalanceTruth(const std::string& streams_dir, const std::vector<std::string>& trials, Truth& truth) {
  for (const std::string& trial : trials) {
    Truth::BalanceSeries series;
    std::vector<std::string> labels;
    std::vector<std::vector<double>> columns;
    if (!readTruthColumns(truthPath(streams_dir, trial), [](std::string_view l) { return l == "balance_margin[m]"; },
                          &series.time, &labels, &columns)) {
      continue;
    }
    series.margin = std::move(columns.front());
    truth.balance[trial] = std::move(series);
  }
}

void loadStrapTruth(const std::string& streams_dir, const std::vector<std::string>& trials, Truth& truth) {
  static constexpr std::string_view kSuffix = ".strap_torque[N*m]";
  for (const std::string& trial : trials) {
    Truth::StrapSeries series;
    std::vector<std::string> labels;
    std::vector<std::vector<double>> columns;
    const auto want = [](std::string_view l) { return l.size() > kSuffix.size() && l.substr(l.size() - kSuffix.size()) == kSuffix; };
    if (!readTruthColumns(truthPath(streams_dir, trial), want, &series.time, &labels, &columns)) continue;
    for (std::size_t k = 0; k < labels.size(); ++k) {
      series.torque[labels[k].substr(0, labels[k].size() - kSuffix.size())] = std::move(columns[k]);
    }
    truth.strap_torque[trial] = std::move(series);
  }
}

}  // namespace suitsim::report
