// The parts of suitsim._core, each defined in its own file and added to the
// module by module.cpp.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "scene_loading.h"

namespace suitsim::python {

/// A scene as load_scene made it: where it came from, and its trials as
/// prepared (for inspection; runs and simulations prepare their own).
struct SceneHandle {
  SceneSource source;
  std::vector<experiment::TrialJob> jobs;
  std::vector<std::string> warnings;
};

/// read_table(path): a CSV file as `suitsim run` writes it (tables.cpp).
void bindTables(pybind11::module_& m);

/// Simulation: stepping a trial with the caller's own controller (simulation.cpp).
void bindSimulation(pybind11::module_& m);

/// sweep(), budget(): the sweep library's runs (sweeps.cpp).
void bindSweeps(pybind11::module_& m);

/// Runs `work` on a thread of its own with the GIL released, while this
/// thread polls Python's signal handlers: Ctrl-C sets the libraries' stop
/// request (core/stop.h), whose loops then stop; the request is withdrawn
/// and KeyboardInterrupt raised once `work` has returned. An exception of
/// `work` is rethrown here.
void runInterruptible(const std::function<void()>& work);

}  // namespace suitsim::python
