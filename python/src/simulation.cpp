// Stepping one trial from Python: the experiment library's TrialRunner (the
// one stepping loop every front end uses, runner.h), with or without the
// scene's servo. Without it the caller is the controller: it reads the
// state between steps and sets the motor currents (State::hinge_current,
// held over a step as the servo's are), and the runner does the rest in the
// same order as `suitsim run`: integrator step, device controller, external
// forces.
#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "suitsim/articulated.h"
#include "suitsim/core/stop.h"
#include "suitsim/experiment/runner.h"
#include "suitsim/sensors.h"
#include "suitsim/step.h"

namespace py = pybind11;

namespace suitsim::python {

namespace {

class Simulation {
 public:
  Simulation(const SceneHandle& scene, const std::string& trial, bool servo) {
    SceneSource source = scene.source;
    if (!trial.empty()) {
      source.trial = trial;
    } else if (source.trial.empty()) {
      source.trial = scene.jobs.front().scene.trial.name;  // the first trial alone: no need to read the others
    }
    std::vector<experiment::TrialJob> jobs;
    {
      py::gil_scoped_release release;
      jobs = prepare(source, {});
    }
    experiment::TrialJob& job = jobs.front();
    scene_ = std::make_unique<io::Scene>(std::move(job.scene));
    if (!servo && scene_->robot) scene_->robot->has_servo = false;
    // The robot's sensors, as a run logs them: made for the model where it
    // now is (the move above relocated it), with the overrides applied.
    if (job.sensors) {
      sensors_ = std::make_unique<Sensors>(scene_->model, *scene_->robot->sensors, scene_->simulation.dt);
      row_.assign(sensors_->columns().size(), 0.0);
    }
    runner_ = std::make_unique<experiment::TrialRunner>(*scene_, scene_->simulation.threads > 0 ? scene_->simulation.threads : 1,
                                                        sensors_.get());
    double stamp = 0.0;
    if (runner_->start(row_.data(), &stamp)) keepRow(stamp);
  }

  /// n steps; a non-finite state is a divergence (RuntimeError), as in a run.
  void step(long n) {
    if (n < 0) throw std::invalid_argument("step: n must be >= 0 (got " + std::to_string(n) + ")");
    const auto work = [this, n] {
      for (long k = 0; k < n; ++k) {
        double stamp = 0.0;
        if (runner_->advance(row_.data(), &stamp)) keepRow(stamp);
        // The check costs a pass over the state: every 256 steps and at the end.
        if (((k + 1) & 255) == 0 || k + 1 == n) {
          if (!stateIsFinite(runner_->state())) {
            char message[200];
            std::snprintf(message, sizeof message,
                          "the simulation diverged at t = %.6g s (a position or velocity became non-finite)",
                          runner_->state().time);
            throw std::runtime_error(message);
          }
          throwIfStopped();
        }
      }
    };
    // Long calls can be interrupted with Ctrl-C; a short one is not worth a thread.
    if (n >= 4096) {
      runInterruptible(work);
    } else {
      py::gil_scoped_release release;
      work();
    }
  }

  const Model& model() const { return scene_->model; }
  const Sensors* sensors() const { return sensors_.get(); }
  /// The rows logged so far: (rows x (1 + channels)), time first.
  const std::vector<double>& log() const { return log_; }
  State& state() { return runner_->state(); }
  const io::Scene& scene() const { return *scene_; }
  double dt() const { return scene_->simulation.dt; }

 private:
  std::unique_ptr<io::Scene> scene_;  // the runner points into it: it must not move
  std::unique_ptr<Sensors> sensors_;  // null: the robot has no <sensors>
  std::unique_ptr<experiment::TrialRunner> runner_;
  std::vector<double> row_, log_;

  void keepRow(double stamp) {
    log_.push_back(stamp);
    log_.insert(log_.end(), row_.begin(), row_.end());
  }
};

/// A NumPy array over `data` (not a copy), kept alive by `owner`.
py::array_t<double> view(std::vector<double>& data, py::handle owner, bool writeable) {
  py::array_t<double> a({data.size()}, {sizeof(double)}, data.data(), owner);
  if (!writeable) a.attr("flags").attr("writeable") = false;
  return a;
}

py::array_t<double> perHinge(const Simulation& s, double (*read)(const Model&, const State&, int)) {
  py::array_t<double> a(s.model().num_hinges);
  auto out = a.mutable_unchecked<1>();
  State& state = const_cast<Simulation&>(s).state();
  for (int h = 0; h < s.model().num_hinges; ++h) out(h) = read(s.model(), state, h);
  return a;
}

py::array_t<double> particles(const Vec3Array& v) {
  py::array_t<double> a({v.size(), std::size_t{3}});
  auto out = a.mutable_unchecked<2>();
  for (std::size_t i = 0; i < v.size(); ++i) {
    out(i, 0) = v.x[i];
    out(i, 1) = v.y[i];
    out(i, 2) = v.z[i];
  }
  return a;
}

}  // namespace

void bindSimulation(py::module_& m) {
  py::class_<Simulation>(m, "Simulation")
      .def(py::init<const SceneHandle&, const std::string&, bool>(), py::arg("scene"), py::arg("trial"),
           py::arg("servo"))
      .def("step", &Simulation::step, py::arg("n") = 1)
      .def_property_readonly("time", [](Simulation& s) { return s.state().time; })
      .def_property_readonly("dt", &Simulation::dt)
      .def_property_readonly("joint_names", [](const Simulation& s) { return s.model().hinge_name; })
      .def_property_readonly("particle_names", [](const Simulation& s) { return s.model().particle_name; })
      // Views: the arrays the engine itself reads and writes.
      .def_property_readonly("joint_angles",
                             [](py::object self) {
                               return view(self.cast<Simulation&>().state().hinge_angle, self, false);
                             })
      .def_property_readonly("currents",
                             [](py::object self) {
                               return view(self.cast<Simulation&>().state().hinge_current, self, true);
                             })
      // Computed on each read (copies).
      .def_property_readonly("joint_rates", [](const Simulation& s) { return perHinge(s, jointVelocity); })
      .def_property_readonly("encoder_angles", [](const Simulation& s) { return perHinge(s, encoderAngle); })
      .def_property_readonly("encoder_rates", [](const Simulation& s) { return perHinge(s, encoderVelocity); })
      .def_property_readonly("sensor_channels",
                             [](const Simulation& s) {
                               return s.sensors() ? s.sensors()->columns() : std::vector<std::string>{};
                             })
      .def_property_readonly("sensor_log",
                             [](const Simulation& s) {
                               const std::size_t cols = 1 + (s.sensors() ? s.sensors()->columns().size() : 0);
                               py::array_t<double> a({s.log().size() / cols, cols});
                               std::copy(s.log().begin(), s.log().end(), a.mutable_data());
                               return a;
                             })
      .def_property_readonly("contact_forces",
                             [](Simulation& s) {
                               const int n = static_cast<int>(s.model().contact_particle.size());
                               py::array_t<double> a({static_cast<std::size_t>(n), std::size_t{3}});
                               auto out = a.mutable_unchecked<2>();
                               for (int c = 0; c < n; ++c) {
                                 const Vec3 f = groundForce(s.model(), s.state(), c);
                                 for (int i = 0; i < 3; ++i) out(c, i) = f[i];
                               }
                               return a;
                             })
      .def_property_readonly("positions", [](Simulation& s) { return particles(s.state().position); })
      .def_property_readonly("velocities", [](Simulation& s) { return particles(s.state().velocity); })
      .def(
          "set_joint_torques",
          [](Simulation& s, py::array_t<double, py::array::c_style | py::array::forcecast> torque) {
            const Model& model = s.model();
            if (torque.ndim() != 1 || torque.shape(0) != model.num_hinges) {
              throw std::invalid_argument("set_joint_torques: needs one torque per joint (" +
                                          std::to_string(model.num_hinges) + ")");
            }
            auto tau = torque.unchecked<1>();
            // A(6) inverted, as the servo commands it: u = (tau - tau_o) / k_T.
            for (int h = 0; h < model.num_hinges; ++h) {
              s.state().hinge_current[h] = (tau(h) - model.hinge_torque_offset[h]) / model.hinge_motor_constant[h];
            }
          },
          py::arg("torque"))
      .def_property_readonly("motor_constants", [](const Simulation& s) { return s.model().hinge_motor_constant; })
      .def_property_readonly("torque_offsets", [](const Simulation& s) { return s.model().hinge_torque_offset; })
      .def_property_readonly("servo_gains",
                             [](const Simulation& s) {
                               std::vector<double> kp, kd;
                               if (s.scene().robot) {
                                 for (const ServoGains& g : s.scene().robot->gains) {
                                   kp.push_back(g.kp);
                                   kd.push_back(g.kd);
                                 }
                               }
                               return py::make_tuple(kp, kd);
                             })
      .def_property_readonly("servo_rate",
                             [](const Simulation& s) { return s.scene().robot ? s.scene().robot->servo_rate : 0.0; })
      .def(
          "reference",
          [](const Simulation& s, double t) {
            // The scene motion's angles and rates at t for the joints it names.
            const Model& model = s.model();
            std::vector<double> angle(model.num_hinges, std::nan("")), rate(model.num_hinges, std::nan(""));
            if (s.scene().robot) {
              const Motion& motion = s.scene().robot->motion;
              std::vector<double> a(motion.hinges().size()), r(motion.hinges().size());
              if (!a.empty()) motion.sample(t, a.data(), r.data());
              for (std::size_t j = 0; j < a.size(); ++j) {
                angle[motion.hinges()[j]] = a[j];
                rate[motion.hinges()[j]] = r[j];
              }
            }
            return py::make_tuple(angle, rate);
          },
          py::arg("t"));
}

}  // namespace suitsim::python
