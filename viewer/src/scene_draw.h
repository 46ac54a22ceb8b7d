// What the engine's state looks like: links as solid rods between their
// joints (feet as soles through their contact points), particles, springs,
// suit bands through their via points coloured by tension, the ground's
// force on every contact as an arrow, the centre of mass with its
// projection on the ground, and the balance: the support polygon, the DCM
// (with its ground projection), the VRP and the centre of pressure. Reads the engine only through its public
// Model, State and Workspace.
#pragma once

#include <array>
#include <vector>

#include "draw_list.h"
#include "suitsim/centroidal.h"
#include "suitsim/scene/scene.h"
#include "suitsim/state.h"
#include "suitsim/step.h"

namespace suitsim::viewer {

/// The layers one can switch on and off.
struct Layers {
  bool links = true;
  bool particles = false;
  bool springs = false;
  bool bands = true;
  bool via_points = true;
  bool contact_forces = true;
  bool centre_of_mass = true;
  bool balance = true;  ///< support polygon, DCM, VRP and centre of pressure (centroidal.h)
  bool straps = true;   ///< a worn device's straps and the force each puts on the robot
  bool ground = true;
};

struct DrawStyle {
  float tension_scale = 25.0f;  ///< band tension drawn in the top (red) colour (N)
  float force_scale = 0.002f;   ///< arrow length per newton of contact force (m/N)
};

/// How big and how heavy a scene is, from its model alone: every glyph size
/// is a fixed fraction of `length` and every force is drawn relative to
/// `weight`, so a robot scaled by s (masses by s^3) is drawn scaled by s.
struct GlyphScales {
  /// Longest side of the box around the initial configuration, particles
  /// and contact points (m): a standing robot's height.
  double length = 1.0;
  /// Total mass times |gravity| (N); without gravity, times standard gravity,
  /// the scale a contact force of the same bodies would have on Earth.
  double weight = 0.0;
  /// Band tension drawn red (N): the stiffest band stretched by
  /// kReferenceStretch x length; 0 when the scene has no bands.
  double tension = 0.0;
  /// The reference stretch as a share of `length`: 1/16 (0.1 m on a 1.6 m
  /// robot), what a deep bend gives a band crossing the hips about 0.1
  /// length behind the joint axes.
  static constexpr double kReferenceStretch = 1.0 / 16.0;
};

/// The scales of a model (see GlyphScales); needs no GL context.
GlyphScales glyphScales(const Model& model);

/// The style that goes with the scales: an arrow as long as the length scale
/// for the whole weight on one contact, and red at the scales' tension (or
/// the default where the scene has no bands).
DrawStyle defaultStyle(const GlyphScales& scales);

/// The band colour for tension f (N) on a scale where `scale` is red: green
/// when slack, through yellow and orange, to red at and above the scale.
Colour tensionColour(double tension, double scale);

/// Mass-weighted mean of every particle's position (m).
Vec3f centreOfMass(const Model& model, const State& state);

class SceneDrawing {
 public:
  /// Precomputes where each link's rods run (as fixed weights on its
  /// body's particles, like the engine's hinge points) and sizes from the
  /// scene's glyphScales.
  explicit SceneDrawing(const io::Scene& scene);

  /// The scales every size was taken from.
  const GlyphScales& scales() const { return scales_; }

  void build(const io::Scene& scene, const State& state, const Workspace& ws, const Layers& layers,
             const DrawStyle& style, DrawList* list) const;
  /// The scene's ground as the renderer draws it (invisible when it has none).
  GroundPlane groundPlane(const Model& model) const;

  /// Bounding sphere of the initial configuration, for framing the camera.
  Vec3f centre() const { return centre_; }
  float radius() const { return radius_; }
  /// Default layers for the scene: links for a robot, particles and springs otherwise.
  Layers defaultLayers(const io::Scene& scene) const;
  /// True when some particle is held in place (a pendulum's pivot, a
  /// cloth's pins): the scene stays where it is, so the camera need not follow it.
  bool pinned() const { return has_fixed_; }

 private:
  // A point fixed on a four-particle body: x = sum_i w_i x_(first + i).
  struct BodyPoint {
    int first_particle = 0;
    std::array<double, 4> w{0.25, 0.25, 0.25, 0.25};
  };
  struct Rod {
    BodyPoint a, b;
    float radius = 0.0f;
    bool device = false;  // a worn device's segment (exoskeleton.h), drawn in its own colour
  };
  struct Ball {
    BodyPoint centre;
    float radius = 0.0f;
  };
  struct Sole {
    std::vector<int> contacts;  // contact indices of one body, >= 3
    BodyPoint inside;           // the body's centre: which side of the sole plane is up
  };

  // Where a body point is in the scene's initial configuration.
  static Vec3f initialPoint(const Model& model, const BodyPoint& p);

  std::vector<Rod> rods_;
  std::vector<Ball> balls_;
  std::vector<Ball> balls_device_;  // a worn device's segments' centres
  std::vector<Sole> soles_;
  Vec3f centre_{0.0f, 0.0f, 0.0f};
  float radius_ = 1.0f;
  GlyphScales scales_;
  float particle_radius_ = 0.01f;
  float feature_ = 0.01f;                                // thickness of bands, arrows and markers (m)
  float com_radius_ = 0.03f;                             // the centre-of-mass marker (m)
  float sole_thickness_ = 0.025f, sole_margin_ = 0.01f;  // (m)
  float lift_ = 0.001f;  // what a glyph on the ground is raised by, so it does not flicker against it (m)
  bool has_fixed_ = false;
  // The balance layer: omega's past for omega' (VRP, (13)) and buffers for
  // the support polygon (drawing is logically const).
  mutable BalanceTracker tracker_;
  mutable std::vector<Eigen::Vector2d> support_points_;
  mutable SupportPolygon support_;
};

}  // namespace suitsim::viewer
