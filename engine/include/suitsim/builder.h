// Building a Model: the one place where scenes, tests, benchmarks and the
// viewer make particles, springs and the generated bodies (cloth, block).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "suitsim/model.h"
#include "suitsim/robot/robot.h"

namespace suitsim {

/// Thrown by ModelBuilder for a non-physical or inconsistent request. The
/// scene reader checks everything first and reports file and line; this is
/// the last line of defence for programmatic use.
class ModelError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct ParticleSpec {
  std::string name;
  Vec3 position{0.0, 0.0, 0.0};  ///< (m)
  Vec3 velocity{0.0, 0.0, 0.0};  ///< (m/s)
  double mass = 1.0;             ///< (kg), > 0
  bool fixed = false;            ///< held in place
  bool contact = true;           ///< touches the ground (if the scene has one)
  Vec3 force{0.0, 0.0, 0.0};     ///< constant external force (N)
};

struct SpringSpec {
  int a = -1;
  int b = -1;
  double stiffness = 0.0;    ///< (N/m), > 0
  double damping = 0.0;      ///< (N s/m), >= 0
  double rest_length = -1.0;  ///< (m); negative means "the initial distance"
};

/// A rectangular sheet of nu x nv particles spanned by unit directions u, v,
/// with structural (neighbour), shear (diagonal) and bending (two apart)
/// springs, as in a mass-spring cloth.
struct ClothSpec {
  std::string name;
  Vec3 origin{0.0, 0.0, 0.0};
  Vec3 u{1.0, 0.0, 0.0};
  Vec3 v{0.0, 1.0, 0.0};
  int nu = 2, nv = 2;
  double spacing = 0.1;       ///< (m)
  double mass = 1.0;          ///< total (kg)
  double stiffness = 100.0;   ///< structural and shear springs (N/m)
  double bend_stiffness = 10.0;  ///< bending springs (N/m); 0 for none
  double damping = 0.0;       ///< (N s/m)
  enum class Pin { kNone, kTopEdge, kTopCorners } pin = Pin::kNone;  ///< "top" is row nv-1
  bool contact = true;
};

/// A solid block of nx x ny x nz particles on a cubic lattice, every particle
/// tied to its 26 neighbours (faces, edges, corners): an elastic solid.
struct BlockSpec {
  std::string name;
  Vec3 origin{0.0, 0.0, 0.0};  ///< corner particle (m)
  int nx = 2, ny = 2, nz = 2;
  double spacing = 0.1;        ///< (m)
  double mass = 1.0;           ///< total (kg)
  double stiffness = 1e4;      ///< (N/m)
  double damping = 0.0;        ///< (N s/m)
  Vec3 velocity{0.0, 0.0, 0.0};
  bool contact = true;
};

/// Springs addCloth and addBlock make for a spec, counted without building
/// anything (in double: a count past int's range must not wrap). The scene
/// reader uses them to estimate a lattice's memory before building it.
double clothSpringCount(const ClothSpec& spec);
double blockSpringCount(const BlockSpec& spec);

/// The size of a model, for modelPeakBytes.
struct ModelSize {
  double particles = 0.0;
  double springs = 0.0;
  double contacts = 0.0;     ///< ground contact points (at most one a particle)
  double name_length = 0.0;  ///< the longest particle name's characters
};

/// Heap bytes a model of this size takes at its peak: while build() lays
/// out the springs (the builder's lists, build()'s name check, the Model
/// and the layout's temporaries are all alive), or while it runs (the Model,
/// a State and a Workspace), whichever is larger. Counted from the sizes of
/// the structures that hold them (builder.cpp), so it follows them when
/// they change; vectors filled one element at a time are counted at the
/// capacity they grow to. Hinges, bodies and bands are left out: a robot's
/// are a few hundred, a lattice's particles and springs are millions.
double modelPeakBytes(const ModelSize& size);

/// A rotation-plane hinge between two four-particle bodies (see Model): each
/// point is given by its affine weights on its body's particles.
struct HingeSpec {
  std::string name;
  int parent_body = -1;
  int child_body = -1;
  std::array<double, 4> centre_parent{}, centre_child{};
  std::array<double, 4> axis_point{}, parent_arm{};
  std::array<double, 4> child_arm{}, child_arm2{};
  JointActuation actuation;
  double lower = -1e300, upper = 1e300;  ///< limits (rad)
  /// Joint angle in the built pose (rad), any real value: the hinge's
  /// geometry gives the angle modulo 2 pi, and the tracked (unwrapped)
  /// angle starts at the value nearest to this one.
  double initial_angle = 0.0;
};

/// A coupling between two hinges (URDF <mimic>, see Model): the follower's
/// angle = multiplier x the leader's + offset.
struct CouplingSpec {
  int leader = -1;          ///< hinge index as addHinge returned it
  int follower = -1;        ///< hinge index, != leader
  double multiplier = 1.0;  ///< finite (rad/rad)
  double offset = 0.0;      ///< finite (rad)
};

/// A ground contact at an affine combination of up to four particles.
struct ContactPointSpec {
  std::array<int, 4> particles{-1, -1, -1, -1};  ///< -1: unused
  std::array<double, 4> weights{0.0, 0.0, 0.0, 0.0};
};

/// A suit band, A(21)-(25): a wire through via points, each fixed on a
/// four-particle body by affine weights (see Model).
struct BandSpec {
  std::string name;                            ///< unique, non-empty
  std::vector<int> via_body;                   ///< body index (as addBody returned it) per via point, >= 2
  std::vector<std::array<double, 4>> via_weight;  ///< weights per via point, each summing to 1
  double stiffness = 0.0;        ///< k (N/m), >= 0
  double natural_length = -1.0;  ///< l0 (m); negative means "the initial length" (just taut)
  double damping = 0.0;          ///< c (N s/m) on the stretch rate while taut, >= 0
  /// Viscoelastic hysteresis (a standard linear solid): a Maxwell arm, a
  /// spring k_m (N/m, >= 0; 0: none) in series with a dashpot that relaxes
  /// it with time constant tau (s, > 0 when k_m > 0), in parallel with k.
  double relaxing_stiffness = 0.0;
  double relaxation_time = 0.0;
  /// Capstan friction mu (>= 0; 0: none) between the band and the body at
  /// every interior via point it turns at; every segment must then have a
  /// length > 0 in the built pose.
  double capstan_friction = 0.0;
};

/// A strap (see Model): a spring-damper of zero rest length between a point
/// of body a and a point of body b, each given by affine weights on its
/// body's four particles; the two points should coincide in the built pose.
struct StrapSpec {
  std::string name;                    ///< unique, non-empty
  int body_a = -1, body_b = -1;        ///< body indices as addBody returned them, different
  std::array<double, 4> weight_a{}, weight_b{};  ///< each summing to 1
  double stiffness = 0.0;              ///< k (N/m), > 0
  double damping = 0.0;                ///< c (N s/m), >= 0
};

/// A body: the particles [first, first + count) and their body-frame places.
struct BodySpec {
  std::string name;
  int first = 0;
  int count = 0;
  std::vector<Vec3> body_position;  ///< (count)
};

/// Model-wide hinge settings.
struct HingeSettings {
  double constraint_frequency = 200.0;  ///< Baumgarte rate (rad/s)
  double stick_speed = 1e-3;            ///< (rad/s)
  double limit_stiffness = 0.0;         ///< (N m/rad); 0 disables limits
  double limit_damping = 0.0;           ///< (N m s/rad)
  /// Rigid (the default) or Toda and Sankai's stiff link springs; with
  /// springs, hinges may not carry couplings (<mimic>).
  LinkModel link_model = LinkModel::kRigid;
};

class ModelBuilder {
 public:
  /// Returns the new particle's index. Names must be unique and non-empty.
  int addParticle(const ParticleSpec& spec);
  /// Returns the spring's input index (its order of addition).
  int addSpring(const SpringSpec& spec);
  /// Returns the index of the first particle; particles are named name.i.
  int addCloth(const ClothSpec& spec);
  int addBlock(const BlockSpec& spec);

  /// Returns the hinge index. Both bodies must own exactly four particles;
  /// hinges must form a tree over the bodies.
  int addHinge(const HingeSpec& spec);
  /// Returns the coupling index. A hinge follows at most one leader, and a
  /// leader follows none (no chains); each hinge's bodies have all four
  /// particles free or all fixed.
  int addCoupling(const CouplingSpec& spec);
  int numCouplings() const { return static_cast<int>(couplings_.size()); }
  /// A contact point that is not a single particle (particles with
  /// contact = true are contacts by themselves).
  int addContactPoint(const ContactPointSpec& spec);
  /// Returns the band index. Every via body must own exactly four particles.
  int addBand(const BandSpec& spec);
  int numBands() const { return static_cast<int>(bands_.size()); }
  /// Returns the strap index. Both bodies must own exactly four particles.
  int addStrap(const StrapSpec& spec);
  int numStraps() const { return static_cast<int>(straps_.size()); }
  /// Initial length (m) of a band spec's wire, from the particles' initial positions.
  double initialBandLength(const BandSpec& spec) const;
  /// Returns the body index. Bodies may not overlap.
  int addBody(const BodySpec& spec);
  void setHingeSettings(const HingeSettings& settings) { hinge_settings_ = settings; }

  void setGravity(const Vec3& g) { gravity_ = g; }
  const GroundModel& ground() const { return ground_; }
  /// `ground.normal` need not be unit; tangents are derived.
  void setGround(const GroundModel& ground);

  int numParticles() const { return static_cast<int>(particles_.size()); }
  int numSprings() const { return static_cast<int>(springs_.size()); }
  int numHinges() const { return static_cast<int>(hinges_.size()); }
  int numBodies() const { return static_cast<int>(bodies_.size()); }
  const ParticleSpec& particle(int i) const { return particles_[i]; }

  /// Validates, colours the springs and returns the immutable Model.
  Model build() const;

 private:
  std::vector<ParticleSpec> particles_;
  std::vector<SpringSpec> springs_;
  std::vector<HingeSpec> hinges_;
  std::vector<CouplingSpec> couplings_;
  std::vector<ContactPointSpec> contact_points_;
  std::vector<BodySpec> bodies_;
  std::vector<BandSpec> bands_;
  std::vector<StrapSpec> straps_;
  HingeSettings hinge_settings_;
  Vec3 gravity_{0.0, 0.0, -9.81};
  GroundModel ground_;
};

}  // namespace suitsim
