// The channels the live plots can show and their recent history: joint
// angle, joint (motor) torque, band tension, contact force per link, and
// every column the scene itself records. Values are sampled at a fixed rate
// of simulated time into a sliding window, so a plot reads the same in slow
// motion and at full speed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "suitsim/scene/scene.h"
#include "suitsim/recorder.h"
#include "suitsim/state.h"
#include "suitsim/step.h"

namespace suitsim::viewer {

struct PlotChannel {
  enum class Kind {
    kJointAngle,    ///< hinge `index` angle (rad)
    kJointTorque,   ///< hinge `index` motor torque k_T u + tau_o, A(6) (N m)
    kBandTension,   ///< band `index` tension f, A(25) (N)
    kContactForce,  ///< the ground's force along its normal, summed over `contacts` (N)
    kRecorded,      ///< column `index` of the scene's own <record> channels
  };
  Kind kind = Kind::kJointAngle;
  int index = -1;
  std::vector<int> contacts;
  std::string name;  ///< "<joint> angle [rad]" and the like; unique within a scene
};

/// The channels a scene offers, grouped by kind in the order above.
std::vector<PlotChannel> availableChannels(const io::Scene& scene);
/// The kind's heading in the channel menu ("joint angle", ...).
const char* channelKindName(PlotChannel::Kind kind);

/// One channel's recent values in a ring buffer.
struct PlotHistory {
  std::vector<float> values;  ///< (capacity), oldest at `head` once full
  int head = 0;
  int count = 0;
  float latest = 0.0f;
  void push(float v);
};

class PlotData {
 public:
  /// Uses the scene's channels; keeps the selected channels whose names
  /// the new scene still has (a reload keeps your plots), else picks defaults.
  void setScene(const io::Scene& scene);
  /// Empties every history (after a reset).
  void clear();
  /// Samples the selected channels when a sampling instant has passed.
  void sample(const io::Scene& scene, const State& state, const Workspace& ws);

  const std::vector<PlotChannel>& channels() const { return channels_; }
  /// Indices into channels(), in display order, and their histories.
  const std::vector<int>& selected() const { return selected_; }
  const std::vector<PlotHistory>& histories() const { return histories_; }
  bool isSelected(int channel) const;
  void toggle(int channel);

  /// Window length (s of simulated time) and sampling rate (Hz); changing
  /// either empties the histories.
  void setWindow(double seconds, double rate_hz);
  double windowSeconds() const { return window_s_; }
  double rateHz() const { return rate_hz_; }
  /// Time of the newest sample (s).
  double latestTime() const { return latest_time_; }

 private:
  double value(const PlotChannel& c, const io::Scene& scene, const State& state, const Workspace& ws) const;
  int capacity() const;

  std::vector<PlotChannel> channels_;
  std::vector<int> selected_;
  std::vector<PlotHistory> histories_;
  std::unique_ptr<Recorder> recorder_;  // the scene's own <record> channels
  std::vector<double> recorded_row_;
  double window_s_ = 5.0, rate_hz_ = 100.0;
  double next_sample_ = 0.0, latest_time_ = 0.0;
};

}  // namespace suitsim::viewer
