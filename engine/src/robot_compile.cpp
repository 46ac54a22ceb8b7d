// Compiling a robot description into particle clusters and hinges.
//
// Design note. Links joined by fixed joints are merged into one body. Each
// body becomes a cluster of particles:
//
//   structural particles, placed where the body meets the rest of the robot:
//     at its parent hinge: the centre J (at the joint, shared with the
//     parent's springs), the arms C1, C2 (perpendicular to the axis) and D (on
//     the axis, on the far side from the parent's axis particle);
//     at each child hinge: the axis particle A and the arm B;
//     at each contact point (sole corners): a contact particle;
//   four inertia particles, a tetrahedron around the residual centre of mass.
//
// Masses. A structural particle at offset y from the centre of mass gets
// mu = min(cap, beta / (n d^2)) with d^2 = y^T S^-1 y, S the body's second
// moment about its centre of mass (S = tr(I)/2 - I). By Cauchy-Schwarz their
// second moment is then at most beta S, so what is left for the inertia
// particles stays positive definite: S_r >= (1 - beta (1 + M_s/m_r)) S. The
// four inertia particles of mass m_r/4 sit at c_r + L v_i, v_i the unit
// tetrahedron (sum v v^T = 4/3), L = (3 S_r / m_r)^(1/2): together the
// cluster has exactly the body's mass, centre of mass and inertia tensor.
// Light structural particles where the body is thin in some direction are
// the price: they set the time step.
//
// Springs. Every pair of the body's particles (and the J of each child hinge)
// is joined, with k = (w^2/4) min(m_i, m_j) for the link frequency w and
// damping at the chosen ratio, rest length as built.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "suitsim/articulated.h"

namespace suitsim {

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

// URDF roll-pitch-yaw: fixed axes x, then y, then z: R = Rz(yaw) Ry(pitch) Rx(roll).
Matrix3d rpyToMatrix(const Vec3& rpy) {
  return (Eigen::AngleAxisd(rpy[2], Vector3d::UnitZ()) * Eigen::AngleAxisd(rpy[1], Vector3d::UnitY()) *
          Eigen::AngleAxisd(rpy[0], Vector3d::UnitX()))
      .toRotationMatrix();
}

Matrix3d inertiaMatrix(const std::array<double, 6>& i) {
  Matrix3d I;
  I << i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2];
  return I;
}

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

// One cluster's particles before they go into the builder.
struct ClusterParticle {
  std::string role;
  Vector3d position;  // body frame
  double mass = 0.0;
  bool contact = false;
};

}  // namespace

CompiledRobot addRobot(ModelBuilder& builder, const RobotDescription& robot, const RobotPose& pose,
                       const std::vector<ContactPoint>& contacts, const RobotCompileOptions& options) {
  const int nl = static_cast<int>(robot.links.size());
  const int nj = static_cast<int>(robot.joints.size());
  if (robot.root_link < 0 || robot.root_link >= nl) throw ModelError("robot '" + robot.name + "' has no root link");
  if (!pose.joint_angles.empty() && static_cast<int>(pose.joint_angles.size()) != nj) {
    throw ModelError("robot '" + robot.name + "': the pose gives " + std::to_string(pose.joint_angles.size()) +
                     " joint angles for " + std::to_string(nj) + " joints");
  }
  std::vector<std::vector<int>> child_joints(nl);
  for (int j = 0; j < nj; ++j) {
    const RobotJoint& joint = robot.joints[j];
    if (joint.parent_link < 0 || joint.parent_link >= nl || joint.child_link < 0 || joint.child_link >= nl) {
      throw ModelError("joint '" + joint.name + "' names a link that does not exist");
    }
    child_joints[joint.parent_link].push_back(j);
  }

  // ---- merge fixed joints; bodies in tree order (parents first) ----
  CompiledRobot out;
  const int first_body = builder.numBodies();
  out.link_body.assign(nl, -1);
  out.joint_hinge.assign(nj, -1);
  std::vector<Transform> link_in_body(nl);
  std::vector<Body> bodies;
  std::vector<Hinge> hinges;
  std::vector<int> queue{robot.root_link};
  bodies.push_back(Body{.link = robot.root_link});
  out.link_body[robot.root_link] = 0;
  for (std::size_t q = 0; q < queue.size(); ++q) {
    const int link = queue[q];
    for (int j : child_joints[link]) {
      const RobotJoint& joint = robot.joints[j];
      const int child = joint.child_link;
      if (out.link_body[child] >= 0) throw ModelError("link '" + robot.links[child].name + "' is reached twice");
      const Transform origin{rpyToMatrix(joint.origin_rpy), toEigen(joint.origin_xyz)};
      const Transform joint_in_body = link_in_body[link] * origin;
      if (joint.type == JointType::kFixed) {
        out.link_body[child] = out.link_body[link];
        link_in_body[child] = joint_in_body;
      } else if (joint.type == JointType::kRevolute || joint.type == JointType::kContinuous) {
        const Vector3d axis = toEigen(joint.axis);
        if (!(axis.norm() > 0.0)) throw ModelError("joint '" + joint.name + "' has a zero axis");
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
        throw ModelError("joint '" + joint.name +
                         "': the particle engine supports revolute, continuous and fixed joints only");
      }
      queue.push_back(child);
    }
  }
  for (int l = 0; l < nl; ++l) {
    if (out.link_body[l] < 0) throw ModelError("link '" + robot.links[l].name + "' is not connected to the root");
  }

  // ---- merged inertials: mass, first and second moments in body frames ----
  for (int l = 0; l < nl; ++l) {
    const LinkInertial& in = robot.links[l].inertial;
    if (!(in.mass >= 0.0) || !std::isfinite(in.mass)) throw ModelError("link '" + robot.links[l].name + "': bad mass");
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

  // ---- initial pose: forward kinematics of the bodies ----
  bodies[0].world = Transform{rpyToMatrix(pose.base_rpy), toEigen(pose.base_position)};
  for (std::size_t b = 1; b < bodies.size(); ++b) {
    const Hinge& h = hinges[bodies[b].parent_hinge];
    const double q = pose.joint_angles.empty() ? 0.0 : pose.joint_angles[h.joint];
    const Transform turn{Eigen::AngleAxisd(q, h.axis).toRotationMatrix(), Vector3d::Zero()};
    bodies[b].world = bodies[h.parent_body].world * h.joint_in_parent * turn;
  }

  // ---- contact points per body ----
  std::vector<std::vector<Vector3d>> body_contacts(bodies.size());
  std::vector<std::pair<int, int>> contact_slot;  // (body, index in body_contacts)
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

  // ---- clusters ----
  const bool fixed_root = !robot.floating_base;
  // Hinge arm and axis lengths: given, or scaled to the body (a fraction of
  // its radius of gyration): the off-axis stiffness of a hinge grows with
  // the square of its arms, and the inertia caps mass times arm squared.
  auto bodySize = [&](const Body& b) {
    if (!(b.mass > 0.0)) return 0.05;
    const Vector3d c = b.first_moment / b.mass;
    const double trace_S = (b.second_moment - b.mass * c * c.transpose()).trace();
    return std::clamp(0.7 * std::sqrt(std::max(0.0, trace_S) / b.mass), 0.03, 0.2);
  };
  auto armOf = [&](const Body& b) { return options.arm_length > 0.0 ? options.arm_length : bodySize(b); };
  auto axisOf = [&](const Body& b) { return options.axis_length > 0.0 ? options.axis_length : bodySize(b); };
  std::vector<std::vector<ClusterParticle>> clusters(bodies.size());
  for (std::size_t bi = 0; bi < bodies.size(); ++bi) {
    const Body& b = bodies[bi];
    const std::string& name = robot.links[b.link].name;
    std::vector<ClusterParticle>& cl = clusters[bi];
    if (bi == 0 && fixed_root) {
      // A welded root only anchors its children: structural particles, fixed
      // in the world, so their (nominal) masses play no part.
      for (int hc : b.child_hinges) {
        const Hinge& h = hinges[hc];
        const Vector3d n = h.joint_in_parent.R * h.axis;
        cl.push_back({"A", h.joint_in_parent.p + 0.05 * n, 1.0});
        cl.push_back({"B", h.joint_in_parent.p + 0.05 * h.joint_in_parent.R * perpendicular(h.axis), 1.0});
      }
      for (const Vector3d& c : body_contacts[bi]) cl.push_back({"contact", c, 1.0, true});
      continue;
    }
    if (!(b.mass > 0.0)) {
      throw ModelError("body '" + name + "' has no mass: every body the particle engine moves needs mass");
    }
    const Vector3d com = b.first_moment / b.mass;
    const Matrix3d S = b.second_moment - b.mass * com * com.transpose();
    const Eigen::SelfAdjointEigenSolver<Matrix3d> eig(0.5 * (S + S.transpose()));
    if (!(eig.eigenvalues().minCoeff() > 1e-9 * std::max(1e-300, eig.eigenvalues().sum()))) {
      throw ModelError("body '" + name +
                       "' is flat or a line (an inertia tensor on the triangle-inequality bound): a particle "
                       "cluster needs volume");
    }

    if (b.parent_hinge >= 0) {
      const Vector3d n = hinges[b.parent_hinge].axis;
      const Vector3d e1 = perpendicular(n), e2 = n.cross(e1);
      cl.push_back({"J", Vector3d::Zero()});
      cl.push_back({"C1", armOf(b) * e1});
      cl.push_back({"C2", armOf(b) * e2});
      cl.push_back({"D", -axisOf(b) * n});
    }
    for (int hc : b.child_hinges) {
      const Hinge& h = hinges[hc];
      const Vector3d n = h.joint_in_parent.R * h.axis;
      const Vector3d e1 = h.joint_in_parent.R * perpendicular(h.axis);  // the child's C1 direction at q = 0
      cl.push_back({"A", h.joint_in_parent.p + axisOf(b) * n});
      cl.push_back({"B", h.joint_in_parent.p + armOf(b) * e1});
    }
    for (const Vector3d& c : body_contacts[bi]) cl.push_back({"contact", c, 0.0, true});

    // Structural masses (see the design note), then the residual.
    const int ns = static_cast<int>(cl.size());
    const Matrix3d S_inv_sqrt = eig.eigenvectors() * eig.eigenvalues().cwiseInverse().cwiseSqrt().asDiagonal() *
                                eig.eigenvectors().transpose();
    // Residual mass, centre and second moment left for the inertia particles.
    auto residual = [&](double* mr, Vector3d* cr, Matrix3d* Sr) {
      double ms = 0.0;
      Vector3d fs = Vector3d::Zero();
      Matrix3d qs = Matrix3d::Zero();
      for (const ClusterParticle& p : cl) {
        ms += p.mass;
        fs += p.mass * p.position;
        qs += p.mass * p.position * p.position.transpose();
      }
      *mr = b.mass - ms;
      *cr = (b.first_moment - fs) / *mr;
      *Sr = b.second_moment - qs - *mr * *cr * cr->transpose();
    };
    // Feasible: the residual keeps a share of S in every direction (so the
    // inertia tetrahedron keeps its volume) and a quarter of the mass.
    auto feasible = [&] {
      double mr;
      Vector3d cr;
      Matrix3d Sr;
      residual(&mr, &cr, &Sr);
      if (mr < 0.25 * b.mass) return false;
      const Matrix3d relative = S_inv_sqrt * Sr * S_inv_sqrt;
      return Eigen::SelfAdjointEigenSolver<Matrix3d>(0.5 * (relative + relative.transpose())).eigenvalues().minCoeff() >=
             0.05;
    };
    // Masses in two passes. First every structural particle gets the same
    // share t of its cap (the centre J, which carries the whole joint load,
    // has three times the cap of the others), t as large as feasibility
    // allows. Then, most loaded first, each particle grows toward its cap as
    // far as the others leave room.
    auto cap = [&](const ClusterParticle& p) {
      return (p.role == "J" ? 3.0 : 1.0) * options.structural_mass_fraction * b.mass;
    };
    auto setShare = [&](double t) {
      for (ClusterParticle& p : cl) p.mass = t * cap(p);
    };
    double lo = 0.0, hi = 1.0;
    setShare(hi);
    if (feasible()) {
      lo = hi;
    } else {
      for (int it = 0; it < 50; ++it) {
        setShare(0.5 * (lo + hi));
        (feasible() ? lo : hi) = 0.5 * (lo + hi);
      }
    }
    setShare(lo);
    if (!(lo > 1e-6)) {
      throw ModelError("body '" + name +
                       "': its inertia leaves no room for particles at its joints and contact points (check the "
                       "inertia tensor and where the joints are)");
    }
    std::vector<int> order(ns);
    std::iota(order.begin(), order.end(), 0);
    auto rank = [&](const std::string& role) {
      return role == "J" ? 0 : role == "A" ? 1 : (role == "C1" || role == "C2") ? 2 : role == "B" ? 3 : 4;
    };
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return rank(cl[x].role) < rank(cl[y].role); });
    for (int k : order) {
      double low = cl[k].mass, high = cap(cl[k]);
      for (int it = 0; it < 40 && high > low * (1.0 + 1e-3); ++it) {
        cl[k].mass = 0.5 * (low + high);
        (feasible() ? low : high) = cl[k].mass;
      }
      cl[k].mass = low;
    }
    double mr;
    Vector3d cr;
    Matrix3d Sr;
    residual(&mr, &cr, &Sr);
    const Eigen::SelfAdjointEigenSolver<Matrix3d> eig_r(0.5 * (Sr + Sr.transpose()));
    // L = (3 S_r / m_r)^(1/2), the symmetric square root.
    const Matrix3d L = eig_r.eigenvectors() *
                       (3.0 * eig_r.eigenvalues().cwiseMax(0.0) / mr).cwiseSqrt().asDiagonal() *
                       eig_r.eigenvectors().transpose();
    const double s = 1.0 / std::sqrt(3.0);
    const Vector3d tetra[4] = {{s, s, s}, {s, -s, -s}, {-s, s, -s}, {-s, -s, s}};
    for (const Vector3d& v : tetra) cl.push_back({"inertia", cr + L * v, mr / 4.0});
  }

  // ---- particles and bodies into the builder ----
  out.first_particle = builder.numParticles();
  std::vector<std::vector<int>> cluster_index(bodies.size());
  for (std::size_t bi = 0; bi < bodies.size(); ++bi) {
    const std::string& name = robot.links[bodies[bi].link].name;
    BodySpec body{name, builder.numParticles(), 0, {}};
    std::map<std::string, int> role_count;
    for (const ClusterParticle& p : clusters[bi]) {
      ParticleSpec spec;
      spec.name = name + "." + p.role + std::to_string(role_count[p.role]++);
      spec.position = toVec3(bodies[bi].world.apply(p.position));
      spec.mass = p.mass;
      // A child of a welded root turns about a point fixed in the world: its
      // centre J is fixed too (a mass at the pivot adds no moment about it).
      spec.fixed = fixed_root && (bi == 0 || (p.role == "J" && hinges[bodies[bi].parent_hinge].parent_body == 0));
      spec.contact = p.contact;
      cluster_index[bi].push_back(builder.addParticle(spec));
      body.body_position.push_back(toVec3(p.position));
    }
    body.count = static_cast<int>(clusters[bi].size());
    builder.addBody(body);
    out.body_link.push_back(bodies[bi].link);
  }
  out.num_particles = builder.numParticles() - out.first_particle;

  // ---- springs: every pair of a body's particles, plus its children's J ----
  const double w2 = options.link_frequency * options.link_frequency;
  for (std::size_t bi = 0; bi < bodies.size(); ++bi) {
    std::vector<int> members = cluster_index[bi];
    for (int hc : bodies[bi].child_hinges) members.push_back(cluster_index[hinges[hc].child_body][0]);  // J
    for (std::size_t a = 0; a < members.size(); ++a) {
      for (std::size_t c = a + 1; c < members.size(); ++c) {
        if (builder.particle(members[a]).fixed && builder.particle(members[c]).fixed) continue;
        const double ma = builder.particle(members[a]).mass, mc = builder.particle(members[c]).mass;
        const double k = 0.25 * w2 * std::min(ma, mc);
        const double reduced = ma * mc / (ma + mc);
        builder.addSpring({members[a], members[c], k, 2.0 * options.link_damping_ratio * std::sqrt(k * reduced), -1.0});
      }
    }
  }

  // ---- hinges ----
  builder.setHingeSettings(options.hinge);
  for (const Hinge& h : hinges) {
    const RobotJoint& joint = robot.joints[h.joint];
    const std::vector<int>& child = cluster_index[h.child_body];
    const std::vector<int>& parent = cluster_index[h.parent_body];
    // The parent's A and B for this hinge: its position among the parent's
    // child hinges, after the parent's own J, C1, C2, D.
    const Body& pb = bodies[h.parent_body];
    const int slot = static_cast<int>(std::find(pb.child_hinges.begin(), pb.child_hinges.end(), out.joint_hinge[h.joint]) -
                                      pb.child_hinges.begin());
    const int base = (pb.parent_hinge >= 0 ? 4 : 0) + 2 * slot;
    HingeSpec spec;
    spec.name = joint.name;
    spec.centre = child[0];
    spec.child_arm = child[1];
    spec.child_arm2 = child[2];
    spec.axis_point = parent[base];
    spec.parent_arm = parent[base + 1];
    spec.actuation = joint.actuation;
    spec.lower = joint.type == JointType::kContinuous ? -1e300 : joint.lower;
    spec.upper = joint.type == JointType::kContinuous ? 1e300 : joint.upper;
    builder.addHinge(spec);
  }

  for (const auto& [b, k] : contact_slot) {
    const int structural_before = (bodies[b].parent_hinge >= 0 ? 4 : 0) + 2 * static_cast<int>(bodies[b].child_hinges.size());
    out.contact_particle.push_back(cluster_index[b][structural_before + k]);
  }
  for (int& b : out.link_body) b += first_body;
  out.link_in_body.resize(nl);
  for (int l = 0; l < nl; ++l) {
    Pose p;
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) p.R[3 * r + c] = link_in_body[l].R(r, c);
      p.p[r] = link_in_body[l].p[r];
    }
    out.link_in_body[l] = p;
  }
  return out;
}

}  // namespace suitsim
