// What the engine's state looks like: links as solid rods between their
// joints (feet as soles through their contact points), particles, springs,
// suit bands through their via points coloured by tension, the ground's
// force on every contact as an arrow, and the centre of mass with its
// projection on the ground. Reads the engine only through its public
// Model, State and Workspace.
#pragma once

#include <array>
#include <vector>

#include "draw_list.h"
#include "renderer.h"
#include "suitsim/io/scene.h"
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
  bool ground = true;
};

struct DrawStyle {
  float tension_scale = 25.0f;  ///< band tension drawn in the top (red) colour (N)
  float force_scale = 0.002f;   ///< arrow length per newton of contact force (m/N)
};

/// The band colour for tension f (N) on a scale where `scale` is red: green
/// when slack, through yellow and orange, to red at and above the scale.
Colour tensionColour(double tension, double scale);

/// Mass-weighted mean of every particle's position (m).
Vec3f centreOfMass(const Model& model, const State& state);

class SceneDrawing {
 public:
  /// Precomputes where each link's rods run (as fixed weights on its
  /// body's particles, like the engine's hinge points) and sizes from the
  /// scene's initial extent.
  explicit SceneDrawing(const io::Scene& scene);

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
  std::vector<Sole> soles_;
  Vec3f centre_{0.0f, 0.0f, 0.0f};
  float radius_ = 1.0f;
  float particle_radius_ = 0.01f;
  float feature_ = 0.01f;  // thickness of bands, arrows and markers (m)
  bool has_fixed_ = false;
};

}  // namespace suitsim::viewer
