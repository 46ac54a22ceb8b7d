// Compiling a robot description into particle clusters and hinges.
//
// Design note. Links joined by fixed joints are merged into one body. Each
// body becomes four particles of mass m/4 at c + L v_i, where c is its centre
// of mass, v_i the vertices of a unit regular tetrahedron (sum v v^T = 4/3)
// and L = (3 S / m)^(1/2) for its second moment S = tr(I)/2 - I about c:
// the cluster has exactly the body's mass, centre of mass and inertia tensor,
// and no particle is light (each carries a quarter of the body). Six
// spring-dampers join the four, T(1)-(10). A body with hinges moves as a
// rigid body (hinges.cpp spreads every force on it rigidly, with its
// centripetal accelerations), so its springs only hold the shape against
// integration drift and may be weak; a body without hinges is held by
// them alone. With Toda and Sankai's link model (HingeSettings::link_model
// springs) every body is held by its springs alone, as in T(1)-(10), and
// they must be stiff (docs/engine.md, "The two link models").
//
// Everything else on a body is a point: an affine combination of its four
// particles with constant weights (barycentric coordinates in the
// tetrahedron): the hinge centres, axis points and arms, the contact points
// of the soles. A force at a point reaches the particles by the same
// weights. Hinges are constraints between such points (hinges.cpp).
//
// Arm and axis lengths scale with the body (0.7 x its radius of gyration,
// 3 to 20 cm) unless given: they only set where the hinge's points are.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "suitsim/core/inertia.h"
#include "suitsim/core/rotation.h"
#include "suitsim/articulated.h"

namespace suitsim {

namespace {

// A description element's "file:line: " (URDF or scene) for compile-stage
// errors, so they point at the element that caused them.
std::string where(const std::string& source) { return source.empty() ? std::string() : source + ": "; }

}  // namespace

namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

struct Transform {
  Matrix3d R = Matrix3d::Identity();
  Vector3d p = Vector3d::Zero();
  Transform operator*(const Transform& o) const { return {R * o.R, R * o.p + p}; }
  Vector3d apply(const Vector3d& x) const { return R * x + p; }
};

Vector3d toEigen(const Vec3& v) { return {v[0], v[1], v[2]}; }
Vec3 toVec3(const Vector3d& v) { return {v.x(), v.y(), v.z()}; }


// A unit vector perpendicular to `axis`, chosen the same way every time.
Vector3d perpendicular(const Vector3d& axis) {
  const Vector3d seed = std::abs(axis.x()) < 0.9 ? Vector3d::UnitX() : Vector3d::UnitY();
  return (seed - axis * axis.dot(seed)).normalized();
}

struct Hinge {
  int joint = -1;         // description joint
  int parent_body = -1;
  int child_body = -1;
  Transform joint_in_parent;  // joint frame in the parent body frame at q = 0
  Vector3d axis;              // unit, joint frame (= child body frame)
};

struct Body {
  int link = -1;       // the link that names it
  int parent_hinge = -1;
  std::vector<int> child_hinges{};
  double mass = 0.0;
  Vector3d first_moment = Vector3d::Zero();  // sum m c, body frame
  Matrix3d second_moment = Matrix3d::Zero();  // sum over links of (m c c^T + S_link), body frame
  Transform world{};                          // at the initial pose
};

// One robot's compile (addRobot): its stages share what the earlier ones
// found.
struct RobotCompiler {
  ModelBuilder& builder;
  const RobotDescription& robot;
  const RobotPose& pose;
  const std::vector<ContactPoint>& contacts;
  const RobotCompileOptions& options;
  const std::vector<RobotBand>& bands;
  int nl = 0, nj = 0;
  bool fixed_root = false;
  CompiledRobot out;
  int first_body = 0;                     // the builder's bodies before this robot's
  std::vector<std::vector<int>> child_joints;
  std::vector<Transform> link_in_body;    // each link in its body's frame
  std::vector<Body> bodies;               // tree order, parents first
  std::vector<Hinge> hinges;
  std::vector<double> angles;             // initial joint angles, followers where their coupling puts them
  std::vector<int> leader_of;             // each joint's mimic leader, -1: none
  std::vector<std::vector<Vector3d>> body_contacts;  // body frame
  std::vector<std::pair<int, int>> contact_slot;     // (body, index in body_contacts)
  std::vector<std::array<Vector3d, 4>> tetra;        // body frame
  std::vector<double> particle_mass;
  std::vector<int> body_index;            // the builder's index of each body

  RobotCompiler(ModelBuilder& b, const RobotDescription& r, const RobotPose& p, const std::vector<ContactPoint>& c,
                const RobotCompileOptions& o, const std::vector<RobotBand>& bs)
      : builder(b), robot(r), pose(p), contacts(c), options(o), bands(bs) {}

  // The description checked: a root, one angle per joint, links that exist.
  void check() {
    nl = static_cast<int>(robot.links.size());
    nj = static_cast<int>(robot.joints.size());
    fixed_root = !robot.floating_base;
    if (robot.root_link < 0 || robot.root_link >= nl) throw ModelError("robot '" + robot.name + "' has no root link");
    if (!pose.joint_angles.empty() && static_cast<int>(pose.joint_angles.size()) != nj) {
      throw ModelError("robot '" + robot.name + "': the pose gives " + std::to_string(pose.joint_angles.size()) +
                       " joint angles for " + std::to_string(nj) + " joints");
    }
    child_joints.assign(nl, {});
    for (int j = 0; j < nj; ++j) {
      const RobotJoint& joint = robot.joints[j];
      if (joint.parent_link < 0 || joint.parent_link >= nl || joint.child_link < 0 || joint.child_link >= nl) {
        throw ModelError(where(joint.source) + "joint '" + joint.name + "' names a link that does not exist");
      }
      child_joints[joint.parent_link].push_back(j);
    }
  }

  void mergeFixedJoints() {
    first_body = builder.numBodies();
    // ---- merge fixed joints; bodies in tree order (parents first) ----
    out.link_body.assign(nl, -1);
    out.joint_hinge.assign(nj, -1);
    link_in_body.resize(nl);
    std::vector<int> queue{robot.root_link};
    bodies.push_back(Body{.link = robot.root_link});
    out.link_body[robot.root_link] = 0;
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const int link = queue[q];
      for (int j : child_joints[link]) {
        const RobotJoint& joint = robot.joints[j];
        const int child = joint.child_link;
        if (out.link_body[child] >= 0) throw ModelError(where(joint.source) + "link '" + robot.links[child].name + "' is reached twice");
        const Transform origin{rotationFromRpy(joint.origin_rpy), toEigen(joint.origin_xyz)};
        const Transform joint_in_body = link_in_body[link] * origin;
        if (joint.type == JointType::kFixed) {
          out.link_body[child] = out.link_body[link];
          link_in_body[child] = joint_in_body;
        } else if (joint.type == JointType::kRevolute || joint.type == JointType::kContinuous) {
          const Vector3d axis = toEigen(joint.axis);
          if (!(axis.norm() > 0.0)) throw ModelError(where(joint.source) + "joint '" + joint.name + "' has a zero axis");
          Hinge h{j, out.link_body[link], static_cast<int>(bodies.size()), joint_in_body, axis.normalized()};
          out.joint_hinge[j] = static_cast<int>(hinges.size());
          bodies[h.parent_body].child_hinges.push_back(out.joint_hinge[j]);
          Body b{.link = child};
          b.parent_hinge = out.joint_hinge[j];
          bodies.push_back(b);
          hinges.push_back(h);
          out.link_body[child] = h.child_body;
          link_in_body[child] = Transform{};
        } else {
          throw ModelError(where(joint.source) + "joint '" + joint.name +
                           "': the particle engine supports revolute, continuous and fixed joints only");
        }
        queue.push_back(child);
      }
    }
    for (int l = 0; l < nl; ++l) {
      if (out.link_body[l] < 0) throw ModelError(where(robot.links[l].source) + "link '" + robot.links[l].name + "' is not connected to the root");
    }
  }

  void mergeInertials() {
    // ---- merged inertials: mass, first and second moments in body frames ----
    for (int l = 0; l < nl; ++l) {
      const LinkInertial& in = robot.links[l].inertial;
      if (!(in.mass >= 0.0) || !std::isfinite(in.mass)) {
        throw ModelError(where(robot.links[l].source) + "link '" + robot.links[l].name + "': bad mass");
      }
      if (in.mass == 0.0) continue;
      Body& b = bodies[out.link_body[l]];
      const Transform& t = link_in_body[l];
      const Vector3d c = t.apply(toEigen(in.com));
      const Matrix3d I = t.R * inertiaMatrix(in.inertia) * t.R.transpose();
      const Matrix3d S = 0.5 * I.trace() * Matrix3d::Identity() - I;  // second moment about the CoM
      b.mass += in.mass;
      b.first_moment += in.mass * c;
      b.second_moment += in.mass * c * c.transpose() + S;
    }
  }

  void resolveMimic() {
    // ---- mimic joints: leaders and followers must both be hinges ----
    // A follower starts where its coupling puts it (its own pose angle is not
    // used), so the constraint holds from the first step.
    angles = pose.joint_angles;
    if (angles.empty()) angles.assign(nj, 0.0);
    leader_of.assign(nj, -1);
    for (int j = 0; j < nj; ++j) {
      const int l = robot.mimicLeader(j);
      if (l < 0 && robot.joints[j].mimic.joint.empty()) continue;
      if (l < 0) {
        if (robot.joints[j].type == JointType::kFixed) continue;  // a frozen follower: no coupling
        throw ModelError(where(robot.joints[j].source) + "joint '" + robot.joints[j].name + "' mimics '" + robot.joints[j].mimic.joint +
                         "', which the robot does not have");
      }
      if (out.joint_hinge[l] < 0) {
        throw ModelError(where(robot.joints[j].source) + "joint '" + robot.joints[j].name + "' mimics '" + robot.joints[l].name +
                         "', which does not move (fixed or frozen): freeze the follower too");
      }
      if (robot.mimicLeader(l) >= 0) {
        throw ModelError(where(robot.joints[j].source) + "joint '" + robot.joints[j].name + "' mimics '" + robot.joints[l].name +
                         "', which is itself a mimic joint (chains are not supported)");
      }
      leader_of[j] = l;
      angles[j] = robot.joints[j].mimic.multiplier * angles[l] + robot.joints[j].mimic.offset;
    }
  }

  void placeBodies() {
    // ---- initial pose: forward kinematics of the bodies ----
    bodies[0].world = Transform{rotationFromRpy(pose.base_rpy), toEigen(pose.base_position)};
    for (std::size_t b = 1; b < bodies.size(); ++b) {
      const Hinge& h = hinges[bodies[b].parent_hinge];
      const double q = angles[h.joint];
      const Transform turn{Eigen::AngleAxisd(q, h.axis).toRotationMatrix(), Vector3d::Zero()};
      bodies[b].world = bodies[h.parent_body].world * h.joint_in_parent * turn;
    }

    // ---- contact points per body ----
    // (placed on the ground below, once they are known)
    body_contacts.resize(bodies.size());
    for (const ContactPoint& c : contacts) {
      int l = -1;
      for (int k = 0; k < nl; ++k) {
        if (robot.links[k].name == c.link) l = k;
      }
      if (l < 0) throw ModelError("contact point on unknown link '" + c.link + "'");
      const int b = out.link_body[l];
      contact_slot.emplace_back(b, static_cast<int>(body_contacts[b].size()));
      body_contacts[b].push_back(link_in_body[l].apply(toEigen(c.position)));
    }

    if (pose.place_on_ground && !contacts.empty()) {
      const Vector3d n = toEigen(pose.ground_normal).normalized();
      double lowest = std::numeric_limits<double>::infinity();
      for (std::size_t b = 0; b < bodies.size(); ++b) {
        for (const Vector3d& c : body_contacts[b]) lowest = std::min(lowest, n.dot(bodies[b].world.apply(c)));
      }
      const Vector3d shift = (pose.ground_offset - lowest) * n;
      for (Body& b : bodies) b.world.p += shift;
    }
  }

  // Hinge arm and axis lengths: given, or scaled to the body (a fraction of
  // its radius of gyration).
  static double bodySize(const Body& b) {
    if (!(b.mass > 0.0)) return 0.05;
    const Vector3d c = b.first_moment / b.mass;
    const double trace_S = (b.second_moment - b.mass * c * c.transpose()).trace();
    return std::clamp(0.7 * std::sqrt(std::max(0.0, trace_S) / b.mass), 0.03, 0.2);
  }

  void makeClusters() {
    // ---- clusters: a tetrahedron per body ----
    tetra.resize(bodies.size());
    particle_mass.resize(bodies.size());
    for (std::size_t bi = 0; bi < bodies.size(); ++bi) {
      const Body& b = bodies[bi];
      const std::string& name = robot.links[b.link].name;
      const double s = 1.0 / std::sqrt(3.0);
      const Vector3d v[4] = {{s, s, s}, {s, -s, -s}, {-s, s, -s}, {-s, -s, s}};
      if (bi == 0 && fixed_root && !(b.mass > 0.0)) {
        // A massless welded root only anchors its children: a nominal
        // tetrahedron, fixed in the world, so its masses play no part.
        for (int k = 0; k < 4; ++k) tetra[bi][k] = 0.05 * v[k];
        particle_mass[bi] = 1.0;
        continue;
      }
      if (!(b.mass > 0.0)) {
        throw ModelError(where(robot.links[b.link].source) + "body '" + name +
                         "' has no mass: every body the particle engine moves needs mass");
      }
      const Vector3d com = b.first_moment / b.mass;
      const Matrix3d S = b.second_moment - b.mass * com * com.transpose();
      const Eigen::SelfAdjointEigenSolver<Matrix3d> eig(0.5 * (S + S.transpose()));
      if (!(eig.eigenvalues().minCoeff() > 1e-9 * std::max(1e-300, eig.eigenvalues().sum()))) {
        throw ModelError(where(robot.links[b.link].source) + "body '" + name +
                         "' is flat or a line (an inertia tensor on the triangle-inequality bound): a particle "
                         "cluster needs volume (a point mass in the robot's file? give it a size with "
                         "<inertial link mass com inertia> in the scene)");
      }
      // L = (3 S / m)^(1/2), the symmetric square root.
      const Matrix3d L = eig.eigenvectors() * (3.0 * eig.eigenvalues() / b.mass).cwiseSqrt().asDiagonal() *
                         eig.eigenvectors().transpose();
      for (int k = 0; k < 4; ++k) tetra[bi][k] = com + L * v[k];
      particle_mass[bi] = b.mass / 4.0;
    }
  }

  // Barycentric weights of a body-frame point in a body's tetrahedron.
  std::array<double, 4> weights(int body, const Vector3d& x) const {
    const std::array<Vector3d, 4>& t = tetra[body];
    Matrix3d E;
    E << t[1] - t[0], t[2] - t[0], t[3] - t[0];
    const Vector3d w = E.partialPivLu().solve(x - t[0]);
    return std::array<double, 4>{1.0 - w.sum(), w[0], w[1], w[2]};
  }

  void addParticles() {
    // ---- particles, bodies and springs into the builder ----
    out.first_particle = builder.numParticles();
    body_index.resize(bodies.size());
    for (std::size_t bi = 0; bi < bodies.size(); ++bi) {
      const std::string& name = robot.links[bodies[bi].link].name;
      BodySpec body{name, builder.numParticles(), 4, {}};
      for (int k = 0; k < 4; ++k) {
        ParticleSpec spec;
        spec.name = name + ".p" + std::to_string(k);
        spec.position = toVec3(bodies[bi].world.apply(tetra[bi][k]));
        spec.mass = particle_mass[bi];
        spec.fixed = fixed_root && bi == 0;
        spec.contact = false;
        builder.addParticle(spec);
        body.body_position.push_back(toVec3(tetra[bi][k]));
      }
      body_index[bi] = builder.addBody(body);
      out.body_link.push_back(bodies[bi].link);
      out.body_first_particle.push_back(body.first);
      out.body_num_particles.push_back(4);
      if (fixed_root && bi == 0) continue;  // fixed particles need no springs
      const double w2 = options.link_frequency * options.link_frequency;
      for (int a = 0; a < 4; ++a) {
        for (int c = a + 1; c < 4; ++c) {
          // Equal masses m/4: k = (w^2/4) (m/4) gives the tetrahedron's
          // modes frequencies of the order of w.
          const double k = 0.25 * w2 * particle_mass[bi];
          const double reduced = 0.5 * particle_mass[bi];
          builder.addSpring({body.first + a, body.first + c, k, 2.0 * options.link_damping_ratio * std::sqrt(k * reduced),
                             -1.0});
        }
      }
    }
    out.num_particles = builder.numParticles() - out.first_particle;
  }

  void addHinges() {
    // ---- hinges ----
    builder.setHingeSettings(options.hinge);
    for (const Hinge& h : hinges) {
      const RobotJoint& joint = robot.joints[h.joint];
      const Body& parent = bodies[h.parent_body];
      const Body& child = bodies[h.child_body];
      const double arm = options.arm_length > 0.0 ? options.arm_length : bodySize(child);
      const double axis_len = options.axis_length > 0.0 ? options.axis_length : bodySize(parent);
      // In the parent frame: the joint at o with axis n; the child's arm C1
      // points along the parent's arm B at q = 0, so the angle starts at q.
      const Vector3d o = h.joint_in_parent.p;
      const Vector3d n = h.joint_in_parent.R * h.axis;
      const Vector3d e1 = perpendicular(h.axis), e2 = h.axis.cross(e1);  // child frame
      HingeSpec spec;
      spec.name = joint.name;
      spec.parent_body = body_index[h.parent_body];
      spec.child_body = body_index[h.child_body];
      spec.centre_parent = weights(h.parent_body, o);
      spec.axis_point = weights(h.parent_body, o + axis_len * n);
      spec.parent_arm = weights(h.parent_body, o + arm * (h.joint_in_parent.R * e1));
      spec.centre_child = weights(h.child_body, Vector3d::Zero());
      spec.child_arm = weights(h.child_body, arm * e1);
      spec.child_arm2 = weights(h.child_body, arm * e2);
      spec.actuation = joint.actuation;
      // A follower has no motor: the coupling is its drive (friction stays),
      // and it has no rotor of its own (its leader's armature moves both).
      if (leader_of[h.joint] >= 0) {
        spec.actuation.torque_offset = spec.actuation.armature = 0.0;
        spec.actuation.gear_stiffness = spec.actuation.gear_backlash = spec.actuation.gear_damping = 0.0;
        spec.actuation.encoder_on_motor = false;
      }
      spec.lower = joint.type == JointType::kContinuous ? -1e300 : joint.lower;
      spec.upper = joint.type == JointType::kContinuous ? 1e300 : joint.upper;
      spec.initial_angle = angles[h.joint];  // the pose the bodies were placed in above
      (void)parent;
      builder.addHinge(spec);
    }
  }

  void addCouplings() {
    // ---- couplings: follower = multiplier x leader + offset ----
    const int first_hinge = builder.numHinges() - static_cast<int>(hinges.size());
    for (int j = 0; j < nj; ++j) {
      if (leader_of[j] < 0) continue;
      builder.addCoupling({first_hinge + out.joint_hinge[leader_of[j]], first_hinge + out.joint_hinge[j],
                           robot.joints[j].mimic.multiplier, robot.joints[j].mimic.offset});
    }
  }

  void addContacts() {
    // ---- contact points ----
    for (const auto& [b, k] : contact_slot) {
      ContactPointSpec c;
      const std::array<double, 4> w = weights(b, body_contacts[b][k]);
      for (int j = 0; j < 4; ++j) {
        c.particles[j] = out.body_first_particle[b] + j;
        c.weights[j] = w[j];
      }
      out.contact_point.push_back(builder.addContactPoint(c));
    }
  }

  void addBands() {
    // ---- suit bands: via points are body points like the contacts, A(24) ----
    for (const RobotBand& band : bands) {
      if (band.links.size() != band.points.size()) {
        throw ModelError("band '" + band.name + "': one link per via point is needed");
      }
      BandSpec spec;
      spec.name = band.name;
      // Straps at the anchors (realism <attachments>) in series: the band as worn.
      spec.stiffness = wornStiffness(band);
      spec.natural_length = band.natural_length;
      spec.damping = wornDamping(band);
      spec.relaxing_stiffness = wornRelaxingStiffness(band);
      spec.relaxation_time = wornRelaxationTime(band);
      // The straps' give is spread along the band with k as worn (exact
      // without capstan friction, which puts them at its two ends).
      spec.capstan_friction = band.capstan_friction;
      for (std::size_t j = 0; j < band.links.size(); ++j) {
        const int l = robot.findLink(band.links[j]);
        if (l < 0) throw ModelError("band '" + band.name + "': via point on unknown link '" + band.links[j] + "'");
        const int b = out.link_body[l];
        spec.via_body.push_back(body_index[b]);
        spec.via_weight.push_back(weights(b, link_in_body[l].apply(toEigen(band.points[j]))));
      }
      if (spec.natural_length < 0.0) spec.natural_length = builder.initialBandLength(spec);
      out.band.push_back(builder.addBand(spec));
      out.band_natural_length.push_back(spec.natural_length);
    }
  }

  // Indices as the builder numbers them, and each link's frame in its body
  // and in the world at the initial pose.
  void finish() {
    for (int& b : out.link_body) b += first_body;
    // Hinge indices as the builder numbers them (a second robot, such as a
    // worn device, comes after the first's hinges).
    const int hinge_offset = builder.numHinges() - static_cast<int>(hinges.size());
    for (int& h : out.joint_hinge) {
      if (h >= 0) h += hinge_offset;
    }
    out.link_in_body.resize(nl);
    for (int l = 0; l < nl; ++l) {
      Pose p;
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) p.R[3 * r + c] = link_in_body[l].R(r, c);
        p.p[r] = link_in_body[l].p[r];
      }
      out.link_in_body[l] = p;
    }
    out.link_world.resize(nl);
    for (int l = 0; l < nl; ++l) {
      const Transform t = bodies[out.link_body[l] - first_body].world * link_in_body[l];
      Pose p;
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) p.R[3 * r + c] = t.R(r, c);
        p.p[r] = t.p[r];
      }
      out.link_world[l] = p;
    }
  }
};

}  // namespace

CompiledRobot addRobot(ModelBuilder& builder, const RobotDescription& robot, const RobotPose& pose,
                       const std::vector<ContactPoint>& contacts, const RobotCompileOptions& options,
                       const std::vector<RobotBand>& bands) {
  RobotCompiler c(builder, robot, pose, contacts, options, bands);
  c.check();
  c.mergeFixedJoints();
  c.mergeInertials();
  c.resolveMimic();
  c.placeBodies();
  c.makeClusters();
  c.addParticles();
  c.addHinges();
  c.addCouplings();
  c.addContacts();
  c.addBands();
  c.finish();
  return c.out;
}

}  // namespace suitsim
