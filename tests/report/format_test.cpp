// Numbers in the report carry significant digits that suit their size: a
// small robot's torques (hundredths of a newton-metre) must not print as 0.00.
#include <gtest/gtest.h>

#include <cmath>

#include "suitsim/report/report.h"

namespace {

using suitsim::report::formatSig;

TEST(FormatSig, KeepsSignificantDigitsAtEveryScale) {
  EXPECT_EQ(formatSig(0.0123), "0.0123");
  EXPECT_EQ(formatSig(0.000456), "0.000456");
  EXPECT_EQ(formatSig(1.23456), "1.23");
  EXPECT_EQ(formatSig(12.3456), "12.3");
  EXPECT_EQ(formatSig(197.8, 4), "197.8");
  EXPECT_EQ(formatSig(12604.6), "12605");
  EXPECT_EQ(formatSig(70.3305, 6), "70.3305");
  EXPECT_EQ(formatSig(-0.0871), "-0.0871");
}

TEST(FormatSig, ExtremesUseAnExponentAndZeroIsZero) {
  EXPECT_EQ(formatSig(0.0), "0");
  EXPECT_EQ(formatSig(3.2e-7), "3.20e-07");
  EXPECT_EQ(formatSig(4.5e9), "4.50e+09");
  EXPECT_EQ(formatSig(std::nan("")), "n/a");
  EXPECT_EQ(formatSig(INFINITY), "n/a");
}

}  // namespace
