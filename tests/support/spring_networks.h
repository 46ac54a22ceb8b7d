// Spring networks for the spring kernel's tests (springs_test.cpp, the
// per-CPU comparison of isa_trajectory.h): a cloth lattice whose springs
// do not all share their parameters, so that the kernel meets fused blocks
// whose eight springs share k, c and l0's neighbourhood and blocks whose
// springs differ.
#pragma once

#include <random>
#include <string>

#include "suitsim/builder.h"

namespace suitsim::testing {

/// An nu x nv cloth in the plane y = origin y, with addCloth's springs
/// (structural, shear, bending; rest lengths from the positions, 1 g
/// particles), whose stiffness and damping vary: a spring whose `a` end
/// lies in a column that is a multiple of 11 takes 1.5 k (a block of
/// eight along a row that covers such a column mixes two stiffnesses), one
/// in a row j with j % 7 == 3 takes 2 c (whole blocks differ from the
/// rest). Returns the first particle.
inline int addVariedCloth(ModelBuilder& b, const std::string& name, Vec3 origin, int nu, int nv, double spacing,
                          double k, double c) {
  const int first = b.numParticles();
  for (int j = 0; j < nv; ++j) {
    for (int i = 0; i < nu; ++i) {
      b.addParticle({.name = name + "." + std::to_string(j * nu + i),
                     .position = {origin[0] + i * spacing, origin[1], origin[2] + j * spacing},
                     .mass = 1e-3});
    }
  }
  auto id = [&](int i, int j) { return first + j * nu + i; };
  auto spring = [&](int i, int j, int i2, int j2, double scale) {
    const double stiffness = (i % 11 == 0 ? 1.5 : 1.0) * scale * k;
    const double damping = j % 7 == 3 ? 2.0 * c : c;
    b.addSpring({id(i, j), id(i2, j2), stiffness, damping, -1.0});
  };
  for (int j = 0; j < nv; ++j) {
    for (int i = 0; i < nu; ++i) {
      if (i + 1 < nu) spring(i, j, i + 1, j, 1.0);
      if (j + 1 < nv) spring(i, j, i, j + 1, 1.0);
      if (i + 1 < nu && j + 1 < nv) {
        spring(i, j, i + 1, j + 1, 1.0);
        spring(i + 1, j, i, j + 1, 1.0);
      }
      if (i + 2 < nu) spring(i, j, i + 2, j, 0.1);
      if (j + 2 < nv) spring(i, j, i, j + 2, 0.1);
    }
  }
  return first;
}

/// `count` springs between pairs of distinct particles drawn at random
/// (seed `seed`), of stiffness k, k + 1, ..., k + 4 in turn, damping c,
/// rest lengths from the positions: no runs, the kernel's gathers.
inline void addRandomSprings(ModelBuilder& b, int count, unsigned seed, double k, double c) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(0, b.numParticles() - 1);
  for (int added = 0; added < count;) {
    const int i = pick(rng), j = pick(rng);
    if (i != j) {
      b.addSpring({i, j, k + added % 5, c, -1.0});
      ++added;
    }
  }
}

}  // namespace suitsim::testing
