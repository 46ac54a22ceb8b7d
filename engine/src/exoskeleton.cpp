// A powered exoskeleton: compiling it beside the robot, its straps, and its
// virtual-impedance controller (exoskeleton.h, seed 001).
//
// Design note. The device becomes a robot of its own (a RobotDescription
// with a floating root) compiled by addRobot, so its segments are particle
// tetrahedra with the segments' mass, centre and inertia and its joints are
// the same rotation-plane hinges as the robot's. Segment k's link frame is
// the frame of the robot link its hinge's aligned joint turns (the joint's
// child link), so the device hinge sits on the robot joint's centre and
// axis; the segment's inertia and its straps, given in the frame of the link
// it is worn on, are carried into that frame by the fixed transform between
// the two in the initial pose. The root segment's frame is its worn-on
// link's.
#include "suitsim/exoskeleton.h"

#include "suitsim/core/inertia.h"
#include "suitsim/core/rotation.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "forces.h"
#include "straps.h"

namespace suitsim {

namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

std::string where(const std::string& source) { return source.empty() ? std::string() : source + ": "; }

struct Frame {
  Matrix3d R = Matrix3d::Identity();
  Vector3d p = Vector3d::Zero();
  Frame operator*(const Frame& o) const { return {R * o.R, R * o.p + p}; }
  Frame inverse() const { return {R.transpose(), -(R.transpose() * p)}; }
  Vector3d apply(const Vector3d& x) const { return R * x + p; }
};

Frame fromPose(const Pose& pose) {
  Frame f;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) f.R(r, c) = pose.R[3 * r + c];
    f.p[r] = pose.p[r];
  }
  return f;
}

Vector3d toEigen(const Vec3& v) { return {v[0], v[1], v[2]}; }
Vec3 toVec3(const Vector3d& v) { return {v.x(), v.y(), v.z()}; }


// The angle joint j stands at in the built pose (a mimic follower where its
// leader puts it).
double builtAngle(const RobotDescription& robot, const RobotPose& pose, int j) {
  auto angle = [&](int k) { return pose.joint_angles.empty() ? 0.0 : pose.joint_angles[k]; };
  const int leader = robot.mimicLeader(j);
  if (leader >= 0) return robot.joints[j].mimic.multiplier * angle(leader) + robot.joints[j].mimic.offset;
  return angle(j);
}

// Barycentric weights of the world point x in the tetrahedron of particles
// [first, first + 4) of the builder.
std::array<double, 4> pointWeights(const ModelBuilder& builder, int first, const Vector3d& x) {
  Vector3d t[4];
  for (int k = 0; k < 4; ++k) t[k] = toEigen(builder.particle(first + k).position);
  Matrix3d E;
  E << t[1] - t[0], t[2] - t[0], t[3] - t[0];
  const Vector3d w = E.partialPivLu().solve(x - t[0]);
  return {1.0 - w.sum(), w[0], w[1], w[2]};
}

// First builder particle of the body that holds link l of a compiled robot.
int linkFirstParticle(const RobotDescription& robot, const CompiledRobot& compiled, int l) {
  const int local = compiled.link_body[l] - compiled.link_body[robot.root_link];
  return compiled.body_first_particle[local];
}

}  // namespace

std::string exoPartName(const ExoskeletonSpec& spec, int segment) {
  return spec.name + "." + spec.segments[segment].name;
}

CompiledExoskeleton addExoskeleton(ModelBuilder& builder, const RobotDescription& robot,
                                   const CompiledRobot& worn_on, const RobotPose& pose, const ExoskeletonSpec& spec,
                                   const RobotCompileOptions& options) {
  const int ns = static_cast<int>(spec.segments.size());
  const std::string label = where(spec.source) + "exoskeleton '" + spec.name + "'";
  if (ns == 0) throw ModelError(label + " has no segment");
  const int nl = static_cast<int>(robot.links.size());
  const int nj = static_cast<int>(robot.joints.size());

  // Each segment's frame in the world: the root's worn-on link's, a jointed
  // segment's the frame its aligned joint turns (that joint's child link).
  std::vector<Frame> frame(ns), mount(ns);  // mount: worn-on link frame in the segment frame
  CompiledExoskeleton out;
  RobotDescription& d = out.description;
  d.name = spec.name;
  d.floating_base = true;
  RobotPose device_pose;
  for (int s = 0; s < ns; ++s) {
    const ExoSegment& seg = spec.segments[s];
    const std::string at = where(seg.source) + "segment '" + seg.name + "'";
    if (seg.link < 0 || seg.link >= nl) throw ModelError(at + ": names no link of the robot");
    const Frame worn = fromPose(worn_on.link_world[seg.link]);
    if (s == 0) {
      if (seg.parent != -1 || seg.joint != -1) throw ModelError(at + ": the first segment is the root, with no parent or joint");
      frame[s] = worn;
    } else {
      if (seg.parent < 0 || seg.parent >= s) throw ModelError(at + ": its parent must be an earlier segment");
      if (seg.joint < 0 || seg.joint >= nj) throw ModelError(at + ": names no joint of the robot");
      const RobotJoint& joint = robot.joints[seg.joint];
      if (joint.type != JointType::kRevolute && joint.type != JointType::kContinuous) {
        throw ModelError(at + ": joint '" + joint.name + "' does not turn (fixed or frozen): a device hinge lines up with a turning joint");
      }
      // The joint must lie on the robot's path from the parent's link to this one's.
      const int parent_link = spec.segments[seg.parent].link;
      bool found = false;
      for (int l = seg.link; l != parent_link;) {
        const int j = robot.links[l].parent_joint;
        if (j < 0) {
          throw ModelError(at + ": link '" + robot.links[seg.link].name + "' does not hang below the parent segment's link '" +
                           robot.links[parent_link].name + "'");
        }
        found = found || j == seg.joint;
        l = robot.joints[j].parent_link;
      }
      if (!found) {
        throw ModelError(at + ": joint '" + joint.name + "' does not lie between link '" + robot.links[parent_link].name +
                         "' and link '" + robot.links[seg.link].name + "'");
      }
      frame[s] = fromPose(worn_on.link_world[joint.child_link]);
    }
    mount[s] = frame[s].inverse() * worn;
    if (!(seg.inertial.mass > 0.0) || !std::isfinite(seg.inertial.mass)) throw ModelError(at + ": needs a mass > 0");

    RobotLink link;
    link.name = exoPartName(spec, s);
    link.source = seg.source;
    link.inertial.mass = seg.inertial.mass;
    link.inertial.com = toVec3(mount[s].apply(toEigen(seg.inertial.com)));
    const Matrix3d I = mount[s].R * inertiaMatrix(seg.inertial.inertia) * mount[s].R.transpose();
    link.inertial.inertia = {I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2)};
    d.links.push_back(link);
    out.segment_link.push_back(s);
  }
  std::vector<double> angles;
  for (int s = 1; s < ns; ++s) {
    const ExoSegment& seg = spec.segments[s];
    const RobotJoint& aligned = robot.joints[seg.joint];
    const double q = builtAngle(robot, pose, seg.joint);
    // The joint's frame at angle 0 in the world: its child's frame turned back by q.
    const Frame turn_back{Eigen::AngleAxisd(-q, toEigen(aligned.axis).normalized()).toRotationMatrix(), Vector3d::Zero()};
    const Frame joint_zero = frame[s] * turn_back;
    const Frame origin = frame[seg.parent].inverse() * joint_zero;
    RobotJoint joint;
    joint.name = exoPartName(spec, s);
    joint.source = seg.source;
    joint.type = JointType::kRevolute;
    joint.parent_link = seg.parent;
    joint.child_link = s;
    joint.origin_xyz = toVec3(origin.p);
    joint.origin_rpy = rpyFromRotation(origin.R);
    joint.axis = aligned.axis;
    joint.lower = aligned.lower;
    joint.upper = aligned.upper;
    joint.effort_limit = seg.effort_limit;
    joint.actuation = seg.actuation;
    d.joints.push_back(joint);
    angles.push_back(q);
  }
  try {
    orderTree(d);
  } catch (const std::invalid_argument& e) {
    throw ModelError(label + ": " + e.what());
  }
  // orderTree may reorder: find each segment's link and joint again by name.
  for (int s = 0; s < ns; ++s) out.segment_link[s] = d.findLink(exoPartName(spec, s));
  device_pose.joint_angles.assign(d.joints.size(), 0.0);
  for (int s = 1; s < ns; ++s) device_pose.joint_angles[d.findJoint(exoPartName(spec, s))] = angles[s - 1];
  device_pose.base_position = toVec3(frame[0].p);
  device_pose.base_rpy = rpyFromRotation(frame[0].R);
  out.compiled = addRobot(builder, d, device_pose, {}, options);

  // Straps: a point of the segment's body tied to the same point of the link.
  std::vector<int> per_segment(ns, 0);
  for (const ExoStrap& strap : spec.straps) {
    const std::string at = where(strap.source) + "strap";
    if (strap.segment < 0 || strap.segment >= ns) throw ModelError(at + ": names no segment of the device");
    const ExoSegment& seg = spec.segments[strap.segment];
    const Vector3d world = fromPose(worn_on.link_world[seg.link]).apply(toEigen(strap.point));
    const int dev_link = out.segment_link[strap.segment];
    StrapSpec s;
    s.name = exoPartName(spec, strap.segment) + ".strap" + std::to_string(per_segment[strap.segment]++);
    s.body_a = out.compiled.link_body[dev_link];
    s.weight_a = pointWeights(builder, linkFirstParticle(d, out.compiled, dev_link), world);
    s.body_b = worn_on.link_body[seg.link];
    s.weight_b = pointWeights(builder, linkFirstParticle(robot, worn_on, seg.link), world);
    s.stiffness = strap.stiffness;
    s.damping = strap.damping;
    try {
      out.strap.push_back(builder.addStrap(s));
    } catch (const ModelError& e) {
      throw ModelError(at + ": " + e.what());
    }
    out.strap_name.push_back(s.name);
  }
  for (int s = 0; s < ns; ++s) {
    if (per_segment[s] == 0) {
      throw ModelError(where(spec.segments[s].source) + "segment '" + spec.segments[s].name +
                       "' has no strap: every segment is held on the robot by at least one");
    }
  }
  return out;
}

// ---- the controller ----------------------------------------------------------

namespace {

// Hinge h's centre (child side) and unit axis (parent-carried) at x.
void hingeFrame(const Model& m, const PhasePoint& x, int h, Vector3d* centre, Vector3d* axis) {
  auto point = [&](int body, const std::array<double, 4>& w) {
    Vector3d p = Vector3d::Zero();
    const int first = m.body_particle_begin[body];
    for (int k = 0; k < 4; ++k) p += w[k] * Vector3d(x.px[first + k], x.py[first + k], x.pz[first + k]);
    return p;
  };
  *centre = point(m.hinge_child_body[h], m.hinge_centre_child[h]);
  const Vector3d jp = point(m.hinge_parent_body[h], m.hinge_centre_parent[h]);
  *axis = (point(m.hinge_parent_body[h], m.hinge_axis_point[h]) - jp).normalized();
}

}  // namespace

ExoskeletonController::ExoskeletonController(const Model& model, const ExoskeletonSpec& spec,
                                             const RobotDescription& robot)
    : period_(1.0 / spec.rate_hz),
      alpha_(1.0 - std::exp(-2.0 * 3.14159265358979323846 * spec.acceleration_cutoff_hz / spec.rate_hz)),
      coulomb_velocity_(spec.coulomb_velocity) {
  for (int s = 1; s < static_cast<int>(spec.segments.size()); ++s) {
    const ExoSegment& seg = spec.segments[s];
    const int h = findHinge(model, exoPartName(spec, s));
    if (h < 0) throw ModelError("exoskeleton '" + spec.name + "': the model has no hinge '" + exoPartName(spec, s) + "'");
    hinge_.push_back(h);
    aligned_.push_back(seg.joint >= 0 ? findHinge(model, robot.joints[seg.joint].name) : -1);
    impedance_.push_back(seg.impedance);
    limit_.push_back(seg.effort_limit);
    // The bodies beyond the hinge: its child and everything hanging below it.
    std::vector<int> bodies{model.hinge_child_body[h]};
    for (std::size_t k = 0; k < bodies.size(); ++k) {
      for (int g = 0; g < model.num_hinges; ++g) {
        if (model.hinge_parent_body[g] == bodies[k]) bodies.push_back(model.hinge_child_body[g]);
      }
    }
    std::vector<int> particles;
    for (int b : bodies) {
      for (int i = model.body_particle_begin[b]; i < model.body_particle_end[b]; ++i) particles.push_back(i);
    }
    particles_.push_back(particles);
  }
  const std::size_t n = hinge_.size();
  previous_rate_.assign(n, 0.0);
  accel_.assign(n, 0.0);
  inertia_.assign(n, 0.0);
  gravity_.assign(n, 0.0);
  assist_input_.assign(n, 0.0);
  torque_.assign(n, 0.0);
}

void ExoskeletonController::update(const Model& model, State& state, const std::vector<double>* wearer_torque) {
  if (state.time + 1e-12 < next_update_) return;
  next_update_ = (next_update_ < 0.0 ? state.time : next_update_) + period_;
  const PhasePoint x = detail::phasePoint(state.position, state.velocity);
  const Vector3d g(model.gravity[0], model.gravity[1], model.gravity[2]);
  for (std::size_t k = 0; k < hinge_.size(); ++k) {
    const int h = hinge_[k];
    double q = 0.0, qd = 0.0;
    detail::readHinge(model, state, h, &q, &qd);
    // The acceleration a real controller has: the rate differenced over its
    // period through a first-order filter (cut-off acceleration_cutoff_hz).
    if (started_) accel_[k] += alpha_ * ((qd - previous_rate_[k]) / period_ - accel_[k]);
    previous_rate_[k] = qd;
    // I_d and G_d from the device's own segments beyond the joint: the
    // particle cluster carries each segment's exact inertia.
    Vector3d c, n;
    hingeFrame(model, x, h, &c, &n);
    double inertia = model.hinge_armature[h], moment = 0.0;
    for (int i : particles_[k]) {
      const Vector3d r = Vector3d(x.px[i], x.py[i], x.pz[i]) - c;
      const double m = model.particle_mass[i];
      inertia += m * (r - r.dot(n) * n).squaredNorm();
      moment += n.dot(r.cross(m * g));
    }
    inertia_[k] = inertia;
    gravity_[k] = moment;
    const double s = (wearer_torque && aligned_[k] >= 0) ? (*wearer_torque)[aligned_[k]] : 0.0;
    assist_input_[k] = s;
    const VirtualImpedance& v = impedance_[k];
    // The law of exoskeleton.h: what is compensated is the device's own
    // minus what the wearer is to feel.
    double tau = (inertia - v.inertia) * accel_[k] + (model.hinge_viscous[h] - v.viscous) * qd +
                 (model.hinge_coulomb[h] - v.coulomb) * std::tanh(qd / coulomb_velocity_) - (1.0 - v.gravity) * moment +
                 v.assist * s;
    tau = std::clamp(tau, -limit_[k], limit_[k]);
    torque_[k] = tau;
    // A(6) inverted, as the robot's servo: the current that gives it.
    state.hinge_current[h] = (tau - model.hinge_torque_offset[h]) / model.hinge_motor_constant[h];
  }
  started_ = true;
}

void strapJointTorques(const Model& model, const State& state, std::vector<double>& out) {
  out.assign(model.num_hinges, 0.0);
  const PhasePoint x = detail::phasePoint(state.position, state.velocity);
  for (int s = 0; s < model.num_straps; ++s) {
    const Vec3 fs = detail::strapForce(model, x, s);
    const Vector3d f(fs[0], fs[1], fs[2]);
    for (int end = 0; end < 2; ++end) {
      int body = end == 0 ? model.strap_body_b[s] : model.strap_body_a[s];
      const std::array<double, 4>& w = end == 0 ? model.strap_weight_b[s] : model.strap_weight_a[s];
      const Vector3d force = end == 0 ? f : Vector3d(-f);
      Vector3d p = Vector3d::Zero();
      const int first = model.body_particle_begin[body];
      for (int k = 0; k < 4; ++k) p += w[k] * Vector3d(x.px[first + k], x.py[first + k], x.pz[first + k]);
      // Up the tree: every hinge whose child side holds the body.
      for (bool climbing = true; climbing;) {
        climbing = false;
        for (int h = 0; h < model.num_hinges; ++h) {
          if (model.hinge_child_body[h] != body) continue;
          Vector3d c, n;
          hingeFrame(model, x, h, &c, &n);
          out[h] += n.dot((p - c).cross(force));
          body = model.hinge_parent_body[h];
          climbing = true;
          break;
        }
      }
    }
  }
}

}  // namespace suitsim
