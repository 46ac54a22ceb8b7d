// Excitation design for a scene (curriculum.h).
#include "suitsim/design/curriculum.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "suitsim/design/design_scene.h"
#include "reliability.h"
#include "suitsim/design/selection.h"
#include "suitsim/design/suit_fit_guard.h"
#include "suitsim/eval/least_squares.h"
#include "suitsim/eval/load_inputs.h"
#include "suitsim/eval/robot_identification.h"
#include "suitsim/experiment/trials.h"
#include "suitsim/rigid/regressor.h"
#include "suitsim/scene/motion_csv.h"

namespace suitsim::design {

namespace fs = std::filesystem;

namespace {

void say(const DesignOptions& o, const std::string& line) {
  if (o.log) o.log(line);
}

std::string format(const char* fmt, double a, double b = 0.0, double c = 0.0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

/// Simulates every trial of `scene_file` into `streams`/<trial>/. Returns
/// the names of those whose robot fell. Throws std::runtime_error when a
/// simulation fails.
std::vector<std::string> simulate(const std::string& scene_file, const fs::path& streams, int threads) {
  // One call for all: a job's sensors refer to its scene, so jobs stay where
  // prepareTrials put them.
  std::vector<experiment::TrialJob> jobs = experiment::prepareTrials(scene_file, "", {}, streams);
  fs::create_directories(streams);
  if (!experiment::simulateTrials(jobs, threads)) {
    std::string why;
    for (const experiment::TrialJob& j : jobs) {
      if (!j.ok) why += " trial " + j.scene.trial.name + ": " + j.error + ";";
    }
    experiment::commitTrials(jobs, false);
    throw std::runtime_error("simulating the motions failed:" + why);
  }
  std::string error;
  if (!experiment::commitTrials(jobs, true, &error)) throw std::runtime_error(error);
  std::vector<std::string> fell;
  for (const experiment::TrialJob& j : jobs) {
    if (j.summary.contains("fell") && j.summary["fell"].get<bool>()) fell.push_back(j.scene.trial.name);
  }
  return fell;
}

void writeScene(const fs::path& path, const std::string& xml) {
  std::ofstream f(path);
  f << xml;
  f.close();
  if (!f) throw std::runtime_error("cannot write " + path.string());
}

/// The identification A(13)-(20) on the identification trials of
/// `scene_file` (as `suitsim identify` fits them, without the validation).
eval::RobotIdentification identifyOn(const std::string& scene_file, const fs::path& streams, int threads,
                                     int expected_base) {
  const eval::EvaluationInputs inputs = eval::loadEvaluationInputs(scene_file);
  const eval::RigidModel model = eval::makeRigidModel(inputs.apriori);
  const eval::BaseParameters base = eval::computeBaseParameters(model);
  if (base.numBase() != expected_base) throw std::runtime_error("the identification's base parameters differ from the design's");
  eval::PipelineOptions po;
  po.identification.threads = threads;
  std::vector<eval::MotionData> data;
  for (const eval::TrialInfo& t : inputs.trials) {
    if (t.purpose == "identification") data.push_back(eval::loadMotion(inputs, model, t, streams, po));
  }
  return eval::identifyRobot(model, base, eval::jointParameters(model, inputs.apriori), data, po.identification);
}

IdentifiedFigures figures(const eval::RobotIdentification& id, double target) {
  IdentifiedFigures f;
  f.condition_number = id.condition_number;
  f.determined = countBelow(id.phi_relative_std, target);
  f.determined_half_percent = countBelow(3.0 * id.phi_relative_std, 0.005 + 1e-15);
  f.total_mass = id.total_mass;
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    f.determined_at.emplace_back(factor * target, countBelow(id.phi_relative_std, factor * target));
  }
  return f;
}

/// The residual scale of each equation from an identification: its rms
/// residual; an equation without rows (a joint that never slid) takes the
/// median of the joints'.
Eigen::VectorXd equationScale(const eval::RobotIdentification& id, int base_dofs) {
  Eigen::VectorXd s = id.row_rms;
  std::vector<double> joints;
  for (Eigen::Index e = base_dofs; e < s.size(); ++e) {
    if (s(e) > 0.0) joints.push_back(s(e));
  }
  double median = 1.0;
  if (!joints.empty()) {
    std::nth_element(joints.begin(), joints.begin() + static_cast<std::ptrdiff_t>(joints.size() / 2), joints.end());
    median = joints[joints.size() / 2];
  }
  for (Eigen::Index e = 0; e < s.size(); ++e) {
    if (!(s(e) > 0.0)) s(e) = e < base_dofs ? 1.0 : median;
  }
  return s;
}

/// The base parameters the balance checks use: the identified value where
/// the identification determines it (relative std below `trusted`), the
/// a-priori one elsewhere. A poor first identification (short or weak
/// motions) would otherwise put the ZMP anywhere.
Eigen::VectorXd balanceParameters(const eval::RobotIdentification& id, double trusted) {
  Eigen::VectorXd phi = id.phi_apriori;
  for (Eigen::Index p = 0; p < phi.size(); ++p) {
    if (std::isfinite(id.phi_relative_std(p)) && id.phi_relative_std(p) < trusted) phi(p) = id.phi(p);
  }
  return phi;
}

/// The identified values and relative stds in the excitation regressor's
/// column order (excitation.h): φ, then per joint k_T, k_d, τ_c, τ_o and
/// the armature.
void excitationValues(const eval::RobotIdentification& id, Eigen::VectorXd* values, Eigen::VectorXd* stds) {
  const Eigen::Index nb = id.phi.size(), nj = id.xi.motor_constant.size();
  values->resize(nb + kJointColumns * nj);
  stds->resize(values->size());
  values->head(nb) = id.phi;
  stds->head(nb) = id.phi_relative_std;
  const eval::JointParameters* sets[2] = {&id.xi, &id.xi_relative_std};
  Eigen::VectorXd* outs[2] = {values, stds};
  for (int k = 0; k < 2; ++k) {
    const eval::JointParameters& x = *sets[k];
    const Eigen::VectorXd* columns[kJointColumns] = {&x.motor_constant, &x.viscous, &x.coulomb, &x.offset, &x.armature};
    for (Eigen::Index j = 0; j < nj; ++j) {
      for (int c = 0; c < kJointColumns; ++c) {
        (*outs[k])(nb + kJointColumns * j + c) = columns[c]->size() == nj ? (*columns[c])(j) : std::nan("");
      }
    }
  }
}

/// Checks and measures every library entry not yet chosen (`chosen[k]`)
/// under `ao`; chosen ones keep their assessment.
void assessLibrary(const DesignRobot& robot, const SelfCollision& collision, const std::vector<CandidateMotion>& library,
                   const AssessmentOptions& ao, const std::vector<bool>& chosen, int threads,
                   std::vector<Assessment>& assessments) {
  assessments.resize(library.size());
  const eval::EigenSingleThreaded sequential;
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (int k = 0; k < static_cast<int>(library.size()); ++k) {
    const std::size_t i = static_cast<std::size_t>(k);
    if (!chosen[i]) assessments[i] = assessCandidate(robot, collision, library[i], ao);
  }
}

/// "12 limits, 3 balance" over the entries not chosen that were rejected;
/// the first rejection in `first`.
std::string rejectionCounts(const std::vector<Assessment>& assessments, const std::vector<bool>& chosen,
                            std::string* first) {
  std::map<std::string, int> rejected;
  for (std::size_t k = 0; k < assessments.size(); ++k) {
    const Assessment& a = assessments[k];
    if (a.accepted || chosen[k]) continue;
    ++rejected[a.rejection.substr(0, a.rejection.find(':'))];
    if (first && first->empty()) *first = a.rejection;
  }
  std::string counts;
  for (const auto& [why, n] : rejected) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + why;
  return counts;
}

}  // namespace

double relaxedMarginShare(double previous, double share_max, double condition_number, double scale, double bias) {
  if (!std::isfinite(condition_number)) return previous;
  // K (20): α decreases with the condition number of the data identified on.
  return std::min(previous, share_max * (1.0 - std::exp(-(scale * condition_number + bias))));
}

/// The guard (suit_fit_guard.h): the design is proposed only when it
/// predicts a suit fit no worse than the scene's own motions (iteration 0);
/// otherwise `chosen` becomes those motions, each as the library entry the
/// scene's motion became (from `first_scene_motion` on).
static void guardSuitFit(DesignResult& r, std::size_t first_scene_motion, const std::vector<Eigen::MatrixXd>& scene_triangles) {
  const double scene = r.iterations.front().predicted_fit_std, design = r.iterations.back().predicted_fit_std;
  if (r.fit_guard_trials.empty()) {
    r.fit_guard = "no evaluation trial wears a suit: no suit fit to judge the design by";
    return;
  }
  const auto text = [](double x) { return std::isinf(x) ? std::string("unseen") : format("%.4g N m", x); };
  const std::string figures = "predicted model-torque std on the fit joints " + text(design) + " (design) against " +
                              text(scene) + " (the scene's own motions)";
  // Worse: larger, or unseen (+inf) where the scene's motions see it. Two
  // unseen sets cannot be told apart by this measure; the design stands.
  const bool worse = std::isfinite(scene) && !(design <= scene);
  if (!worse || r.iterations.size() < 2) {
    r.fit_guard = "design proposed: " + figures;
    return;
  }
  r.kept_scene_motions = true;
  r.fit_guard = "the scene's own motions kept: the design predicts a worse suit fit, " + figures;
  r.set_aside = std::move(r.chosen);
  r.chosen.clear();
  for (std::size_t k = 0; k < scene_triangles.size(); ++k) {
    ChosenMotion ch;
    ch.name = "design_" + std::to_string(k + 1);
    ch.candidate = static_cast<int>(first_scene_motion + k);
    ch.iteration = 0;
    if (scene_triangles[k].size() > 0) ch.alone = measureExcitation(scene_triangles[k]);
    r.chosen.push_back(ch);
  }
}

namespace {

/// One run of the design: what its stages share.
struct DesignRun {
  const DesignOptions& o;
  DesignResult& r;
  int threads = 1;
  std::vector<std::string> scene_ident, scene_ident_motion;  // the scene's identification trials and motions
  std::optional<DesignRobot> robot;
  double inscribed = 0.0, share_max = 0.0;
  std::vector<CandidateMotion> from_files;
  GeneratorOptions gen;
  AssessmentOptions ao;
  std::optional<SelfCollision> collision;
  std::optional<SuitFitRows> fit_rows;
  std::vector<CandidateMotion> scene_motions;
  std::vector<Eigen::MatrixXd> scene_triangles;  // each alone, measured as they are
  std::size_t first_scene_motion = 0;            // library index of the first
  std::vector<Eigen::MatrixXd> pool;             // each candidate's triangle; empty once chosen or rejected
  std::vector<bool> chosen_mask;
  std::vector<DesignedTrial> designed;
  Eigen::MatrixXd measured;                      // the triangle of every motion designed so far
  std::optional<eval::RobotIdentification> last;  // the latest identification
  bool torque_sensors = false;                   // the joint rows read link-side torque sensors
  Eigen::VectorXd true_phi;                      // the truth's base parameters, for scoring only (K (17))
  std::optional<RandomStream> selection_stream;  // random selection's draws
  int left = 0;                                  // identification trials of the budget left
  int next_name = 1;  // trials are named design_1, design_2, ... in the order chosen (a fallen one leaves a gap)

  DesignRun(const DesignOptions& options, DesignResult& result) : o(options), r(result) {}
  /// K (17): sqrt(Σ (φ − φ_true)² / D), scoring only (NaN without a truth).
  double truthRmse(const Eigen::VectorXd& phi) const {
    if (true_phi.size() != phi.size() || phi.size() == 0) return std::nan("");
    return std::sqrt((phi - true_phi).squaredNorm() / static_cast<double>(phi.size()));
  }
  const eval::RigidModel& model() const { return robot->model(); }

  /// The guard's figure for a motion set: Σ calibrated on its own identification.
  double fitStd(const Eigen::MatrixXd& triangle, const eval::RobotIdentification& id) const {
    Eigen::VectorXd values, stds;
    excitationValues(id, &values, &stds);
    const ReliabilityModel calibrated = calibrateReliability(triangle, values, stds, o.target);
    return predictedFitStd(triangle, residualVariance(calibrated.calibration), fit_rows->rows);
  }
};

/// The scene, the robot, the budget and the balance margin.
void readScene(DesignRun& d) {
  const DesignOptions& o = d.o;
  DesignResult& r = d.r;
  // The scene: its identification trials set the budget.
  const std::vector<io::TrialSpec> trials = io::listTrials(o.scene);
  for (const io::TrialSpec& t : trials) {
    if (t.purpose != "identification") continue;
    d.scene_ident.push_back(t.name);
    d.scene_ident_motion.push_back(t.motion);
  }
  if (trials.empty()) {
    throw std::invalid_argument(o.scene + ": no <experiment>: the design replaces the experiment's identification trials");
  }
  if (d.scene_ident.empty()) {
    throw std::invalid_argument(o.scene +
                                ": no trial with purpose=\"identification\": the budget is their total time");
  }
  // The evaluator's view must load (sensors, IMU); its joint torque sensors
  // decide the equations the plan stacks.
  d.torque_sensors = eval::loadEvaluationInputs(o.scene).layout.has_joint_torques;
  const io::Scene scene = io::loadScene(o.scene, d.scene_ident.front());
  r.scene_name = scene.name;
  r.trial_duration = scene.simulation.duration;
  r.budget_trials = static_cast<int>(d.scene_ident.size());
  d.robot.emplace(makeDesignRobot(scene.robot.value()));
  const DesignRobot& robot = *d.robot;
  const eval::RigidModel& m = robot.model();
  r.joint_names = m.joint_name;
  for (int j : robot.free_joints) r.moved_joints.push_back(m.joint_name[static_cast<std::size_t>(j)]);
  for (int j : robot.leg_joints) {
    r.moved_joints.push_back(m.joint_name[static_cast<std::size_t>(j)]);
    r.leg_joints.push_back(m.joint_name[static_cast<std::size_t>(j)]);
  }
  r.num_base = robot.base.numBase();
  // Scoring only (K (17) in the report): the simulated robot's base
  // parameters; nothing the design chooses reads them.
  const eval::RigidModel truth = eval::makeRigidModel(scene.robot->truth);
  if (truth.num_bodies == m.num_bodies) d.true_phi = robot.base.fromStandard(eval::standardParameters(truth));

  // The balance margin: given, or a share of the polygon's inscribed radius.
  d.inscribed = inscribedRadius(robot.polygon);
  if (o.margin >= 0.0) {
    r.margin = o.margin;
    r.margin_reason = "given (--margin)";
  } else {
    r.margin = o.margin_share * d.inscribed;
    r.margin_reason = format("%.3g of the support polygon's inscribed radius %.4g m", o.margin_share, d.inscribed);
  }
  r.inscribed_radius = d.inscribed;
  d.share_max = d.inscribed > 0.0 ? r.margin / d.inscribed : 0.0;
  r.margin_rule = o.relax_margin ? "relaxed" : "fixed";
  r.relax_scale = o.relax_scale;
  r.relax_bias = o.relax_bias;
  // Relaxed, the library must hold motions for the widest polygon any
  // iteration may allow: it is generated to the smallest margin.
  r.generation_margin =
      o.relax_margin ? d.share_max * (1.0 - std::exp(-o.relax_bias)) * d.inscribed : r.margin;
  const io::StanceBalance stance = io::initialBalance(robot.stance);
  if (stance.margin < r.margin) {
    throw std::invalid_argument(o.scene + ": the initial stance's centre of mass is only " + format("%.4g", stance.margin) +
                                " m inside the support polygon, less than the ZMP margin " + format("%.4g m", r.margin) +
                                ": no motion can keep it (give a smaller --margin)");
  }
}

/// CSV motions (bad files are bad input, found before anything runs) and
/// the generator's settings.
void readLibraryInputs(DesignRun& d) {
  const DesignOptions& o = d.o;
  DesignResult& r = d.r;
  if (!o.motions_dir.empty()) {
    std::vector<fs::path> files;
    std::error_code ec;
    if (!fs::is_directory(o.motions_dir, ec)) throw io::SceneError(o.motions_dir + ": not a directory");
    for (const fs::directory_entry& e : fs::directory_iterator(o.motions_dir)) {
      if (e.path().extension() == ".csv") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) throw io::SceneError(o.motions_dir + ": no .csv file in it");
    for (const fs::path& f : files) {
      d.from_files.push_back(candidateFromTable(*d.robot, io::readMotionCsv(f.string()), f.string()));
    }
  }
  GeneratorOptions& gen = d.gen;
  gen = o.generator;
  gen.start_s = o.start_share * r.trial_duration;
  gen.end_s = (1.0 - o.end_share) * r.trial_duration;
  gen.segment_min_s = o.segment_min_s > 0.0 ? o.segment_min_s : o.segment_min_share * r.trial_duration;
  gen.segment_max_s = std::max(gen.segment_min_s, o.segment_max_s > 0.0 ? o.segment_max_s : o.segment_max_share * r.trial_duration);
  gen.com_margin = r.generation_margin;
  r.speed_fraction = gen.speed_fraction;
}

/// The checks' settings and the self-collision shapes, whichever start.
void setUpChecks(DesignRun& d) {
  const DesignRobot& robot = *d.robot;
  const eval::RigidModel& m = robot.model();
  AssessmentOptions& ao = d.ao;
  ao.zmp_margin = d.r.margin;
  ao.speed_fraction = d.gen.speed_fraction;
  ao.max_duration = d.r.trial_duration;
  ao.excitation.slip_velocity = eval::IdentificationOptions().slip_velocity;
  ao.excitation.torque_sensors = d.torque_sensors;
  d.collision.emplace(d.o.urdf_collision ? SelfCollision(m, robot.links, robot.stance.initial)
                                         : SelfCollision(m, robot.stance.initial));
  d.r.collision_links = d.collision->links();
  d.r.collision_pairs = d.collision->numPairs();
}

/// 0. The scene's own identification motions, simulated and identified:
/// the residual scales, the balance model, the self-collision shapes, the
/// guard's rows and iteration 0 of the report.
void identifySceneMotions(DesignRun& d) {
  const DesignOptions& o = d.o;
  DesignResult& r = d.r;
  const DesignRobot& robot = *d.robot;
  setUpChecks(d);
  say(o, "iteration 0: simulating the scene's " + std::to_string(d.scene_ident.size()) + " identification trials");
  const fs::path streams0 = o.work_dir / "scene_trials";
  const fs::path scene0 = o.work_dir / "iteration_0.xml";
  writeScene(scene0, designScene(o.scene, {}, r.joint_names, KeepTrials::kIdentification));
  (void)simulate(scene0.string(), streams0, d.threads);
  const eval::RobotIdentification id0 = identifyOn(scene0.string(), streams0, d.threads, robot.base.numBase());
  AssessmentOptions& ao = d.ao;
  ao.excitation.equation_scale = equationScale(id0, robot.equationBaseDofs());
  ao.balance_phi = balanceParameters(id0, o.trusted_relative_std);
  ao.excitation.torque_phi = ao.balance_phi;
  d.fit_rows.emplace(suitFitRows(robot, o.scene, ao.excitation, ao.excitation_dt));
  r.fit_guard_trials = d.fit_rows->trials;
  AssessmentOptions loose = ao;  // measured as they are, whatever their margins
  loose.zmp_margin = -std::numeric_limits<double>::infinity();
  loose.speed_fraction = std::numeric_limits<double>::infinity();
  loose.max_duration = 0.0;
  Eigen::MatrixXd stacked = Eigen::MatrixXd::Zero(excitationColumns(robot), excitationColumns(robot));
  for (std::size_t k = 0; k < d.scene_ident.size(); ++k) {
    const io::Scene s = io::loadScene(o.scene, d.scene_ident[k]);
    d.scene_motions.push_back(candidateFromSetup(robot, s.robot.value(), d.scene_ident_motion[k]));
    Assessment a = assessCandidate(robot, *d.collision, d.scene_motions.back(), loose);
    if (a.triangle.size() > 0) stacked = stackTriangles(stacked, a.triangle);
    d.scene_triangles.push_back(a.triangle);
  }
  r.scene_motions = measureExcitation(stacked);
  DesignIteration it0;
  it0.iteration = 0;
  it0.added = d.scene_ident;
  it0.criterion = "scene";
  it0.planned = r.scene_motions;
  it0.identified = figures(id0, o.target);
  it0.truth_rmse = d.truthRmse(id0.phi);
  it0.predicted_fit_std = d.fitStd(stacked, id0);
  r.iterations.push_back(it0);
  say(o, format("iteration 0: the scene's motions: condition number %.4g (design), %.4g (identified); ",
                it0.planned.condition_number, it0.identified.condition_number) +
             std::to_string(it0.identified.determined) + " base parameters below the target relative std");
  d.last = id0;
}

/// 0'. Kang et al.'s start: the a-priori model alone (w_1). Nothing is
/// simulated: the first balance check uses the a-priori model's own
/// dynamics, the equations are weighed equally (unit residual scale) and
/// iteration 0 of the report is the a-priori model, with no relative stds.
void startFromApriori(DesignRun& d) {
  const DesignOptions& o = d.o;
  DesignResult& r = d.r;
  const DesignRobot& robot = *d.robot;
  setUpChecks(d);
  AssessmentOptions& ao = d.ao;
  ao.balance_phi.resize(0);  // the a-priori model's own inverse dynamics
  const Eigen::VectorXd phi_apriori = robot.base.fromStandard(eval::standardParameters(robot.model()));
  ao.excitation.torque_phi = phi_apriori;
  d.fit_rows.emplace(suitFitRows(robot, o.scene, ao.excitation, ao.excitation_dt));
  r.fit_guard_trials = d.fit_rows->trials;
  DesignIteration it0;
  it0.iteration = 0;
  it0.criterion = "a-priori model";
  it0.planned.condition_number = std::nan("");
  it0.identified.condition_number = std::nan("");
  it0.identified.determined = -1;  // no identification: no relative std
  it0.identified.total_mass = std::nan("");
  it0.truth_rmse = d.truthRmse(phi_apriori);
  r.iterations.push_back(it0);
  say(o, "iteration 0: the a-priori model (nothing simulated)");
}

/// 1. The library, checked and measured: the generated motions, the CSV
/// ones and the scene's own (a design is never forced to do without what
/// the experimenter wrote).
void buildLibrary(DesignRun& d) {
  const DesignOptions& o = d.o;
  DesignResult& r = d.r;
  d.gen.balance_phi = d.ao.balance_phi;
  r.library = generateCandidates(*d.robot, d.gen, o.candidates, o.seed, d.threads);
  r.generated = static_cast<int>(r.library.size());
  r.from_files = static_cast<int>(d.from_files.size());
  for (CandidateMotion& c : d.from_files) r.library.push_back(std::move(c));
  d.first_scene_motion = r.library.size();
  for (CandidateMotion& c : d.scene_motions) r.library.push_back(std::move(c));
  say(o, "assessing " + std::to_string(r.library.size()) + " candidate motions");
  d.chosen_mask.assign(r.library.size(), false);
  assessLibrary(*d.robot, *d.collision, r.library, d.ao, d.chosen_mask, d.threads, r.assessments);
  int accepted = 0;
  for (const Assessment& a : r.assessments) {
    d.pool.push_back(a.triangle);
    accepted += a.accepted ? 1 : 0;
  }
  std::string first_rejection;
  const std::string counts = rejectionCounts(r.assessments, d.chosen_mask, &first_rejection);
  say(o, std::to_string(accepted) + " of " + std::to_string(r.library.size()) + " candidates pass the checks" +
             (counts.empty() ? "" : " (rejected: " + counts + ")"));
  if (accepted == 0) {
    throw std::runtime_error("no candidate motion passes the checks (limits, ZMP margin " + format("%.3g m", r.margin) +
                             ", self-collision; the first: " + first_rejection +
                             "): try a smaller --margin or more --candidates");
  }
}

/// Before a later iteration: the library checked again with the model
/// identified just before it (Kang et al.: the balance check improves with
/// the model) and, relaxed, a margin that shrinks as that identification's
/// condition number falls.
void recheckLibrary(DesignRun& d, DesignIteration& info) {
  const DesignOptions& o = d.o;
  DesignResult& r = d.r;
  const DesignIteration& before = r.iterations.back();
  info.margin_share = before.margin_share;
  if (o.relax_margin) {
    info.margin_condition_number = d.last->condition_number;
    info.margin_share =
        relaxedMarginShare(before.margin_share, d.share_max, d.last->condition_number, o.relax_scale, o.relax_bias);
  }
  d.ao.zmp_margin = o.relax_margin ? info.margin_share * d.inscribed : r.margin;
  d.ao.balance_phi = balanceParameters(*d.last, o.trusted_relative_std);
  assessLibrary(*d.robot, *d.collision, r.library, d.ao, d.chosen_mask, d.threads, r.assessments);
  for (std::size_t k = 0; k < d.pool.size(); ++k) {
    if (!d.chosen_mask[k]) d.pool[k] = r.assessments[k].triangle;
  }
}

/// Chooses `want` motions by `score` and simulates them, up to three times
/// while chosen motions fall (a fallen one is dropped and its slot goes to
/// the next choice); what was kept goes into `info.added`.
void chooseAndSimulate(DesignRun& d, int it, int want, const SelectionScore& score, DesignIteration& info) {
  const DesignOptions& o = d.o;
  DesignResult& r = d.r;
  const fs::path streams = o.work_dir / "designed_trials";
  int still = std::min(want, d.left);
  for (int attempt = 0; attempt < 3 && still > 0; ++attempt) {
    const Selection pick = d.selection_stream ? randomSelect(d.measured, d.pool, still, *d.selection_stream)
                                              : greedySelect(d.measured, d.pool, still, score, d.threads);
    if (pick.chosen.empty()) break;
    std::vector<std::string> names;
    const std::size_t first_new = d.designed.size();
    for (int c : pick.chosen) {
      ChosenMotion ch;
      ch.candidate = c;
      ch.iteration = it;
      ch.alone = measureExcitation(d.pool[static_cast<std::size_t>(c)]);
      ch.name = "design_" + std::to_string(d.next_name++);
      r.chosen.push_back(ch);
      const CandidateMotion& motion = r.library[static_cast<std::size_t>(c)];
      // A motion from a CSV runs from its file, interpolated as the scene reader does.
      const bool from_file = motion.source != "generated" && motion.source != "scene";
      d.designed.push_back({ch.name, &motion, from_file ? fs::absolute(motion.source).lexically_normal().string() : ""});
      names.push_back(d.designed.back().name);
      d.pool[static_cast<std::size_t>(c)].resize(0, 0);  // chosen once
      d.chosen_mask[static_cast<std::size_t>(c)] = true;
    }
    const fs::path scene_file = o.work_dir / ("iteration_" + std::to_string(it) + "_new.xml");
    const std::vector<DesignedTrial> added(d.designed.begin() + static_cast<std::ptrdiff_t>(first_new), d.designed.end());
    writeScene(scene_file, designScene(o.scene, added, r.joint_names, KeepTrials::kNone));
    say(o, "iteration " + std::to_string(it) + ": simulating " + std::to_string(names.size()) + " motions chosen by " +
               info.criterion);
    const std::vector<std::string> fell = simulate(scene_file.string(), streams, d.threads);
    for (const std::string& name : fell) {
      // Out of the design; its slot goes to the next choice.
      for (std::size_t k = first_new; k < d.designed.size(); ++k) {
        if (d.designed[k].name != name) continue;
        info.fell.push_back(r.library[static_cast<std::size_t>(r.chosen[k].candidate)].name);
        d.designed.erase(d.designed.begin() + static_cast<std::ptrdiff_t>(k));
        r.chosen.erase(r.chosen.begin() + static_cast<std::ptrdiff_t>(k));
        break;
      }
    }
    for (std::size_t k = first_new; k < d.designed.size(); ++k) {
      info.added.push_back(d.designed[k].name);
      d.measured = stackTriangles(d.measured, r.assessments[static_cast<std::size_t>(r.chosen[k].candidate)].triangle);
    }
    still -= static_cast<int>(d.designed.size() - first_new);
    d.left -= static_cast<int>(d.designed.size() - first_new);
    if (fell.empty()) break;
  }
}

/// 2-3. One iteration of the curriculum: check, choose, simulate, identify.
/// False when the design stops (r.stop_reason says why).
bool iterate(DesignRun& d, int it, int num_iterations) {
  const DesignOptions& o = d.o;
  DesignResult& r = d.r;
  const int share = r.budget_trials / num_iterations + (it <= r.budget_trials % num_iterations ? 1 : 0);
  const int want = it == num_iterations ? d.left : std::min(d.left, share);
  DesignIteration info;
  info.iteration = it;
  if (it == 1) {
    info.margin_share = d.share_max;
  } else {
    recheckLibrary(d, info);
  }
  info.margin = d.ao.zmp_margin;
  info.accepted = 0;
  for (std::size_t k = 0; k < d.pool.size(); ++k) info.accepted += d.pool[k].size() > 0 ? 1 : 0;
  if (it > 1) {
    const std::string c = rejectionCounts(r.assessments, d.chosen_mask, nullptr);
    say(o, "iteration " + std::to_string(it) + format(": ZMP margin %.4g m (%.3g of the inscribed radius): ", info.margin,
                                                      info.margin_share) +
               std::to_string(info.accepted) + " candidates left pass the checks" +
               (c.empty() ? std::string() : " (rejected: " + c + ")"));
  }
  std::optional<ReliabilityModel> reliability;
  if (it == 1) {
    info.criterion = "condition number";
  } else {
    info.criterion = "reliability";
    Eigen::VectorXd values, stds;
    excitationValues(*d.last, &values, &stds);
    reliability = calibrateReliability(d.measured, values, stds, o.target);
  }
  if (o.random_selection) info.criterion = "random choice";
  const SelectionScore score = reliability ? SelectionScore([&](const Eigen::MatrixXd& t) {
    return reliabilityScore(*reliability, t);
  })
                                           : SelectionScore(conditionScore);
  chooseAndSimulate(d, it, want, score, info);
  if (info.added.empty()) {
    r.stop_reason = info.accepted == 0 ? "no candidate left passes the checks"
                                       : "no further candidate could be simulated without falling";
    return false;
  }
  const fs::path scene_file = o.work_dir / ("iteration_" + std::to_string(it) + ".xml");
  writeScene(scene_file, designScene(o.scene, d.designed, r.joint_names, KeepTrials::kNone));
  d.last = identifyOn(scene_file.string(), o.work_dir / "designed_trials", d.threads, d.robot->base.numBase());
  info.planned = measureExcitation(d.measured);
  if (reliability) {
    info.predicted_determined =
        countBelow(predictRelativeStd(*reliability, d.measured).head(d.robot->base.numBase()), o.target);
  }
  info.identified = figures(*d.last, o.target);
  info.truth_rmse = d.truthRmse(d.last->phi);
  info.predicted_fit_std = d.fitStd(d.measured, *d.last);
  say(o, "iteration " + std::to_string(it) + format(": condition number %.4g (design), %.4g (identified); ",
                                                      info.planned.condition_number, info.identified.condition_number) +
             std::to_string(info.identified.determined) + " base parameters below the target relative std");
  // Kang et al.'s protocol (an a-priori start) runs every iteration asked for.
  const bool worse = !o.start_from_apriori && it > 1 &&
                     info.identified.determined < r.iterations.back().identified.determined;
  r.iterations.push_back(info);
  if (d.left <= 0) {
    r.stop_reason = "the time budget (the scene's identification trials) is used";
    return false;
  }
  if (worse) {
    r.stop_reason = "reliability stopped improving";
    return false;
  }
  return true;
}

}  // namespace

DesignResult designMotions(const DesignOptions& o) {
  const auto wall_start = std::chrono::steady_clock::now();
  DesignResult r;
  r.scene_path = o.scene;
  DesignRun d(o, r);
  d.threads = o.threads > 0 ? o.threads : omp_get_num_procs();
  readScene(d);
  readLibraryInputs(d);
  r.start = o.start_from_apriori ? "apriori" : "scene";
  r.selection = o.random_selection ? "random" : "curriculum";
  if (o.random_selection) d.selection_stream.emplace(o.selection_seed);
  if (o.start_from_apriori) startFromApriori(d);
  else identifySceneMotions(d);
  buildLibrary(d);
  const int num_iterations = std::clamp(o.iterations, 1, r.budget_trials);
  const int columns = excitationColumns(*d.robot);
  d.measured = Eigen::MatrixXd::Zero(columns, columns);
  d.left = r.budget_trials;
  for (int it = 1; it <= num_iterations && d.left > 0; ++it) {
    if (!iterate(d, it, num_iterations)) break;
  }
  if (r.stop_reason.empty()) r.stop_reason = "the iterations asked for are done";
  guardSuitFit(r, d.first_scene_motion, d.scene_triangles);
  for (Assessment& a : r.assessments) a.triangle.resize(0, 0);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return r;
}

}  // namespace suitsim::design
