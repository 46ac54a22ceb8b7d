// Loading a URDF robot into MuJoCo (Debian's libmujoco-dev 2.2.2) for the
// cross-check test (tests/engine/mujoco_fidelity_test.cpp) and the
// side-by-side benchmark (bench/mujoco_bench.cpp). Header-only; include it
// only where SUITSIM_HAVE_MUJOCO is defined.
//
// MuJoCo reads the URDF itself (its own conversion, independent of ours),
// after three edits of the text:
//   - <visual> and <collision> are removed: their meshes are not shipped, and
//     geometry must not feed the inertias;
//   - a <mujoco><compiler> block keeps every link a body of its own
//     (fusestatic="false": by default MuJoCo fuses a link welded to a fixed
//     base into the world, and JVRC-1's 10 kg pelvis vanishes from the body
//     masses), takes the inertias from <inertial> only and leaves them as
//     written (no balancing, no lower bounds on mass or inertia);
//   - the caller's own edits (a floating root, foot geometry, frozen joints).
// The text is handed over through MuJoCo's virtual file system: no temporary
// files.
#pragma once

#include <mujoco/mujoco.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

namespace suitsim::testing {

/// Removes every <tag ...>...</tag> and <tag .../> element from XML text
/// (elements of that tag must not nest, as URDF's <visual> and <collision> do not).
inline std::string removeXmlElements(std::string text, const std::string& tag) {
  const std::string open = "<" + tag, close = "</" + tag + ">";
  std::size_t at = 0;
  while ((at = text.find(open, at)) != std::string::npos) {
    const char next = text[at + open.size()];
    if (next != ' ' && next != '>' && next != '/' && next != '\n' && next != '\t' && next != '\r') {
      at += open.size();  // a longer tag name that starts with `tag`
      continue;
    }
    const std::size_t tag_end = text.find('>', at);
    if (tag_end == std::string::npos) throw std::runtime_error("unterminated <" + tag + ">");
    std::size_t end = tag_end + 1;
    if (text[tag_end - 1] != '/') {
      const std::size_t c = text.find(close, tag_end);
      if (c == std::string::npos) throw std::runtime_error("<" + tag + "> without " + close);
      end = c + close.size();
    }
    text.erase(at, end - at);
  }
  return text;
}

/// Inserts `addition` right after the first occurrence of `anchor`; throws
/// when the anchor is missing, so an edit can never silently do nothing.
inline std::string insertAfter(std::string text, const std::string& anchor, const std::string& addition) {
  const std::size_t at = text.find(anchor);
  if (at == std::string::npos) throw std::runtime_error("no '" + anchor + "' in the URDF text");
  text.insert(at + anchor.size(), addition);
  return text;
}

/// Replaces `from` with `to` inside the tag that starts with `anchor` (up to
/// its closing '>'); throws when either is missing.
inline std::string replaceInTag(std::string text, const std::string& anchor, const std::string& from,
                                const std::string& to) {
  const std::size_t a = text.find(anchor);
  if (a == std::string::npos) throw std::runtime_error("no '" + anchor + "' in the URDF text");
  const std::size_t at = text.find(from, a);
  if (at == std::string::npos || at > text.find('>', a)) {
    throw std::runtime_error("no '" + from + "' in the tag '" + anchor + "'");
  }
  text.replace(at, from.size(), to);
  return text;
}

/// Replaces the <inertial> element of link `link` with `inertial`; throws
/// when the link or its <inertial> is missing.
inline std::string replaceLinkInertial(std::string text, const std::string& link, const std::string& inertial) {
  const std::size_t a = text.find("<link name=\"" + link + "\"");
  if (a == std::string::npos) throw std::runtime_error("no link '" + link + "' in the URDF text");
  const std::size_t begin = text.find("<inertial", a);
  const std::size_t end = text.find("</inertial>", a);
  if (begin == std::string::npos || end == std::string::npos || begin > text.find("<link", a + 1)) {
    throw std::runtime_error("link '" + link + "' has no <inertial> in the URDF text");
  }
  text.replace(begin, end + std::string("</inertial>").size() - begin, inertial);
  return text;
}

/// The URDF file's text without visual and collision elements, with the
/// compiler settings above inside its <robot> element.
inline std::string mujocoUrdfText(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = removeXmlElements(removeXmlElements(buffer.str(), "visual"), "collision");
  const std::size_t robot = text.find("<robot");
  if (robot == std::string::npos) throw std::runtime_error(path + ": no <robot>");
  const std::size_t robot_end = text.find('>', robot);
  text.insert(robot_end + 1,
              "\n<mujoco><compiler fusestatic=\"false\" discardvisual=\"true\" inertiafromgeom=\"false\""
              " balanceinertia=\"false\" boundmass=\"0\" boundinertia=\"0\"/></mujoco>\n");
  return text;
}

struct MujocoModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct MujocoDataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};
using MujocoModel = std::unique_ptr<mjModel, MujocoModelDeleter>;
using MujocoData = std::unique_ptr<mjData, MujocoDataDeleter>;

/// Compiles URDF (or MJCF) text with MuJoCo; throws with MuJoCo's message.
inline MujocoModel loadMujocoText(const std::string& text, const std::string& file_name) {
  auto vfs = std::make_unique<mjVFS>();  // about 2 MB: not on the stack
  mj_defaultVFS(vfs.get());
  if (mj_makeEmptyFileVFS(vfs.get(), file_name.c_str(), static_cast<int>(text.size())) != 0) {
    throw std::runtime_error("MuJoCo VFS refused " + file_name);
  }
  const int index = mj_findFileVFS(vfs.get(), file_name.c_str());
  text.copy(static_cast<char*>(vfs->filedata[index]), text.size());
  char error[1024] = "";
  MujocoModel model(mj_loadXML(file_name.c_str(), vfs.get(), error, sizeof(error)));
  mj_deleteVFS(vfs.get());
  if (!model) throw std::runtime_error("MuJoCo could not load " + file_name + ": " + error);
  return model;
}

}  // namespace suitsim::testing
