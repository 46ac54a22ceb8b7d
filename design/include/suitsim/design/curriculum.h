// Excitation design for a scene (Kang et al. 2023, Algorithm 1): the motion
// library, the checks, the greedy choice and the curriculum, as `suitsim
// design-motions` runs it.
//
//  0. The scene's own identification trials are simulated and identified:
//     the starting model's reliability, the residual scale of each equation
//     (the row weights every excitation measure below uses, as the
//     identification weighs its rows), and the model the balance checks use
//     (Kang et al.: the ZMP is only as good as the model; identified base
//     parameters where they are determined, a-priori ones elsewhere).
//  1. The library: `candidates` generated motions (candidates.h) and every
//     CSV of `motions_dir`, each checked and measured (assessment.h).
//  2. Iteration 1 chooses greedily the motions that minimise the condition
//     number of their stacked regressor (selection.h); they are simulated
//     (the experiment library) and the robot identified on them.
//  3. Each further iteration calibrates the prediction on what has been
//     measured and chooses the motions that, stacked on it, best lower the
//     predicted relative stds of the parameters (base and joint parameters)
//     still above the target: the least reliable ones. It stops when the budget, the scene's own
//     identification time, is used, or when an iteration leaves fewer base
//     parameters determined than the one before. Before choosing, it checks
//     the library again with the model identified before it and, with
//     relax_margin, a margin relaxed as that identification's condition
//     number falls (relaxedMarginShare, Kang et al. (20)).
// A chosen motion whose simulated robot falls is dropped, and another chosen.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "suitsim/design/assessment.h"
#include "suitsim/design/candidates.h"
#include "suitsim/design/excitation.h"
#include "suitsim/design/self_collision.h"

namespace suitsim::design {

struct DesignOptions {
  std::string scene;
  std::uint64_t seed = 1;
  int candidates = 300;       ///< generated motions in the library
  std::string motions_dir;    ///< CSV motions added to the library (empty: none)
  double margin = -1.0;       ///< ZMP margin (m); negative: margin_share of the support polygon's inscribed radius
  double margin_share = 0.4;
  /// Kang et al.'s relaxation (relaxedMarginShare): the margin above is the
  /// first iteration's, later ones shrink it as the identified condition
  /// number falls. false: the same margin in every iteration.
  bool relax_margin = false;
  double relax_scale = 2.5e-4;  ///< a: per unit of the identification's condition number
  double relax_bias = 1.0;      ///< b: keeps the margin from shrinking too far (floor 1 - e^-b of it)
  /// Self-collision shapes: the URDF's primitives where a link has them
  /// (self_collision.h); false: capsules from inertia for every body.
  bool urdf_collision = true;
  int iterations = 2;         ///< curriculum iterations (at most one per trial of the budget)
  /// Where the curriculum starts. false: the scene's own identification
  /// motions, simulated and identified (iteration 0). true: the a-priori
  /// model alone, as Kang et al. start (their w_1): the first balance check
  /// uses it, the equations are weighed equally until an identification
  /// gives their residual levels, and the scene's motions only set the
  /// budget (they are not simulated nor in the library).
  bool start_from_apriori = false;
  /// Kang et al.'s baseline (section 5.1, Fig. 7): every iteration takes
  /// motions at random among those that pass its checks, drawn from
  /// selection_seed, in place of the greedy choice.
  bool random_selection = false;
  std::uint64_t selection_seed = 1;
  double target = 0.01;       ///< relative std a parameter counts as determined below
  /// The balance checks take an identified base parameter when its relative
  /// std is below this, the a-priori value otherwise.
  double trusted_relative_std = 0.1;
  int threads = 0;            ///< OpenMP threads (0: one per core)
  std::filesystem::path work_dir;  ///< where the simulated trials go (the caller removes it)
  /// Candidate motions are generated over this share of a trial's duration
  /// (first keyframe after start_share of it, last before 1 - end_share).
  double start_share = 1.0 / 15.0, end_share = 0.05;
  /// Segment durations are drawn in [segment_min_share, segment_max_share]
  /// of a trial's duration (0.5 to 1.5 s in a 12 s trial).
  double segment_min_share = 1.0 / 24.0, segment_max_share = 1.0 / 8.0;
  double segment_min_s = 0.0, segment_max_s = 0.0;  ///< > 0: these durations (s) instead
  /// Its start_s, end_s, segment_min_s, segment_max_s, com_margin and
  /// balance_phi are set from the above and the scene.
  GeneratorOptions generator;
  std::function<void(const std::string&)> log;  ///< progress lines (may be empty)
};

/// How well an identification went.
struct IdentifiedFigures {
  double condition_number = 0.0;   ///< the identification's (identification.json)
  int determined = 0;              ///< base parameters with relative std below the target
  int determined_half_percent = 0; ///< three relative stds within 0.5 % (as the evaluation counts)
  double total_mass = 0.0;         ///< (kg)
  /// Base parameters with relative std below 1, 2, 5 and 10 times the target.
  std::vector<std::pair<double, int>> determined_at;
};

struct DesignIteration {
  int iteration = 0;                 ///< 0: the scene's own motions
  /// The checks this iteration chose under: the ZMP margin (m) and its share
  /// of the support polygon's inscribed radius (Kang et al.'s α), the
  /// condition number that set it (NaN: the first margin), and how many
  /// library candidates passed them (NaN, -1: iteration 0, nothing chosen).
  double margin = std::nan("");
  double margin_share = std::nan("");
  double margin_condition_number = std::nan("");
  int accepted = -1;
  std::vector<std::string> added;    ///< motions simulated in it
  std::vector<std::string> fell;     ///< chosen, fell in the simulation, dropped
  std::string criterion;             ///< "scene", "condition number" or "reliability"
  ExcitationMeasures planned;        ///< design measures of every motion identified on
  int predicted_determined = -1;     ///< what the calibrated prediction expected (-1: no prediction)
  /// The suit fit this motion set predicts (suit_fit_guard.h): the RMS std
  /// of the identified model's torque on the suit's fit joints along the
  /// evaluation motions (N m; +inf: a direction it needs is unseen; NaN:
  /// no evaluation trial wears a suit).
  double predicted_fit_std = std::nan("");
  IdentifiedFigures identified;
  /// Scoring, never used by the design: Kang et al.'s (17), the RMS over the
  /// base parameters of (estimate - truth), in their mixed units (kg, kg m,
  /// kg m²) as the paper takes it; iteration 0 started from the a-priori
  /// model scores the a-priori base parameters.
  double truth_rmse = std::nan("");
};

struct ChosenMotion {
  std::string name;    ///< its trial and motion in the written scene (design_<k>)
  int candidate = -1;  ///< index into DesignResult::library
  int iteration = 0;
  ExcitationMeasures alone;
};

struct DesignResult {
  std::string scene_path, scene_name;
  double trial_duration = 0.0;  ///< (s)
  int budget_trials = 0;        ///< the scene's identification trials
  double margin = 0.0;          ///< ZMP margin of the first iteration (m)
  std::string margin_reason;
  double inscribed_radius = 0.0;  ///< of the support polygon (m)
  std::string start;              ///< "scene" or "apriori" (DesignOptions::start_from_apriori)
  std::string selection;          ///< "curriculum" or "random"
  int num_base = 0;               ///< base parameters of the identification
  std::string margin_rule;        ///< "fixed" or "relaxed"
  double relax_scale = 0.0, relax_bias = 0.0;  ///< a and b of relaxedMarginShare (relaxed only)
  double generation_margin = 0.0;  ///< the margin the generator kept (m): the smallest any iteration may use
  std::vector<LinkCollision> collision_links;  ///< what stood for each link in the self-collision check
  int collision_pairs = 0;                     ///< body pairs checked
  double speed_fraction = 0.0;
  std::vector<std::string> joint_names;     ///< rigid model (q order)
  std::vector<std::string> moved_joints;    ///< the joints the generator moves
  std::vector<std::string> leg_joints;      ///< of those, the ones moved through the root (inverse kinematics)
  int generated = 0, from_files = 0;
  std::vector<CandidateMotion> library;
  std::vector<Assessment> assessments;      ///< per library entry (triangles dropped after the choice)
  ExcitationMeasures scene_motions;         ///< the scene's identification motions, same measure
  std::vector<DesignIteration> iterations;  ///< [0]: the scene's own motions
  std::vector<ChosenMotion> chosen;
  std::string stop_reason;
  /// The guard (suit_fit_guard.h): the evaluation trials and fit joints it
  /// judged with, what it decided and why; kept_scene_motions when the
  /// design predicted a worse suit fit than the scene's own motions, which
  /// `chosen` then holds (iteration 0) in place of the design.
  std::vector<std::string> fit_guard_trials;
  std::string fit_guard;
  bool kept_scene_motions = false;
  std::vector<ChosenMotion> set_aside;  ///< the design the guard did not propose (empty: none)
  double wall_s = 0.0;
};

/// Kang et al.'s relaxation of the balance constraint (K (10), (20)): the
/// support polygon is shrunk by the share α of its inscribed radius; the
/// first iteration takes α_max, each later one
///   α_i = min(α_{i-1}, α_max (1 - exp(-(a κ_{i-1} + b)))),
/// κ_{i-1} the condition number of the identification before it: while the
/// data are ill-conditioned α stays at α_max, and as κ falls the polygon
/// grows back; α never falls below α_max (1 - e^{-b}) (b keeps the margin
/// from shrinking too far). A condition number that is not finite keeps α.
/// Returns α_i.
double relaxedMarginShare(double previous, double share_max, double condition_number, double scale, double bias);

/// Runs the design. Throws io::SceneError for a bad scene or motion CSV
/// (file:line), std::invalid_argument for a scene it cannot design for (no
/// experiment, no identification trial, no floating robot with sensors),
/// std::runtime_error when a simulation fails or no candidate passes.
DesignResult designMotions(const DesignOptions& options);

}  // namespace suitsim::design
