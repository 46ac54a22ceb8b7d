// The world's elements in a scene: the ground, particles, springs, cloths
// and blocks (with the memory a lattice needs checked before it is built),
// and the channels <record> names. Private to the scene library.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "suitsim/builder.h"
#include "suitsim/recorder.h"
#include "suitsim/scene/xml_reader.h"

namespace suitsim::io {

/// Everything the reader has named so far: particles, springs and bodies.
struct Names {
  std::map<std::string, int> particles;
  std::map<std::string, int> springs;  // input index
  std::map<std::string, std::vector<int>> bodies;
  double lattice_bytes = 0.0;       // what `particles` and `bodies` hold for the lattices so far (estimate)
  double longest_name = 0.0;        // the longest generated particle name's length
  double lattice_contacts = 0.0;    // lattice particles that may touch the ground
};

GroundModel readGround(const ElementReader& r);
void readParticle(const ElementReader& r, ModelBuilder& builder, Names& names);
void readSpring(const ElementReader& r, ModelBuilder& builder, Names& names);
void readCloth(const ElementReader& r, ModelBuilder& builder, Names& names);
void readBlock(const ElementReader& r, ModelBuilder& builder, Names& names);
/// A <record> channel on the built model.
ChannelSpec readRecord(const ElementReader& r, const Model& model, const Names& names);

}  // namespace suitsim::io
