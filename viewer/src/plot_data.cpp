#include "plot_data.h"

#include <algorithm>
#include <cmath>

namespace suitsim::viewer {

namespace {

PlotChannel channel(PlotChannel::Kind kind, int index, std::string name) {
  PlotChannel c;
  c.kind = kind;
  c.index = index;
  c.name = std::move(name);
  return c;
}

}  // namespace

const char* channelKindName(PlotChannel::Kind kind) {
  switch (kind) {
    case PlotChannel::Kind::kJointAngle:
      return "joint angle";
    case PlotChannel::Kind::kJointTorque:
      return "joint torque";
    case PlotChannel::Kind::kBandTension:
      return "band tension";
    case PlotChannel::Kind::kContactForce:
      return "contact force";
    case PlotChannel::Kind::kRecorded:
      return "recorded by the scene";
  }
  return "";
}

std::vector<PlotChannel> availableChannels(const io::Scene& scene) {
  const Model& model = scene.model;
  std::vector<PlotChannel> out;
  using Kind = PlotChannel::Kind;
  for (int h = 0; h < model.num_hinges; ++h)
    out.push_back(channel(Kind::kJointAngle, h, model.hinge_name[h] + " angle [rad]"));
  for (int h = 0; h < model.num_hinges; ++h) {
    out.push_back(channel(Kind::kJointTorque, h, model.hinge_name[h] + " motor torque [N m]"));
  }
  for (int b = 0; b < model.num_bands; ++b) {
    out.push_back(channel(Kind::kBandTension, b, model.band_name[b] + " tension [N]"));
  }
  if (model.ground.enabled && model.numContacts() > 0) {
    // A robot's contacts grouped by the link they belong to (a foot each);
    // the contacts after them (particles of other bodies) and every contact
    // of a scene without a robot go into the total.
    if (scene.robot) {
      const io::RobotSetup& robot = *scene.robot;
      std::vector<int> links;
      for (int link : robot.contact_link) {
        if (std::find(links.begin(), links.end(), link) == links.end()) links.push_back(link);
      }
      for (int link : links) {
        PlotChannel c = channel(Kind::kContactForce, link, robot.truth.links[link].name + " ground force [N]");
        for (std::size_t k = 0; k < robot.contact_link.size() && k < robot.compiled.contact_point.size(); ++k) {
          if (robot.contact_link[k] == link) c.contacts.push_back(robot.compiled.contact_point[k]);
        }
        out.push_back(std::move(c));
      }
    }
    PlotChannel total = channel(Kind::kContactForce, -1, "total ground force [N]");
    for (int k = 0; k < model.numContacts(); ++k) total.contacts.push_back(k);
    out.push_back(std::move(total));
  }
  const Recorder recorder(model, scene.channels);
  for (std::size_t i = 0; i < recorder.columns().size(); ++i) {
    out.push_back(channel(Kind::kRecorded, static_cast<int>(i), recorder.columns()[i]));
  }
  return out;
}

void PlotHistory::push(float v) {
  latest = v;
  const int n = static_cast<int>(values.size());
  if (n == 0) return;
  if (count < n) {
    values[count++] = v;
  } else {
    values[head] = v;
    head = (head + 1) % n;
  }
}

int PlotData::capacity() const { return std::max(2, static_cast<int>(std::lround(window_s_ * rate_hz_))); }

void PlotData::setScene(const io::Scene& scene) {
  std::vector<std::string> kept;
  for (int i : selected_) kept.push_back(channels_[i].name);
  channels_ = availableChannels(scene);
  recorder_ = std::make_unique<Recorder>(scene.model, scene.channels);
  recorded_row_.assign(recorder_->columns().size(), 0.0);

  selected_.clear();
  for (const std::string& name : kept) {
    for (int i = 0; i < static_cast<int>(channels_.size()); ++i) {
      if (channels_[i].name == name) selected_.push_back(i);
    }
  }
  if (selected_.empty()) {
    // Defaults that tell the story of a suit scene: the joint the motion
    // drives first (its angle and torque), the bands, the feet.
    using Kind = PlotChannel::Kind;
    int hinge = -1;
    if (scene.robot && !scene.robot->motion.hinges().empty()) hinge = scene.robot->motion.hinges().front();
    if (hinge < 0 && scene.model.num_hinges > 0) hinge = 0;
    int bands = 0, feet = 0, recorded = 0;
    for (int i = 0; i < static_cast<int>(channels_.size()); ++i) {
      const PlotChannel& c = channels_[i];
      const bool pick = ((c.kind == Kind::kJointAngle || c.kind == Kind::kJointTorque) && c.index == hinge) ||
                        (c.kind == Kind::kBandTension && bands++ < 2) ||
                        (c.kind == Kind::kContactForce && c.index >= 0 && feet++ < 2) ||
                        (c.kind == Kind::kRecorded && scene.model.num_hinges == 0 && recorded++ < 3);
      if (pick) selected_.push_back(i);
    }
  }
  clear();
}

void PlotData::clear() {
  histories_.assign(selected_.size(), PlotHistory{});
  for (PlotHistory& h : histories_) h.values.assign(capacity(), 0.0f);
  next_sample_ = 0.0;
  latest_time_ = 0.0;
}

bool PlotData::isSelected(int channel) const {
  return std::find(selected_.begin(), selected_.end(), channel) != selected_.end();
}

void PlotData::toggle(int channel) {
  const auto it = std::find(selected_.begin(), selected_.end(), channel);
  if (it != selected_.end()) {
    histories_.erase(histories_.begin() + (it - selected_.begin()));
    selected_.erase(it);
  } else {
    selected_.push_back(channel);
    PlotHistory h;
    h.values.assign(capacity(), 0.0f);
    histories_.push_back(std::move(h));
  }
}

void PlotData::setWindow(double seconds, double rate_hz) {
  window_s_ = std::max(seconds, 0.1);
  rate_hz_ = std::max(rate_hz, 1.0);
  const double t = latest_time_;
  clear();
  next_sample_ = t;
}

double PlotData::value(const PlotChannel& c, const io::Scene& scene, const State& state, const Workspace& ws) const {
  using Kind = PlotChannel::Kind;
  switch (c.kind) {
    case Kind::kJointAngle:
      return jointAngle(scene.model, state, c.index);
    // The workspace holds the latest force evaluation: for velocity Verlet
    // that is the one at the end of the last step, at this state.
    case Kind::kJointTorque:
      return ws.hinge_motor_torque[c.index];
    case Kind::kBandTension:
      return ws.band_tension[c.index];
    case Kind::kContactForce: {
      const Vec3& n = scene.model.ground.normal;
      double sum = 0.0;
      for (int k : c.contacts) {
        const Vec3 f = groundForce(scene.model, state, k);
        sum += f[0] * n[0] + f[1] * n[1] + f[2] * n[2];
      }
      return sum;
    }
    case Kind::kRecorded:
      return recorded_row_[c.index];
  }
  return 0.0;
}

void PlotData::sample(const io::Scene& scene, const State& state, const Workspace& ws) {
  // A tiny tolerance so that samples at k / rate land on the step that reaches them.
  if (state.time + 1e-9 < next_sample_ || selected_.empty()) return;
  next_sample_ = (std::floor(state.time * rate_hz_ + 1e-6) + 1.0) / rate_hz_;
  latest_time_ = state.time;
  const bool any_recorded = std::any_of(selected_.begin(), selected_.end(),
                                        [&](int i) { return channels_[i].kind == PlotChannel::Kind::kRecorded; });
  if (any_recorded) recorder_->sample(state, &ws, recorded_row_.data());
  for (std::size_t k = 0; k < selected_.size(); ++k) {
    histories_[k].push(static_cast<float>(value(channels_[selected_[k]], scene, state, ws)));
  }
}

}  // namespace suitsim::viewer
