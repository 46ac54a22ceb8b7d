#include "suitsim/report/truth.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "suitsim/io/scene.h"

namespace suitsim::report {

Truth loadTruth(const std::string& scene_path, const io::Realism* realism) {
  Truth truth;
  std::vector<io::TrialSpec> trials = io::listTrials(scene_path);
  if (trials.empty()) trials.push_back(io::TrialSpec{});
  for (const io::TrialSpec& t : trials) {
    const io::Scene scene = io::loadScene(scene_path, t.name, realism);
    if (&t == &trials.front()) truth.realism = scene.realism;
    if (!scene.robot) continue;
    truth.bands[t.name] = scene.robot->bands;
    if (t.purpose == "identification" || truth.total_mass == 0.0) truth.total_mass = scene.robot->truth.totalMass();
  }
  return truth;
}

void loadBalanceTruth(const std::string& streams_dir, const std::vector<std::string>& trials, Truth& truth) {
  for (const std::string& trial : trials) {
    const std::filesystem::path path = trial.empty() ? std::filesystem::path(streams_dir) / "truth.csv"
                                                     : std::filesystem::path(streams_dir) / trial / "truth.csv";
    std::ifstream f(path);
    if (!f) continue;
    std::string line;
    int line_no = 0, time_col = -1, margin_col = -1;
    Truth::BalanceSeries series;
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
          if (fields[c] == "balance_margin[m]") margin_col = static_cast<int>(c);
        }
        if (time_col < 0) throw std::runtime_error(path.string() + ":" + std::to_string(line_no) + ": no time[s] column");
        if (margin_col < 0) break;
        continue;
      }
      const auto number = [&](int c) {
        if (c >= static_cast<int>(fields.size())) {
          throw std::runtime_error(path.string() + ":" + std::to_string(line_no) + ": too few fields");
        }
        const std::string_view v = fields[c];
        if (v == "nan" || v == "-nan") return std::nan("");
        double x = 0.0;
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
        if (ec != std::errc() || end != v.data() + v.size()) {
          throw std::runtime_error(path.string() + ":" + std::to_string(line_no) + ": not a number: '" +
                                   std::string(v) + "'");
        }
        return x;
      };
      series.time.push_back(number(time_col));
      series.margin.push_back(number(margin_col));
    }
    if (margin_col >= 0) truth.balance[trial] = std::move(series);
  }
}

}  // namespace suitsim::report
