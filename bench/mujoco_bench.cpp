// JVRC-1 standing, in suitsim and in MuJoCo 2.2.2, in one run: the real-time
// factor of each on one core (counter sim_s_per_s), at the same time step
// and under the same PD law.
//
// suitsim: scenes/jvrc1_stand.xml as bench/humanoid_bench.cpp runs it
// (humanoid/stand, velocity Verlet), and scenes/jvrc1_stand_1ms.xml (the
// motors' rotors, drift-kick-drift at 1 ms: humanoid/stand_1ms). MuJoCo: the
// same robot read by MuJoCo's
// own URDF reader from models/jvrc1/jvrc1.urdf, edited as text to match the
// scene's truth: the scene's inertials (the URDF's plus its payloads), its
// frozen fingers welded, a floating base, a floor (a box on the world link)
// and a 5 mm sphere at each sole corner the scene names as a contact point,
// joint damping and friction loss from the scene's viscous and Coulomb
// friction (MuJoCo has no static-friction peak), and the rotors' armature
// where the scene has them (MuJoCo's dof_armature is suitsim's rotor row,
// cross-checked in tests/engine/mujoco_fidelity_test.cpp). The PD law holds the
// scene's initial pose with the scene's gains at the scene's servo rate:
// tau = kp (q0 - q) - kd qd, held between updates, as JointServo does.
// Contact differs in kind (suitsim: penalty springs and friction anchors;
// MuJoCo: soft constraints solved each step), so this compares cost, not
// trajectories: tests/engine/mujoco_fidelity_test.cpp compares those.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "humanoid_case.h"
#include "jvrc_pd_crosscheck.h"
#include "mujoco_urdf.h"
#include "suitsim/articulated.h"
#include "suitsim/experiment/runner.h"
#include "suitsim/scene/scene.h"
#include "suitsim/servo_stability.h"

namespace {

using suitsim::testing::MujocoData;
using suitsim::testing::MujocoModel;

const std::string kScene = "jvrc1_stand.xml";
const std::string kScene1ms = "jvrc1_stand_1ms.xml";
const std::string kUrdf = SUITSIM_SOURCE_DIR "/models/jvrc1/jvrc1.urdf";
constexpr double kSphereRadius = 0.005;  // (m)

std::string num(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.17g", x);
  return buffer;
}

// The scene's robot as MuJoCo URDF text (see the header comment).
std::string mujocoStandText(const suitsim::io::Scene& scene, const std::vector<suitsim::Vec3>& sole_corners) {
  const suitsim::RobotDescription& truth = scene.robot->truth;
  std::string text = suitsim::testing::mujocoUrdfText(kUrdf);
  for (const suitsim::RobotLink& link : truth.links) {
    if (link.inertial.mass <= 0.0) continue;
    const auto& c = link.inertial.com;
    const auto& I = link.inertial.inertia;
    text = suitsim::testing::replaceLinkInertial(
        text, link.name,
        "<inertial><origin xyz=\"" + num(c[0]) + " " + num(c[1]) + " " + num(c[2]) + "\" rpy=\"0 0 0\"/><mass value=\"" +
            num(link.inertial.mass) + "\"/><inertia ixx=\"" + num(I[0]) + "\" iyy=\"" + num(I[1]) + "\" izz=\"" +
            num(I[2]) + "\" ixy=\"" + num(I[3]) + "\" ixz=\"" + num(I[4]) + "\" iyz=\"" + num(I[5]) + "\"/></inertial>");
  }
  for (const suitsim::RobotJoint& joint : truth.joints) {
    if (joint.type != suitsim::JointType::kFixed) continue;
    const std::string anchor = "<joint name=\"" + joint.name + "\"";
    const std::size_t at = text.find(anchor);
    if (at != std::string::npos && text.find("type=\"fixed\"", at) > text.find('>', at)) {
      text = suitsim::testing::replaceInTag(text, anchor, "type=\"revolute\"", "type=\"fixed\"");  // frozen
    }
  }
  std::string spheres;
  for (const suitsim::Vec3& p : sole_corners) {
    // Sphere centre one radius above the corner: its lowest point is the corner.
    spheres += "<collision><origin xyz=\"" + num(p[0]) + " " + num(p[1]) + " " + num(p[2] + kSphereRadius) +
               "\"/><geometry><sphere radius=\"" + num(kSphereRadius) + "\"/></geometry></collision>";
  }
  for (int link : scene.robot->contact_link) {
    const std::string anchor = "<link name=\"" + truth.links[link].name + "\">";
    if (text.find(anchor + "<collision>") == std::string::npos) text = suitsim::testing::insertAfter(text, anchor, spheres);
  }
  // A floating root under a world link that carries the floor, its top at z = 0.
  return suitsim::testing::insertAfter(
      text, "</mujoco>",
      "\n<link name=\"world\"><collision><origin xyz=\"0 0 -0.5\"/><geometry><box size=\"50 50 1\"/></geometry>"
      "</collision></link><joint name=\"floating_base\" type=\"floating\"><parent link=\"world\"/><child link=\"" +
          truth.links[truth.root_link].name + "\"/></joint>\n");
}

// `scene_file`'s robot in MuJoCo, at the scene's step with `integrator`.
void mujocoScene(benchmark::State& bench, const std::string& scene_file, mjtIntegrator integrator) {
  const suitsim::io::Scene scene = suitsim::io::loadScene(std::string(SUITSIM_SOURCE_DIR) + "/scenes/" + scene_file);
  const suitsim::io::RobotSetup& robot = *scene.robot;
  // The sole corners of the standing scenes' <contact> elements (the same in
  // both), in the ankle links' frames (the scene reader keeps them only as
  // particle weights).
  const std::vector<suitsim::Vec3> corners = {
      {-0.07, -0.055, -0.1}, {0.13, -0.055, -0.1}, {0.13, 0.055, -0.1}, {-0.07, 0.055, -0.1}};
  MujocoModel model = suitsim::testing::loadMujocoText(mujocoStandText(scene, corners), "jvrc1_stand.urdf");
  double armature = 0.0;  // the largest, as a counter
  mjModel* m = model.get();
  const double dt = scene.simulation.dt;
  m->opt.timestep = dt;
  m->opt.integrator = integrator;
  m->opt.gravity[0] = scene.model.gravity[0];
  m->opt.gravity[1] = scene.model.gravity[1];
  m->opt.gravity[2] = scene.model.gravity[2];
  MujocoData data(mj_makeData(m));
  mjData* d = data.get();

  // The scene's initial pose and gains, per hinge, by joint name.
  suitsim::experiment::TrialRunner runner(scene, 1);
  runner.start();
  const suitsim::Model& sm = scene.model;
  std::vector<int> qpos, dof;
  std::vector<double> hold, kp, kd;
  for (int h = 0; h < sm.num_hinges; ++h) {
    const int j = mj_name2id(m, mjOBJ_JOINT, sm.hinge_name[h].c_str());
    if (j < 0) {
      bench.SkipWithError(("MuJoCo's model has no joint " + sm.hinge_name[h]).c_str());
      return;
    }
    qpos.push_back(m->jnt_qposadr[j]);
    dof.push_back(m->jnt_dofadr[j]);
    hold.push_back(suitsim::jointAngle(sm, runner.state(), h));
    kp.push_back(robot.gains[h].kp);
    kd.push_back(robot.gains[h].kd);
    const suitsim::JointActuation& a = robot.truth.joints[robot.truth.findJoint(sm.hinge_name[h])].actuation;
    m->dof_damping[dof.back()] = a.viscous;
    m->dof_frictionloss[dof.back()] = a.coulomb;
    m->dof_armature[dof.back()] = a.armature;
    armature = std::max(armature, a.armature);
    d->qpos[qpos.back()] = hold.back();
  }
  double mass = 0.0;
  for (int b = 0; b < m->nbody; ++b) mass += m->body_mass[b];
  if (std::abs(mass - robot.truth.totalMass()) > 1e-9) {
    bench.SkipWithError("MuJoCo's model does not have the scene's mass");
    return;
  }
  if (m->nv != 6 + sm.num_hinges) {
    bench.SkipWithError("MuJoCo's model has other degrees of freedom than the scene's hinges");
    return;
  }
  // Base: upright, lowered until the lowest sole sphere touches the floor.
  mj_forward(m, d);
  double lowest = 1e300;
  for (int g = 0; g < m->ngeom; ++g) {
    if (m->geom_type[g] == mjGEOM_SPHERE) lowest = std::min(lowest, d->geom_xpos[3 * g + 2] - m->geom_size[3 * g]);
  }
  d->qpos[2] -= lowest;
  mj_forward(m, d);
  const double start_height = d->qpos[2];

  const long servo_every = std::max(1L, std::lround(1.0 / (robot.servo_rate * dt)));
  long k = 0;
  auto advance = [&](long steps) {
    for (long s = 0; s < steps; ++s, ++k) {
      if (k % servo_every == 0) {
        for (std::size_t i = 0; i < qpos.size(); ++i) {
          d->qfrc_applied[dof[i]] = kp[i] * (hold[i] - d->qpos[qpos[i]]) - kd[i] * d->qvel[dof[i]];
        }
      }
      mj_step(m, d);
    }
  };
  advance(static_cast<long>(0.2 / dt));  // settle onto the ground first
  const long batch = static_cast<long>(0.1 / dt);
  for (auto _ : bench) {
    advance(batch);
    benchmark::DoNotOptimize(d->qpos);
  }
  const double simulated = static_cast<double>(bench.iterations()) * batch * dt;
  bench.counters["sim_s_per_s"] = benchmark::Counter(simulated, benchmark::Counter::kIsRate);
  bench.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(bench.iterations()) * batch,
                                                     benchmark::Counter::kIsRate);
  bench.counters["dt_s"] = dt;
  bench.counters["hinges"] = static_cast<double>(qpos.size());
  bench.counters["contacts"] = d->ncon;
  bench.counters["mass_kg"] = mass;
  bench.counters["armature_max"] = armature;
  // The base's height change over the run (mm): a few mm means it stood.
  bench.counters["base_drop_mm"] = 1e3 * (start_height - d->qpos[2]);
}

void mujocoStand(benchmark::State& bench, mjtIntegrator integrator) { mujocoScene(bench, kScene, integrator); }
void mujocoStand1ms(benchmark::State& bench, mjtIntegrator integrator) { mujocoScene(bench, kScene1ms, integrator); }

void humanoid(benchmark::State& bench, const std::string& scene_file) { suitsim::bench::humanoidScene(bench, scene_file); }

// The link models against MuJoCo: the fixed-base JVRC-1 PD cross-check of
// tests/engine/mujoco_fidelity_test.cpp (44 joints, no contact, 3 s), with
// suitsim's velocity Verlet at `dt` on Toda and Sankai's spring links at
// `link_frequency` (0: the rigid links) against MuJoCo's RK4 at the same
// step. Counters: the worst joint-angle difference (rad) and suitsim's
// real-time factor on this robot. One iteration: it is a measurement of
// error, timed as a by-product.
void linkModelAgainstMujoco(benchmark::State& bench, double link_frequency, double dt) {
  namespace t = suitsim::testing;
  const suitsim::RobotDescription robot = t::fixedJvrc();
  const t::Reference ref = t::makeReference(robot);
  const int n = static_cast<int>(ref.joints.size());
  suitsim::RobotCompileOptions options;
  if (link_frequency > 0.0) {
    options.link_frequency = link_frequency;
    options.hinge.link_model = suitsim::LinkModel::kSprings;
  }
  for (auto _ : bench) {
    t::SuitsimJvrc ours(robot, ref, dt, suitsim::Integrator::kVelocityVerlet, options);
    t::MujocoJvrc theirs(ref, dt, mjINT_RK4, t::referenceMotion(ref));
    double omega_dt = 0.0;
    for (const suitsim::LinkMode& l : suitsim::linkModes(ours.model())) omega_dt = std::max(omega_dt, l.omega * dt / l.bound);
    int skipped = 0;
    const double worst = t::worstDifference(ours, theirs, n, dt, &skipped);
    // suitsim alone, for its speed: the same run without MuJoCo beside it.
    t::SuitsimJvrc timed(robot, ref, dt, suitsim::Integrator::kVelocityVerlet, options);
    const long steps = std::lround(1.0 / dt);
    const auto start = std::chrono::steady_clock::now();
    for (long k = 0; k < steps; ++k) timed.step();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    bench.counters["worst_rad"] = worst;
    bench.counters["skipped_updates"] = skipped;
    bench.counters["suitsim_sim_s_per_s"] = 1.0 / wall;
    bench.counters["suitsim_steps_per_s"] = static_cast<double>(steps) / wall;
    if (omega_dt > 0.0) bench.counters["link_omega_dt_of_bound"] = omega_dt;
    // On stderr: stdout may carry the benchmark's own JSON.
    char links[64] = "rigid links";
    if (link_frequency > 0.0) std::snprintf(links, sizeof links, "springs at link_frequency %g rad/s", link_frequency);
    std::fprintf(stderr,
                 "[measured] JVRC-1 fixed base, 3 s, %s, suitsim Verlet vs MuJoCo RK4 at dt %g s: worst joint-angle "
                 "difference %.3g rad; suitsim alone %.3g x real time\n",
                 links, dt, worst, 1.0 / wall);
  }
  bench.counters["link_frequency"] = link_frequency;
  bench.counters["dt_s"] = dt;
}

BENCHMARK_CAPTURE(humanoid, stand, kScene)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(mujocoStand, euler, mjINT_EULER)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(mujocoStand, rk4, mjINT_RK4)->Unit(benchmark::kMillisecond)->MinTime(2.0);
// With the rotors at 1 ms (MuJoCo's default step).
BENCHMARK_CAPTURE(humanoid, stand_1ms, kScene1ms)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(mujocoStand1ms, euler, mjINT_EULER)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(mujocoStand1ms, rk4, mjINT_RK4)->Unit(benchmark::kMillisecond)->MinTime(2.0);
// link_frequency 0: the rigid links. 6.5e4 rad/s is about the stiffest a 2e-5 s step follows.
BENCHMARK_CAPTURE(linkModelAgainstMujoco, rigid_dt2e-5, 0.0, 2e-5)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(linkModelAgainstMujoco, springs_6e4_dt2e-5, 6e4, 2e-5)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(linkModelAgainstMujoco, springs_2e4_dt2e-5, 2e4, 2e-5)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(linkModelAgainstMujoco, springs_2e4_dt6e-5, 2e4, 6e-5)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(linkModelAgainstMujoco, springs_6e3_dt2e-4, 6e3, 2e-4)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(linkModelAgainstMujoco, springs_2e5_dt6e-6, 2e5, 6e-6)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
