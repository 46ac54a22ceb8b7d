// Building the rigid model from a RobotDescription: tree checks, fixed-joint
// merging and tree ordering. Uses only the description's data members (not
// its member functions), so it does not depend on robot.cpp.
#include "suitsim/rigid/rigid_model.h"

#include "suitsim/core/inertia.h"
#include "suitsim/core/rotation.h"

#include <algorithm>

#include <cmath>
#include <stdexcept>

#include "spatial.h"

namespace suitsim::eval {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;


[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument("makeRigidModel: " + what);
}

Vector3d toEigen(const Vec3& x) { return Vector3d(x[0], x[1], x[2]); }

bool isMovable(JointType type) {
  return type == JointType::kRevolute || type == JointType::kContinuous;
}

// Inertia accumulated about a body's origin while links are folded into it.
struct InertiaSum {
  double m = 0.0;
  Vector3d h = Vector3d::Zero();
  Matrix3d I = Matrix3d::Zero();
};

// Checks everything that can be checked joint by joint before walking the tree.
void checkJointsAndLinks(const RobotDescription& d) {
  const int num_links = static_cast<int>(d.links.size());
  if (num_links == 0) fail("robot '" + d.name + "' has no links");
  if (d.root_link < 0 || d.root_link >= num_links) {
    fail("root_link " + std::to_string(d.root_link) + " is not a link index (" +
         std::to_string(num_links) + " links)");
  }
  for (const RobotLink& link : d.links) {
    const LinkInertial& in = link.inertial;
    if (!std::isfinite(in.mass) || in.mass < 0.0) {
      fail("link '" + link.name + "' has mass " + std::to_string(in.mass) +
           "; it must be finite and >= 0");
    }
    bool finite = std::isfinite(in.com[0]) && std::isfinite(in.com[1]) && std::isfinite(in.com[2]);
    for (double x : in.inertia) finite = finite && std::isfinite(x);
    if (!finite) fail("link '" + link.name + "' has a non-finite CoM or inertia");
  }
  std::vector<int> parent_count(num_links, 0);
  for (const RobotJoint& j : d.joints) {
    if (j.type != JointType::kFixed && !isMovable(j.type)) {
      fail("joint '" + j.name + "' is " + jointTypeName(j.type) +
           "; the rigid model supports revolute, continuous and fixed joints only");
    }
    if (j.parent_link < 0 || j.parent_link >= num_links || j.child_link < 0 ||
        j.child_link >= num_links) {
      fail("joint '" + j.name + "' has parent_link " + std::to_string(j.parent_link) +
           " / child_link " + std::to_string(j.child_link) + " outside [0, " +
           std::to_string(num_links) + ")");
    }
    if (j.child_link == d.root_link) {
      fail("joint '" + j.name + "' has the root link '" + d.links[d.root_link].name +
           "' as its child");
    }
    if (++parent_count[j.child_link] > 1) {
      fail("link '" + d.links[j.child_link].name + "' is the child of more than one joint (joint '" +
           j.name + "')");
    }
    const Vector3d axis = toEigen(j.axis);
    if (isMovable(j.type) && !(axis.norm() > 1e-12 && axis.allFinite())) {
      fail("joint '" + j.name + "' has a zero or non-finite axis");
    }
    if (!toEigen(j.origin_xyz).allFinite() || !toEigen(j.origin_rpy).allFinite()) {
      fail("joint '" + j.name + "' has a non-finite origin");
    }
  }
}

}  // namespace

double RigidModel::totalMass() const {
  double m = 0.0;
  for (double x : body_mass) m += x;
  return m;
}

RigidModel makeRigidModel(const RobotDescription& d) {
  checkJointsAndLinks(d);
  const int num_links = static_cast<int>(d.links.size());

  // Child joints of every link, in description order (fixes the tree order).
  std::vector<std::vector<int>> child_joints(num_links);
  for (int j = 0; j < static_cast<int>(d.joints.size()); ++j) {
    child_joints[d.joints[j].parent_link].push_back(j);
  }

  RigidModel model;
  model.name = d.name;
  model.floating_base = d.floating_base;
  model.frame_name.resize(num_links);
  model.frame_body.assign(num_links, -1);
  model.frame_R.assign(num_links, Matrix3d::Identity());
  model.frame_p.assign(num_links, Vector3d::Zero());
  for (int l = 0; l < num_links; ++l) model.frame_name[l] = d.links[l].name;

  std::vector<InertiaSum> sums;
  auto addBody = [&](int parent, int link, const Matrix3d& R, const Vector3d& p,
                     const Vector3d& axis) {
    model.body_parent.push_back(parent);
    model.body_link.push_back(link);
    model.body_name.push_back(d.links[link].name);
    model.body_joint_R.push_back(R);
    model.body_joint_p.push_back(p);
    model.body_axis.push_back(axis);
    sums.emplace_back();
    return static_cast<int>(model.body_parent.size()) - 1;
  };

  // Depth-first walk from the root. A link is visited with the body it
  // belongs to and its placement in that body's frame. A fixed joint keeps the
  // body and composes the placement; a movable joint's child starts a new
  // body, created when it is popped so that bodies are numbered in pre-order
  // (every parent before its children); its joint frame is the composed
  // placement in the parent body.
  struct Visit {
    int link;
    int body;   // body of the link, or for a pending movable joint its parent body
    int joint;  // movable joint still to turn into a body; -1 otherwise
    Matrix3d R;
    Vector3d p;
  };
  std::vector<Visit> stack;
  stack.push_back({d.root_link,
                   addBody(-1, d.root_link, Matrix3d::Identity(), Vector3d::Zero(), Vector3d::Zero()),
                   -1, Matrix3d::Identity(), Vector3d::Zero()});
  int visited = 0;
  while (!stack.empty()) {
    Visit at = stack.back();
    stack.pop_back();
    if (model.frame_body[at.link] >= 0) {
      fail("link '" + d.links[at.link].name + "' is reached twice: the joints form a cycle");
    }
    if (at.joint >= 0) {
      const RobotJoint& j = d.joints[at.joint];
      at.body = addBody(at.body, at.link, at.R, at.p, toEigen(j.axis).normalized());
      model.joint_name.push_back(j.name);
      model.joint_source.push_back(at.joint);
      at.R = Matrix3d::Identity();
      at.p = Vector3d::Zero();
    }
    ++visited;
    model.frame_body[at.link] = at.body;
    model.frame_R[at.link] = at.R;
    model.frame_p[at.link] = at.p;

    // Fold the link's inertia into its body (parallel-axis theorem through
    // the about-origin form, which stays valid for massless links).
    const LinkInertial& in = d.links[at.link].inertial;
    const Matrix3d inertia_com = inertiaMatrix(in.inertia);
    const Vector3d com = toEigen(in.com);
    Vector3d h;
    Matrix3d I;
    detail::inertiaToParent(at.R, at.p, in.mass, in.mass * com,
                            detail::inertiaAboutOrigin(in.mass, com, inertia_com), &h, &I);
    InertiaSum& sum = sums[at.body];
    sum.m += in.mass;
    sum.h += h;
    sum.I += I;

    // Children pushed in reverse so they are popped in description order.
    const std::vector<int>& kids = child_joints[at.link];
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
      const RobotJoint& j = d.joints[*it];
      const Matrix3d R = at.R * rotationFromRpy(j.origin_rpy);
      const Vector3d p = at.p + at.R * toEigen(j.origin_xyz);
      stack.push_back({j.child_link, at.body, j.type == JointType::kFixed ? -1 : *it, R, p});
    }
  }
  if (visited != num_links) {
    for (int l = 0; l < num_links; ++l) {
      if (model.frame_body[l] < 0) {
        fail("link '" + d.links[l].name + "' is not connected to the root link '" +
             d.links[d.root_link].name + "'");
      }
    }
  }

  model.num_bodies = static_cast<int>(model.body_parent.size());
  model.num_joints = model.num_bodies - 1;
  // <mimic> couplings between movable joints (a follower frozen by a scene
  // is fixed and no longer coupled: RobotDescription::mimicLeader).
  model.joint_mimic_leader.assign(model.num_joints, -1);
  model.joint_mimic_multiplier.assign(model.num_joints, 1.0);
  model.joint_mimic_offset.assign(model.num_joints, 0.0);
  for (int i = 0; i < model.num_joints; ++i) {
    const int source = model.joint_source[i];
    const int leader = d.mimicLeader(source);
    if (leader < 0) continue;
    const auto at = std::find(model.joint_source.begin(), model.joint_source.end(), leader);
    if (at == model.joint_source.end()) {
      fail("joint '" + model.joint_name[i] + "' mimics '" + d.joints[leader].name + "', which does not move");
    }
    if (d.mimicLeader(leader) >= 0) {
      fail("joint '" + model.joint_name[i] + "' mimics '" + d.joints[leader].name +
           "', which is itself a mimic joint (chains are not supported)");
    }
    model.joint_mimic_leader[i] = static_cast<int>(at - model.joint_source.begin());
    model.joint_mimic_multiplier[i] = d.joints[source].mimic.multiplier;
    model.joint_mimic_offset[i] = d.joints[source].mimic.offset;
  }
  model.base_dofs = model.floating_base ? 6 : 0;
  model.nv = model.base_dofs + model.num_joints;
  model.body_mass.resize(model.num_bodies);
  model.body_com.resize(model.num_bodies);
  model.body_inertia.resize(model.num_bodies);
  for (int b = 0; b < model.num_bodies; ++b) {
    const InertiaSum& s = sums[b];
    const Vector3d c = s.m > 0.0 ? Vector3d(s.h / s.m) : Vector3d::Zero();
    model.body_mass[b] = s.m;
    model.body_com[b] = c;
    // Back to the CoM; symmetrised so round-off cannot break symmetry.
    const Matrix3d Ic = s.I - (detail::inertiaAboutOrigin(s.m, c, Matrix3d::Zero()));
    model.body_inertia[b] = 0.5 * (Ic + Ic.transpose());
  }
  return model;
}

int jointIndex(const RigidModel& model, std::string_view name) {
  for (int j = 0; j < model.num_joints; ++j) {
    if (model.joint_name[j] == name) return j;
  }
  return -1;
}

int frameIndex(const RigidModel& model, std::string_view name) {
  for (int f = 0; f < model.numFrames(); ++f) {
    if (model.frame_name[f] == name) return f;
  }
  return -1;
}

int bodyIndex(const RigidModel& model, std::string_view name) {
  for (int b = 0; b < model.num_bodies; ++b) {
    if (model.body_name[b] == name) return b;
  }
  return -1;
}

Configuration neutralConfiguration(const RigidModel& model) {
  return Configuration(Eigen::VectorXd::Zero(model.num_joints));
}

RigidData::RigidData(const RigidModel& model)
    : body_R_W(model.num_bodies, Matrix3d::Identity()),
      body_p_W(model.num_bodies, Vector3d::Zero()),
      frame_R_W(model.numFrames(), Matrix3d::Identity()),
      frame_p_W(model.numFrames(), Vector3d::Zero()),
      body_v(model.num_bodies, Vector3d::Zero()),
      body_w(model.num_bodies, Vector3d::Zero()),
      body_a(model.num_bodies, Vector3d::Zero()),
      body_alpha(model.num_bodies, Vector3d::Zero()),
      body_f(model.num_bodies, Vector3d::Zero()),
      body_n(model.num_bodies, Vector3d::Zero()),
      body_R_parent(model.num_bodies, Matrix3d::Identity()),
      composite_mass(model.num_bodies, 0.0),
      composite_h(model.num_bodies, Vector3d::Zero()),
      composite_I(model.num_bodies, Matrix3d::Zero()),
      tau(Eigen::VectorXd::Zero(model.nv)),
      nle(Eigen::VectorXd::Zero(model.nv)),
      ddq(Eigen::VectorXd::Zero(model.nv)),
      M(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      ldlt(model.nv),
      zero(Eigen::VectorXd::Zero(model.nv)),
      rk_v0(Eigen::VectorXd::Zero(model.nv)),
      rk_k_v(Eigen::VectorXd::Zero(model.nv)),
      rk_sum_v(Eigen::VectorXd::Zero(model.nv)),
      rk_theta0(Eigen::VectorXd::Zero(model.num_joints)),
      rk_k_theta(Eigen::VectorXd::Zero(model.num_joints)),
      rk_sum_theta(Eigen::VectorXd::Zero(model.num_joints)),
      rk_v(Eigen::VectorXd::Zero(model.nv)),
      rk_F(Eigen::VectorXd::Zero(model.nv)),
      rk_q(Eigen::VectorXd::Zero(model.num_joints)) {}

}  // namespace suitsim::eval
