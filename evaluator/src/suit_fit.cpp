#include "suitsim/eval/suit_fit.h"

#include "method_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace suitsim::eval {

namespace {

// A motion's fit joints must move in this share of its samples.
constexpr double kMinMovingShare = 0.05;
// Joints driving under this share of the best joint's band length change are
// left out of a derived choice.
constexpr double kFitJointShare = 0.5;
// A(26) per motion leaves out bands whose geometric effect on the fit joints
// is under this share of the strongest band's (see fitSuit).
constexpr double kRelevance = 0.25;
// A band must be taut in this share of the samples its twin is taut in for
// a solution to be preferred (BandIdentificationOptions::twin_taut_ratio).
constexpr double kTwinTautRatio = 0.25;

}  // namespace

FitJoints chooseFitJoints(const RigidModel& model, const std::vector<WireGeometry>& wires, const SupportCurves& c,
                          const std::vector<std::string>& declared) {
  FitJoints out;
  out.motion = c.motion;
  const WireSamples all = sampleWires(model, wires, c.angle, model.joint_name);
  const Eigen::Index n = c.angle.rows();
  // Per joint: the largest moment arm of any band about it (A(22)), its range
  // over the motion, and the band length change it can drive.
  std::vector<double> arm(model.num_joints, 0.0), range(model.num_joints, 0.0), drive(model.num_joints, 0.0);
  std::vector<int> moving(model.num_joints, 0);
  for (int j = 0; j < model.num_joints; ++j) {
    for (const Eigen::MatrixXd& J : all.jacobian) arm[j] = std::max(arm[j], J.col(j).cwiseAbs().maxCoeff());
    range[j] = c.angle.col(j).maxCoeff() - c.angle.col(j).minCoeff();
    drive[j] = arm[j] * range[j];
    moving[j] = static_cast<int>((c.velocity.col(j).array().abs() > kMovingSpeed).count());
  }
  auto figures = [&](int j) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "%s (range %.3g rad, largest moment arm %.3g m, band length change %.3g m, moves in %d of %ld samples)",
                  model.joint_name[j].c_str(), range[j], arm[j], drive[j], moving[j], static_cast<long>(n));
    return std::string(buf);
  };
  if (!declared.empty()) {
    double best = -1.0;
    for (const std::string& name : declared) {
      const int j = jointIndex(model, name);
      if (j < 0) throw std::invalid_argument("motion '" + c.motion + "': fit joint '" + name + "' is no movable joint");
      out.joints.push_back(name);
      if (drive[j] > best) {
        best = drive[j];
        out.figure_joint = name;
      }
    }
    out.reason = "declared in the scene";
    return out;
  }
  int best = -1;
  for (int j = 0; j < model.num_joints; ++j) {
    if (moving[j] < kMinMovingShare * static_cast<double>(n)) continue;
    if (best < 0 || drive[j] > drive[best]) best = j;
  }
  if (best < 0 || drive[best] <= 0.0) {
    throw std::invalid_argument("motion '" + c.motion + "' with suit '" + c.suit +
                                "': no joint both moves and stretches a band; name the fit joints in the scene "
                                "(<motion fit_joints=...>)");
  }
  std::string left_out;
  for (int j = 0; j < model.num_joints; ++j) {
    if (moving[j] < kMinMovingShare * static_cast<double>(n) || drive[j] <= 0.0) continue;
    if (drive[j] >= kFitJointShare * drive[best]) {
      out.joints.push_back(model.joint_name[j]);
    } else if (drive[j] >= 0.1 * drive[best]) {
      left_out += (left_out.empty() ? "" : "; ") + figures(j);
    }
  }
  out.figure_joint = model.joint_name[best];
  out.reason = "derived: the joints that drive at least half the largest band length change and move; best " +
               figures(best);
  if (!left_out.empty()) out.reason += "; left out (under half): " + left_out;
  return out;
}

SuitFit fitSuit(const RigidModel& model, const std::string& suit, const std::vector<BandRoute>& routes,
                const std::vector<const SupportCurves*>& curves, const std::vector<FitJoints>& fit_joints,
                BandModel band_model) {
  SuitFit out;
  out.band_model = band_model;
  out.suit = suit;
  out.routes = routes;
  out.fit_joints = fit_joints;
  if (curves.empty() || curves.size() != fit_joints.size()) {
    throw std::invalid_argument("fitSuit: one set of fit joints per motion is needed");
  }
  // Stiffness groups as the suit declares them (A §5.4: symmetric bands
  // share k), in the order of their first band.
  BandIdentificationOptions bopt;
  for (const BandRoute& b : routes) {
    auto it = std::find_if(bopt.groups.begin(), bopt.groups.end(), [&](const StiffnessGroup& g) { return g.name == b.group; });
    if (it == bopt.groups.end()) {
      bopt.groups.push_back({b.group, {b.name}});
      out.group_order.push_back(b.group);
    } else {
      it->bands.push_back(b.name);
    }
  }
  bopt.relevance_threshold = kRelevance;
  bopt.twin_taut_ratio = kTwinTautRatio;
  const std::vector<WireGeometry> wires = makeWireGeometries(model, routes);
  // The viscoelastic model needs every band's length at every sample of a
  // motion, not only at the fit rows: the arm's stretch has a history.
  std::vector<Eigen::MatrixXd> motion_lengths;
  if (hasMaxwellArms(band_model)) {
    for (const SupportCurves* c : curves) {
      motion_lengths.push_back(sampleWires(model, wires, c->angle, {model.joint_name.front()}).length);
    }
  }

  const SuitFitSetup setup{model, wires, curves, fit_joints, bopt, band_model, motion_lengths};
  for (SupportMethod m : kSupportMethods) out.methods.push_back(fitMethod(setup, m));
  return out;
}

}  // namespace suitsim::eval
