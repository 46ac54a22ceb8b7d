// The logger's declared filters and the delay they put on the channels
// (docs/realism.md, the causal sensor chain): a remedy of the evaluator.
//
// A logger whose channels pass anti-alias filters writes what they are in
// its stream's header ("# lowpass.imu: butterworth2 42 Hz", one line per
// kind: imu, force, current; "none" for a kind without one). That is
// configuration knowledge, like a datasheet, not truth. A 2nd-order
// Butterworth delays slow signals by sqrt(2) / (2 pi f_c), 5.4 ms at 42 Hz,
// and the encoders, counted without a filter, are not delayed: left as
// they are, the identification relates currents and forces to joint
// motion 5 ms earlier than the one that made them.
#pragma once

#include "suitsim/eval/streams.h"

namespace suitsim::eval {

/// The delay (s) each channel kind's declared filter puts on slow signals.
struct LoggerDelays {
  double imu = 0.0;      ///< gyro and accelerometer
  double force = 0.0;    ///< force/torque sensors
  double current = 0.0;  ///< motor currents
};

/// The delays the stream's header declares. A stream of the ideal logger
/// (an "# anti_alias:" line that is not "causal ...") declares none: its
/// windows are centred on their stamps. Throws StreamError naming the file
/// and line for a "# lowpass.KIND:" line that is neither "none" nor
/// "butterworth2 F Hz" with F > 0, or when the header states neither (a
/// stream whose logger is not described cannot be compensated).
LoggerDelays declaredLoggerDelays(const SensorStream& stream);

/// The stream with each filtered channel read its kind's delay later
/// (cubic interpolation between samples; the last value held past the end),
/// so that every channel is aligned with the encoders. Allocates the copy.
SensorStream withoutLoggerDelay(const SensorStream& stream, const LoggerDelays& delays);

}  // namespace suitsim::eval
