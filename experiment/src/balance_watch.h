// What a trial's summary.json says of the robot's balance (the DCM's and
// the CoP's margins, a fall, a foot lifting), watched sample by sample as
// the trial runs. Private to the experiment library (trials.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "suitsim/centroidal.h"
#include "suitsim/recorder.h"
#include "suitsim/scene/scene.h"
#include "suitsim/state.h"

namespace suitsim::experiment {

// What summary.json says of a robot's balance. The rule for a fall: the
// CoM's height above the ground dropped below half its height at the start
// (a robot that sits, kneels or lies down, whatever its size); the DCM's
// margin (centroidal.h) says how close it came before that. The margins
// count from the first sample at which the ground carries the robot's
// weight: a robot set down on its soles is in free fall until then, and its
// DCM (omega near 0) means nothing.
struct BalanceWatch {
  static constexpr double kFallenHeightFraction = 0.5;
  Recorder recorder;
  std::vector<double> row;
  double initial_height = 0.0;
  double min_height = std::numeric_limits<double>::infinity();
  double fell_at = -1.0;
  double min_margin = std::numeric_limits<double>::infinity();
  double min_margin_time = 0.0;
  double first_outside = -1.0;  ///< first time the DCM was outside the support polygon (s)
  // The centre of pressure against the footprint (the whole soles of the
  // feet on the ground): within kCopEdge of its edge, the contacts on the
  // far side carry nothing and the foot is about to roll over that edge.
  // 1 mm: the contacts' own tolerance for touching the ground.
  static constexpr double kCopEdge = 1e-3;
  std::vector<Eigen::Vector2d> scratch;
  SupportPolygon footprint;
  double min_cop_margin = std::numeric_limits<double>::infinity(), min_cop_time = 0.0;
  long cop_at_edge = 0;
  // A foot lifting: a body with no contact the ground pushes on drops out of
  // the footprint, whose area then falls by a whole sole's share (a third
  // or more with two feet) below the one at the start of standing. A foot
  // that tilts shrinks its projection only by 1 - cos(tilt) (2 % at 11
  // degrees), so below 0.8 of the start is a lift, not a tilt.
  static constexpr double kLiftAreaFraction = 0.8;
  // The sole must stay off for kLiftTime: the penalty contacts of a flat
  // foot chatter (a sample without force now and then, measured on H1's
  // protocol), which is no lift.
  static constexpr double kLiftTime = 0.05;
  double standing_area = 0.0, lift_start = -1.0;
  double first_lift = -1.0;
  double standing_from = -1.0;
  long samples = 0, standing = 0, outside = 0, unsupported = 0;

  static std::vector<ChannelSpec> channels() {
    std::vector<ChannelSpec> c(3);
    c[0].kind = ChannelSpec::Kind::kCom;
    c[1].kind = ChannelSpec::Kind::kBalanceMargin;
    c[2].kind = ChannelSpec::Kind::kGroundForce;
    return c;
  }
  explicit BalanceWatch(const Model& model) : recorder(model, channels()), row(recorder.columns().size()) {}

  void sample(const Model& model, const State& state) {
    recorder.sample(state, nullptr, row.data());
    const GroundModel& g = model.ground;
    const double height = g.normal[0] * row[0] + g.normal[1] * row[1] + g.normal[2] * row[2] - g.offset;
    if (samples == 0) initial_height = height;
    ++samples;
    min_height = std::min(min_height, height);
    if (fell_at < 0.0 && height < kFallenHeightFraction * initial_height) fell_at = state.time;
    const double margin = row[3];
    const double support = g.normal[0] * row[4] + g.normal[1] * row[5] + g.normal[2] * row[6];
    const double weight = -centroidal(model, state).mass *
                          (model.gravity[0] * g.normal[0] + model.gravity[1] * g.normal[1] + model.gravity[2] * g.normal[2]);
    if (standing_from < 0.0 && support >= weight) standing_from = state.time;
    if (standing_from < 0.0) return;
    ++standing;
    footprintPolygon(model, state, scratch, footprint);
    double area = 0.0;  // shoelace formula
    for (std::size_t i = 0, n = footprint.vertices.size(); i < n; ++i) {
      const Eigen::Vector2d &a = footprint.vertices[i], &b = footprint.vertices[(i + 1) % n];
      area += 0.5 * (a.x() * b.y() - b.x() * a.y());
    }
    if (standing == 1) standing_area = area;
    if (area < kLiftAreaFraction * standing_area) {
      if (lift_start < 0.0) lift_start = state.time;
      if (first_lift < 0.0 && state.time - lift_start >= kLiftTime) first_lift = lift_start;
    } else {
      lift_start = -1.0;
    }
    Vec3 cop;
    if (!footprint.empty() && centreOfPressure(model, state, &cop)) {
      const double m = polygonMargin(footprint, groundCoordinates(g, cop));
      if (m < kCopEdge) ++cop_at_edge;
      if (m < min_cop_margin) {
        min_cop_margin = m;
        min_cop_time = state.time;
      }
    }
    if (std::isnan(margin)) {
      ++unsupported;
    } else {
      if (margin < 0.0) {
        ++outside;
        if (first_outside < 0.0) first_outside = state.time;
      }
      if (margin < min_margin) {
        min_margin = margin;
        min_margin_time = state.time;
      }
    }
  }

  // What the user must hear of without opening summary.json: a trial whose
  // DCM left the support polygon rocked the robot (it could not come to
  // rest over its feet without a step, docs/balance.md), whatever the trial
  // is for: an identification trial that rocks is as unseen as any other.
  std::vector<std::string> warnings(const std::string& trial) const {
    std::vector<std::string> out;
    char message[400];
    if (fell_at >= 0.0) {
      std::snprintf(message, sizeof message,
                    "trial '%s': the robot fell at t = %.3f s (CoM below half its starting height; the simulator's "
                    "state)",
                    trial.c_str(), fell_at);
      out.push_back(message);
    }
    if (outside > 0) {
      std::snprintf(message, sizeof message,
                    "trial '%s': the DCM left the support polygon for %.1f %% of the trial (first at t = %.3f s), by "
                    "up to %.1f mm at t = %.3f s (the simulator's state; summary.json balance; docs/balance.md)",
                    trial.c_str(), 100.0 * static_cast<double>(outside) / standing, first_outside, -1e3 * min_margin,
                    min_margin_time);
      out.push_back(message);
    }
    if (cop_at_edge > 0) {
      std::snprintf(message, sizeof message,
                    "trial '%s': the centre of pressure was at the soles' edge (within %.0f mm) for %.1f %% of the "
                    "trial, closest %.1f mm at t = %.3f s: a foot about to roll over its toe or heel (the "
                    "simulator's state)",
                    trial.c_str(), 1e3 * kCopEdge, 100.0 * static_cast<double>(cop_at_edge) / standing,
                    1e3 * min_cop_margin, min_cop_time);
      out.push_back(message);
    }
    if (first_lift >= 0.0) {
      std::snprintf(message, sizeof message,
                    "trial '%s': a foot lifted off the ground at t = %.3f s (the simulator's state)", trial.c_str(),
                    first_lift);
      out.push_back(message);
    }
    return out;
  }

  nlohmann::ordered_json summary() const {
    nlohmann::ordered_json j;
    j["fell_at_s"] = fell_at >= 0.0 ? nlohmann::ordered_json(fell_at) : nlohmann::ordered_json(nullptr);
    j["fall_rule"] = "CoM height above the ground below 0.5 of its initial height";
    j["com_height_start_m"] = initial_height;
    j["com_height_min_m"] = min_height;
    j["min_balance_margin_m"] =
        std::isfinite(min_margin) ? nlohmann::ordered_json(min_margin) : nlohmann::ordered_json(nullptr);
    j["min_balance_margin_at_s"] =
        std::isfinite(min_margin) ? nlohmann::ordered_json(min_margin_time) : nlohmann::ordered_json(nullptr);
    j["standing_from_s"] = standing_from >= 0.0 ? nlohmann::ordered_json(standing_from) : nlohmann::ordered_json(nullptr);
    j["fraction_dcm_outside_support"] = standing > 0 ? static_cast<double>(outside) / standing : 0.0;
    j["fraction_without_support"] = standing > 0 ? static_cast<double>(unsupported) / standing : 0.0;
    j["min_cop_margin_m"] = std::isfinite(min_cop_margin) ? nlohmann::ordered_json(min_cop_margin) : nlohmann::ordered_json(nullptr);
    j["fraction_cop_at_edge"] = standing > 0 ? static_cast<double>(cop_at_edge) / standing : 0.0;
    j["foot_lifted_at_s"] = first_lift >= 0.0 ? nlohmann::ordered_json(first_lift) : nlohmann::ordered_json(nullptr);
    return j;
  }
};

}  // namespace suitsim::experiment
