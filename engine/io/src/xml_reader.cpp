#include "xml_reader.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <sstream>

#include "suitsim/io/scene.h"

namespace suitsim::io {

namespace {

std::string location(const std::string& path, const tinyxml2::XMLElement* e) {
  std::ostringstream out;
  out << path << ":" << e->GetLineNum() << ": <" << e->Name() << ">";
  return out.str();
}

std::vector<std::string> splitWhitespace(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> parts;
  std::string part;
  while (in >> part) parts.push_back(part);
  return parts;
}

}  // namespace

bool parseNumber(const std::string& s, double* out) {
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(*begin))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(end[-1]))) --end;
  if (begin < end && *begin == '+') ++begin;  // from_chars refuses a leading '+'
  double value = 0.0;
  const auto result = std::from_chars(begin, end, value);
  if (result.ec != std::errc() || result.ptr != end || begin == end) return false;
  if (!std::isfinite(value)) return false;
  *out = value;
  return true;
}

void loadXml(const std::string& path, tinyxml2::XMLDocument& doc) {
  const tinyxml2::XMLError err = doc.LoadFile(path.c_str());
  if (err == tinyxml2::XML_ERROR_FILE_NOT_FOUND || err == tinyxml2::XML_ERROR_FILE_COULD_NOT_BE_OPENED ||
      err == tinyxml2::XML_ERROR_FILE_READ_ERROR) {
    throw SceneError(path + ": cannot open file");
  }
  if (err != tinyxml2::XML_SUCCESS) {
    std::ostringstream out;
    out << path << ":" << doc.ErrorLineNum() << ": malformed XML (" << doc.ErrorName() << ")";
    throw SceneError(out.str());
  }
  if (doc.RootElement() == nullptr) throw SceneError(path + ":1: no root element");
}

void rejectUnknownChildren(const std::string& path, const tinyxml2::XMLElement* parent,
                           std::initializer_list<const char*> allowed) {
  for (const tinyxml2::XMLElement* c = parent->FirstChildElement(); c; c = c->NextSiblingElement()) {
    bool known = false;
    for (const char* a : allowed) known = known || std::strcmp(a, c->Name()) == 0;
    if (!known) {
      std::ostringstream out;
      out << location(path, c) << " unknown element inside <" << parent->Name() << "> (allowed:";
      for (const char* a : allowed) out << " <" << a << ">";
      out << ")";
      throw SceneError(out.str());
    }
  }
}

ElementReader::ElementReader(const std::string& path, const tinyxml2::XMLElement* element,
                             std::initializer_list<const char*> allowed)
    : path_(path), element_(element) {
  for (const tinyxml2::XMLAttribute* a = element->FirstAttribute(); a; a = a->Next()) {
    bool known = false;
    for (const char* name : allowed) known = known || std::strcmp(name, a->Name()) == 0;
    if (!known) {
      std::ostringstream out;
      out << "unknown attribute '" << a->Name() << "' (allowed:";
      for (const char* name : allowed) out << " " << name;
      out << ")";
      fail(out.str());
    }
  }
}

void ElementReader::fail(const std::string& problem) const {
  throw SceneError(location(path_, element_) + " " + problem);
}

void ElementReader::failAttribute(const char* name, const std::string& problem) const {
  std::string message = "attribute '" + std::string(name) + "' " + problem;
  if (const char* value = raw(name)) message += " (got '" + std::string(value) + "')";
  fail(message);
}

const char* ElementReader::raw(const char* name) const { return element_->Attribute(name); }

bool ElementReader::has(const char* name) const { return raw(name) != nullptr; }

std::string ElementReader::text(const char* name) const {
  const char* value = raw(name);
  if (!value) fail("missing required attribute '" + std::string(name) + "'");
  return value;
}

std::string ElementReader::text(const char* name, const std::string& fallback) const {
  const char* value = raw(name);
  return value ? std::string(value) : fallback;
}

double ElementReader::number(const char* name) const {
  const std::string s = text(name);
  double value = 0.0;
  if (!parseNumber(s, &value)) failAttribute(name, "must be a finite number");
  return value;
}

double ElementReader::number(const char* name, double fallback) const {
  return has(name) ? number(name) : fallback;
}

int ElementReader::integer(const char* name) const {
  const std::string s = text(name);
  int value = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), value);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty()) {
    failAttribute(name, "must be an integer");
  }
  return value;
}

int ElementReader::integer(const char* name, int fallback) const {
  return has(name) ? integer(name) : fallback;
}

bool ElementReader::boolean(const char* name, bool fallback) const {
  if (!has(name)) return fallback;
  const std::string s = text(name);
  if (s == "true" || s == "1") return true;
  if (s == "false" || s == "0") return false;
  failAttribute(name, "must be true or false");
}

Vec3 ElementReader::vec3(const char* name) const {
  const std::vector<std::string> parts = splitWhitespace(text(name));
  if (parts.size() != 3) failAttribute(name, "must be three numbers");
  Vec3 v{};
  for (int k = 0; k < 3; ++k) {
    if (!parseNumber(parts[k], &v[k])) failAttribute(name, "must be three finite numbers");
  }
  return v;
}

Vec3 ElementReader::vec3(const char* name, const Vec3& fallback) const {
  return has(name) ? vec3(name) : fallback;
}

std::vector<int> ElementReader::integers(const char* name, std::size_t count) const {
  const std::vector<std::string> parts = splitWhitespace(text(name));
  if (parts.size() != count) failAttribute(name, "must be " + std::to_string(count) + " integers");
  std::vector<int> values(count);
  for (std::size_t k = 0; k < count; ++k) {
    const auto r = std::from_chars(parts[k].data(), parts[k].data() + parts[k].size(), values[k]);
    if (r.ec != std::errc() || r.ptr != parts[k].data() + parts[k].size()) {
      failAttribute(name, "must be " + std::to_string(count) + " integers");
    }
  }
  return values;
}

double ElementReader::positive(const char* name, double value) const {
  if (!(value > 0.0)) failAttribute(name, "must be > 0");
  return value;
}

double ElementReader::nonNegative(const char* name, double value) const {
  if (!(value >= 0.0)) failAttribute(name, "must be >= 0");
  return value;
}

}  // namespace suitsim::io
