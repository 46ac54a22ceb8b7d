// The a-priori ("CAD") parameter set the evaluator starts from (<apriori>):
// by default the URDF as it is, with no friction, no torque offset, the
// true motor constants and rotor inertias; the element says what it keeps
// and how it departs (motor-constant scale, centre-of-mass shifts).
#include "robot_reading.h"

#include <cmath>
#include <random>

#include <Eigen/Core>
#include <Eigen/Eigenvalues>

#include "suitsim/core/random.h"

namespace suitsim::io {

namespace {

/// Principal moments of a link's inertia about its centre of mass that a
/// rigid body can have: positive, and each at most the sum of the other two.
bool physicallyConsistent(const std::array<double, 6>& i) {
  Eigen::Matrix3d I;
  I << i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2];
  const Eigen::Vector3d l = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(I, Eigen::EigenvaluesOnly).eigenvalues();
  return l(0) > 0.0 && l(0) + l(1) >= l(2);
}

/// Kang et al. (2023, section 5.2.1) draw the initial model's inertial
/// parameters uniformly around the CAD ones. Ours: the mass m, each first
/// moment m c_k and each entry of the inertia about the centre of mass
/// times its own factor uniform in [1 - s, 1 + s] (an interval around the
/// CAD value whatever its sign); the inertia is drawn again, up to 1000
/// times, until it is one a rigid body can have (the self-collision check
/// takes capsule radii from it).
template <class Stream>
void spreadInertial(LinkInertial& inertial, double spread, Stream& rng) {
  const auto factor = [&] { return 1.0 + spread * (2.0 * rng.uniform() - 1.0); };
  const double mass = inertial.mass * factor();
  for (int k = 0; k < 3; ++k) inertial.com[k] = inertial.mass * inertial.com[k] * factor() / mass;
  inertial.mass = mass;
  const std::array<double, 6> cad = inertial.inertia;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    for (int k = 0; k < 6; ++k) inertial.inertia[k] = cad[k] * factor();
    if (physicallyConsistent(inertial.inertia)) return;
  }
  inertial.inertia = cad;  // no consistent draw (a degenerate CAD inertia): keep the CAD one
}

}  // namespace

void readApriori(RobotReading& in) {
  const std::string& scene_path = in.scene_path;
  const tinyxml2::XMLElement* element = in.element;
  SceneRobot& setup = in.setup;
  // The a-priori ("CAD") set: by default the URDF as it is (no payloads), no
  // friction, no torque offset, the true motor constants, and the true
  // armature (rotor inertia and gear ratio are datasheet values).
  RobotDescription& apriori = setup.apriori;
  apriori = in.without_payloads;
  bool keep_payloads = false, keep_friction = false, keep_offset = false, keep_armature = true;
  double kt_scale = 1.0, com_shift = 0.0, inertial_spread = 0.0, magnet_coefficient = 0.0, gear_stiffness_per_effort = 0.0;
  int seed = 1;
  std::vector<char> known_gain(apriori.joints.size(), 0);
  if (const tinyxml2::XMLElement* a = element->FirstChildElement("apriori")) {
    const ElementReader ar = checkedReader(scene_path, a);
    keep_payloads = ar.boolean("payloads", false);
    keep_friction = ar.boolean("friction", false);
    keep_offset = ar.boolean("torque_offset", false);
    keep_armature = ar.boolean("armature", true);
    kt_scale = ar.positive("motor_constant_scale", ar.number("motor_constant_scale", 1.0));
    com_shift = ar.nonNegative("com_shift", ar.number("com_shift", 0.0));
    inertial_spread = ar.nonNegative("inertial_spread", ar.number("inertial_spread", 0.0));
    if (!(inertial_spread < 1.0)) {
      ar.failAttribute("inertial_spread", "must be below 1 (a share of each inertial parameter; 1 would allow a zero mass)");
    }
    seed = ar.integer("seed", 1);
    // Motor constants calibrated on a bench (a joint driven against a
    // torque meter): the a-priori set has the true one, taken as exact by
    // the identification. On a fixed base one sets the scale of the whole
    // identification (docs/method.md, "Fixed base").
    if (ar.has("known_motor_constants")) {
      const std::vector<std::string> names = words(ar.text("known_motor_constants"));
      if (names.empty()) ar.failAttribute("known_motor_constants", "lists no joint");
      for (const std::string& name : names) {
        const int j = movableJoint(ar, "known_motor_constants", apriori, name);
        if (!apriori.joints[static_cast<std::size_t>(j)].mimic.joint.empty()) {
          ar.failAttribute("known_motor_constants", "names joint '" + name + "', a <mimic> follower, which has no motor");
        }
        known_gain[static_cast<std::size_t>(j)] = 1;
      }
    }
    // The straps at the bands' ends from a tensile test of them: what an
    // evaluation that reads the band behind them uses.
    setup.apriori_attachment_stiffness =
        ar.nonNegative("attachment_stiffness", ar.number("attachment_stiffness", 0.0));
    // The magnets' temperature coefficient from the motors' datasheets: what
    // an evaluation that corrects for the windings' heating reads.
    magnet_coefficient = ar.number("magnet_coefficient", 0.0);
    if (!(std::abs(magnet_coefficient) < 0.01)) {
      ar.failAttribute("magnet_coefficient", "must lie within +-0.01 1/K (NdFeB magnets: about -0.0012)");
    }
    // The gears' torsional stiffness from their datasheets, per N m of a
    // joint's effort limit (N m/rad per N m): what the twist is read with.
    gear_stiffness_per_effort =
        ar.nonNegative("gear_stiffness_per_effort", ar.number("gear_stiffness_per_effort", 0.0));
    if (gear_stiffness_per_effort > 0.0) {
      for (const RobotJoint& j : apriori.joints) {
        if (!j.mimic.joint.empty() || j.type == JointType::kFixed) continue;
        if (!std::isfinite(j.effort_limit) || !(j.effort_limit > 0.0)) {
          ar.failAttribute("gear_stiffness_per_effort", "needs every motorised joint's effort limit; joint '" +
                                                            j.name + "' has none (URDF <limit effort>)");
        }
      }
    }
  }
  if (keep_payloads) apriori = in.with_payloads;
  BasicRandomStream<std::mt19937> rng(static_cast<std::mt19937::result_type>(seed));
  const auto normal = [](BasicRandomStream<std::mt19937>& stream) { return stream.normal(); };
  for (std::size_t k = 0; k < apriori.joints.size(); ++k) {
    RobotJoint& j = apriori.joints[k];
    if (!keep_friction) {
      j.actuation.viscous = j.actuation.coulomb = j.actuation.static_max = j.actuation.stribeck_velocity = 0.0;
    }
    if (!keep_offset) j.actuation.torque_offset = 0.0;
    if (!keep_armature) j.actuation.armature = 0.0;
    if (known_gain[k]) j.actuation.motor_constant_known = true;  // the truth's, unscaled
    else j.actuation.motor_constant *= kt_scale;
    // The gears' datasheet stiffness, never a unit's: what an evaluation
    // that compensates the twist reads (the a-priori set is never
    // simulated, so its gears are otherwise rigid).
    if (gear_stiffness_per_effort > 0.0 && j.mimic.joint.empty() && j.type != JointType::kFixed) {
      j.actuation.gear_stiffness = gear_stiffness_per_effort * j.effort_limit;
    }
    // The a-priori set has no windings (km 0: no heating in any model the
    // evaluator builds); the coefficient is the datasheet's, never the truth's.
    j.actuation.km = 0.0;
    j.actuation.magnet_coefficient = magnet_coefficient;
  }
  for (RobotLink& l : apriori.links) {
    if (com_shift <= 0.0 || l.inertial.mass <= 0.0) continue;
    // One draw per statement: the order of a call's arguments is the
    // compiler's to choose (GCC takes the last first, as here; clang the first).
    const double dz = normal(rng), dy = normal(rng), dx = normal(rng);
    Eigen::Vector3d d(dx, dy, dz);
    d = com_shift * d.normalized();
    for (int k = 0; k < 3; ++k) l.inertial.com[k] += d[k];
  }
  if (inertial_spread > 0.0) {
    for (RobotLink& l : apriori.links) {
      if (l.inertial.mass > 0.0) spreadInertial(l.inertial, inertial_spread, rng);
    }
  }

}

}  // namespace suitsim::io
