// The designed scene (design_scene.h).
#include "suitsim/design/design_scene.h"
#include "suitsim/core/number_text.h"

#include <tinyxml2.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <stdexcept>

namespace suitsim::design {

namespace {

}  // namespace

std::string designScene(const std::string& scene_path, const std::vector<DesignedTrial>& trials,
                        const std::vector<std::string>& joint_names, KeepTrials keep) {
  tinyxml2::XMLDocument doc;
  if (doc.LoadFile(scene_path.c_str()) != tinyxml2::XML_SUCCESS || !doc.RootElement()) {
    throw std::invalid_argument(scene_path + ": cannot be read again");
  }
  tinyxml2::XMLElement* root = doc.RootElement();
  tinyxml2::XMLElement* robot = root->FirstChildElement("robot");
  tinyxml2::XMLElement* experiment = root->FirstChildElement("experiment");
  if (!robot || !experiment) throw std::invalid_argument(scene_path + ": needs a <robot> and an <experiment>");

  // Trials out: the identification ones, unless kept; the others unless kept.
  std::set<std::string> kept_motions, dropped_motions;
  tinyxml2::XMLNode* insert_after = nullptr;  // null: first in <experiment>
  bool placed = false;
  for (tinyxml2::XMLElement* t = experiment->FirstChildElement("trial"); t;) {
    tinyxml2::XMLElement* next = t->NextSiblingElement("trial");
    const char* purpose = t->Attribute("purpose");
    const char* motion = t->Attribute("motion");
    const bool identification = purpose && std::string(purpose) == "identification";
    const bool drop = identification ? keep != KeepTrials::kIdentification : keep != KeepTrials::kEvaluation;
    if (drop) {
      if (identification && motion) dropped_motions.insert(motion);
      if (!placed) {
        insert_after = t->PreviousSibling();
        placed = true;
      }
      experiment->DeleteChild(t);
    } else if (motion) {
      kept_motions.insert(motion);
    }
    t = next;
  }
  // Motions only the dropped identification trials used go too; the names
  // of the new ones must not clash with what stays.
  std::set<std::string> names, reused_names;
  for (const DesignedTrial& d : trials) {
    if (d.motion->source == "scene") reused_names.insert(d.motion->name);
  }
  tinyxml2::XMLNode* last_motion = nullptr;
  for (tinyxml2::XMLElement* m = robot->FirstChildElement("motion"); m;) {
    tinyxml2::XMLElement* next = m->NextSiblingElement("motion");
    const char* name = m->Attribute("name");
    if (name && dropped_motions.count(name) && !kept_motions.count(name) && !reused_names.count(name) &&
        keep == KeepTrials::kEvaluation) {
      robot->DeleteChild(m);
    } else {
      if (name) names.insert(name);
      last_motion = m;
    }
    m = next;
  }
  for (const DesignedTrial& d : trials) {
    if (names.count(d.name)) throw std::invalid_argument(scene_path + ": already has a motion named '" + d.name + "'");
  }

  for (const DesignedTrial& d : trials) {
    if (d.motion->source == "scene") continue;  // its own <motion> stays
    tinyxml2::XMLElement* motion = doc.NewElement("motion");
    motion->SetAttribute("name", d.name.c_str());
    const CandidateMotion& c = *d.motion;
    if (!d.file.empty()) {
      motion->SetAttribute("file", d.file.c_str());
    } else {
      const std::size_t nj = c.joints().size();
      for (std::size_t k = 0; k < c.time.size(); ++k) {
        tinyxml2::XMLElement* key = motion->InsertNewChildElement("keyframe");
        key->SetAttribute("time", shortestText(c.time[k]).c_str());
        std::string angles;
        for (std::size_t i = 0; i < nj; ++i) {
          if (!angles.empty()) angles += ' ';
          angles += joint_names[static_cast<std::size_t>(c.joints()[i])] + ":" + shortestText(c.angles[k * nj + i]);
        }
        key->SetAttribute("angles", angles.c_str());
      }
    }
    last_motion = last_motion ? robot->InsertAfterChild(last_motion, motion) : robot->InsertEndChild(motion);
  }
  for (const DesignedTrial& d : trials) {
    tinyxml2::XMLElement* trial = doc.NewElement("trial");
    trial->SetAttribute("name", d.name.c_str());
    trial->SetAttribute("motion", d.motion->source == "scene" ? d.motion->name.c_str() : d.name.c_str());
    trial->SetAttribute("purpose", "identification");
    insert_after = insert_after ? experiment->InsertAfterChild(insert_after, trial) : experiment->InsertFirstChild(trial);
  }
  // The input's file names keep meaning what they meant beside it.
  std::filesystem::path base_dir = std::filesystem::absolute(std::filesystem::path(scene_path)).parent_path();
  if (const char* given = root->Attribute("relative_to")) base_dir /= given;  // an absolute one replaces
  root->SetAttribute("relative_to", base_dir.lexically_normal().string().c_str());
  root->InsertFirstChild(doc.NewComment(
      (" written by suitsim design-motions from " + scene_path +
       ": its identification trials replaced by the designed motions (docs/design-motions.md) ")
          .c_str()));
  tinyxml2::XMLPrinter printer;
  doc.Print(&printer);
  return std::string(printer.CStr(), static_cast<std::size_t>(std::max(0, printer.CStrSize() - 1)));
}

std::string motionCsv(const CandidateMotion& motion, const std::vector<std::string>& joint_names, double dt) {
  const std::vector<int>& joints = motion.joints();
  std::string out = "time[s]";
  for (int j : joints) out += "," + joint_names[static_cast<std::size_t>(j)] + "[rad]";
  out += "\n";
  std::vector<double> angle(joints.size()), rate(joints.size());
  const int n = static_cast<int>(std::ceil(motion.duration() / dt - 1e-9));
  for (int k = 0; k <= n; ++k) {
    const double t = std::min(k * dt, motion.duration());
    motion.reference.sample(t, angle.data(), rate.data());
    out += shortestText(t);
    for (double a : angle) {
      out += ',';
      out += shortestText(a);
    }
    out += "\n";
  }
  return out;
}

}  // namespace suitsim::design
