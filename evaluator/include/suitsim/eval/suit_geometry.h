// The suit as worn, from its bands' measured lengths: where the via points
// of A(24) really sit on the body. A band sinks into a cover or slides over
// the body, so its via points sit millimetres from where the suit was
// designed to put them, and A(22)'s moment arms with them; the band
// stiffness A(26) estimates scales with the inverse square of the moment
// arm (docs/realism.md). With a length sensor along each band (the scene's
// <band_lengths>), the evaluator can fit the via points to the measured
// lengths before it fits the bands: l(q) over the motions fixes dl/dq, which
// is all A(21) needs.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "suitsim/rigid/rigid_model.h"
#include "suitsim/eval/wires.h"

namespace suitsim::eval {

/// Where the evaluator's wire model takes its via points from.
enum class SuitGeometrySource {
  Designed,  ///< the suit as designed (A(24) as the paper uses it)
  Measured,  ///< fitted to the bands' logged lengths (measureSuitGeometry)
};
/// "designed" or "measured"; false for any other word.
bool parseSuitGeometry(const std::string& word, SuitGeometrySource* out);
const char* suitGeometryName(SuitGeometrySource source);

/// A displacement direction of a band's via points is fitted when the
/// lengths determine it to within this (m, one standard deviation); the
/// others stay as designed. A direction the motions hardly lengthen the
/// band along moves no moment arm they use either, and fitting it would
/// only carry noise into the moment arms of other motions (the twist's,
/// say, from a bend), which decide between a band fit's solutions.
constexpr double kDeterminedWithin = 0.001;

/// One band's fit.
struct WornBand {
  std::string name;
  std::vector<Eigen::Vector3d> offset;  ///< each via point's estimated displacement, its link's frame (m)
  /// The constant the sensor adds (its zero, and length changes no joint
  /// moves, such as a via point displaced along its link) (m).
  double length_offset = 0.0;
  double designed_rms = 0.0;  ///< RMS of measured minus designed length, mean removed (m)
  double worn_rms = 0.0;      ///< RMS residual of the fitted geometry (m)
  int samples = 0;
  /// Displacement directions the lengths determine to kDeterminedWithin,
  /// the ones fitted (of 3 per via point).
  int determined_directions = 0;
  int iterations = 0;
};

struct SuitGeometry {
  std::string suit;
  std::vector<BandRoute> routes;  ///< the suit as worn (estimated), same order as designed
  std::vector<WornBand> bands;
};

/// Fits every band's via points to its measured lengths. `joint_angles[k]`
/// (N_k x num_joints, rad) and `lengths[k]` (N_k x bands, m, columns in
/// `designed` order) are the samples of the trials the suit was worn in.
/// Per band, a Gauss-Newton fit of a constant and of the via-point
/// displacements along the directions the lengths determine to
/// kDeterminedWithin (judged by the residual's own variance); the others
/// stay as designed. Throws std::invalid_argument for sizes that do not
/// match, no samples, or a non-finite sample.
SuitGeometry measureSuitGeometry(const RigidModel& model, const std::string& suit,
                                 const std::vector<BandRoute>& designed,
                                 const std::vector<Eigen::MatrixXd>& joint_angles,
                                 const std::vector<Eigen::MatrixXd>& lengths);

}  // namespace suitsim::eval
