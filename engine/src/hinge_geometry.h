// A hinge's points, axis and angle at a phase point, with the angle's
// gradient and the velocity part of its second derivative (hinges.cpp's
// design note: the rotation plane, T(11)-(12), and the joint angle).
#pragma once

#include <type_traits>

#include "forces.h"
#include "hinge_math.h"

namespace suitsim::detail {

// Hinge points, in this order in HingeGeometry.
enum HingePoint { kJp, kJc, kA, kB, kC1, kC2, kNumPoints };

/// Geometry of one hinge at a phase point. Plain doubles, so that a record
/// can be kept in Workspace::hinge_geometry and copied back.
struct HingeGeometry {
  double p[kNumPoints][3];  // point positions (m)
  double v[kNumPoints][3];  // point velocities (m/s)
  double n[3], n_dot[3];    // unit axis and its rate
  double axis_length, axis_length_rate;
  double theta, theta_dot;
  double dtheta[kNumPoints][3];  // d theta / d point (zero for C2)
};
static_assert(std::is_trivially_copyable<HingeGeometry>::value, "kept in a double array");
constexpr int kGeometrySize = sizeof(HingeGeometry) / sizeof(double);
static_assert(kGeometrySize * sizeof(double) == sizeof(HingeGeometry), "no padding");

// Points J_p, A, B on the parent and J_c, C1, C2 on the child: each a sum
// of its weights times the body's four particles, read once per body.
inline void hingePoints(const Model& m, const PhasePoint& x, int h, HingeGeometry& g) {
  const std::array<double, 4>* weights[kNumPoints] = {&m.hinge_centre_parent[h], &m.hinge_centre_child[h],
                                                      &m.hinge_axis_point[h],    &m.hinge_parent_arm[h],
                                                      &m.hinge_child_arm[h],     &m.hinge_child_arm2[h]};
  for (int side = 0; side < 2; ++side) {
    const int first = m.body_particle_begin[side == 0 ? m.hinge_parent_body[h] : m.hinge_child_body[h]];
    // A particle's position and velocity as one vector (two lanes unused),
    // so each point is four vector multiply-adds.
    Row q[4] = {};
    for (int k = 0; k < 4; ++k) {
      const int i = first + k;
      q[k] = Row{x.px[i], x.py[i], x.pz[i], x.vx[i], x.vy[i], x.vz[i]};  // padding lanes zero
    }
    static constexpr int kSidePoints[2][3] = {{kJp, kA, kB}, {kJc, kC1, kC2}};
    for (int point : kSidePoints[side]) {
      const std::array<double, 4>& w = *weights[point];
      Row s = Row{} + w[0] * q[0];
      for (int k = 1; k < 4; ++k) s += w[k] * q[k];
      for (int d = 0; d < 3; ++d) {
        g.p[point][d] = s[d];
        g.v[point][d] = s[3 + d];
      }
    }
  }
}

inline void geometry(const Model& m, const PhasePoint& x, int h, HingeGeometry& g) {
  hingePoints(m, x, h, g);
  const V3 jp = vec(g.p[kJp]), jc = vec(g.p[kJc]), a = vec(g.p[kA]), b = vec(g.p[kB]), c1 = vec(g.p[kC1]);
  const V3 w = a - jp;
  const V3 w_dot = vec(g.v[kA]) - vec(g.v[kJp]);
  g.axis_length = w.norm();
  const V3 n = w / g.axis_length;
  g.axis_length_rate = n.dot(w_dot);
  put(n, g.n);
  put((w_dot - n * g.axis_length_rate) / g.axis_length, g.n_dot);

  // theta = atan2(y, x) with y = n . (u x r), x = u . r: exact gradient.
  const V3 u = b - jp;
  const V3 r = c1 - jc;
  const V3 uxr = u.cross(r);
  const double ys = n.dot(uxr);
  const double xs = u.dot(r);
  g.theta = std::atan2(ys, xs);
  const double inv = 1.0 / (xs * xs + ys * ys);
  const V3 dtheta_c1 = (xs * n.cross(u) - ys * u) * inv;
  const V3 dtheta_b = (xs * r.cross(n) - ys * r) * inv;
  const V3 dtheta_a = xs * (uxr - n * n.dot(uxr)) / g.axis_length * inv;
  const V3 dtheta_jp = -(dtheta_b + dtheta_a);
  const V3 dtheta_jc = -dtheta_c1;
  put(dtheta_c1, g.dtheta[kC1]);
  put(dtheta_b, g.dtheta[kB]);
  put(dtheta_a, g.dtheta[kA]);
  put(dtheta_jp, g.dtheta[kJp]);
  put(dtheta_jc, g.dtheta[kJc]);
  put(V3::Zero(), g.dtheta[kC2]);
  g.theta_dot = dtheta_c1.dot(vec(g.v[kC1])) + dtheta_b.dot(vec(g.v[kB])) + dtheta_a.dot(vec(g.v[kA])) +
                dtheta_jp.dot(vec(g.v[kJp])) + dtheta_jc.dot(vec(g.v[kJc]));
}

// The velocity part of theta'': theta'' = grad theta . p'' + this, for
// theta = atan2(y, x), y = n . (u x r), x = u . r. With rho = x^2 + y^2,
// theta'' = (x y'' - y x'') / rho - theta' rho' / rho, and the velocity
// parts of x'' and y'' are 2 u'.r' and n''_v . (u x r) + 2 n' . (u' x r +
// u x r') + 2 n . (u' x r'), n''_v = -2 n' L'/L - n |n'|^2 (n = w / L).
inline double angleQuadratic(const HingeGeometry& g) {
  const V3 n = vec(g.n), n_dot = vec(g.n_dot);
  const V3 u = vec(g.p[kB]) - vec(g.p[kJp]), r = vec(g.p[kC1]) - vec(g.p[kJc]);
  const V3 u_dot = vec(g.v[kB]) - vec(g.v[kJp]), r_dot = vec(g.v[kC1]) - vec(g.v[kJc]);
  const V3 uxr = u.cross(r);
  const V3 mixed = u_dot.cross(r) + u.cross(r_dot);
  const double x = u.dot(r), y = n.dot(uxr);
  const double x_dot = u_dot.dot(r) + u.dot(r_dot);
  const double y_dot = n_dot.dot(uxr) + n.dot(mixed);
  const double x_dd = 2.0 * u_dot.dot(r_dot);
  const double y_dd = -2.0 * g.axis_length_rate / g.axis_length * n_dot.dot(uxr) - n_dot.squaredNorm() * y +
                      2.0 * n_dot.dot(mixed) + 2.0 * n.dot(u_dot.cross(r_dot));
  const double rho = x * x + y * y;
  return (x * y_dd - y * x_dd) / rho - 2.0 * g.theta_dot * (x * x_dot + y * y_dot) / rho;
}

}  // namespace suitsim::detail
