// The check every bad-input test makes of an error message: it names what it
// must (the file, "file:line:", the fragments) and is one line.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace suitsim::testing {

/// Success when `message` holds every string of `wanted` and no newline (one
/// error, one line: a message is not a list of complaints).
inline ::testing::AssertionResult namesAllOnOneLine(const std::string& message, const std::vector<std::string>& wanted) {
  for (const std::string& w : wanted) {
    if (message.find(w) == std::string::npos) {
      return ::testing::AssertionFailure() << "message lacks \"" << w << "\": " << message;
    }
  }
  if (message.find('\n') != std::string::npos) return ::testing::AssertionFailure() << "multi-line: " << message;
  return ::testing::AssertionSuccess();
}

}  // namespace suitsim::testing
