// Balance on the rigid model (balance.h) against closed forms: polygon
// geometry, a box foot's support rectangle, the ZMP of a single rigid box
// under linear and angular acceleration (the cart-table relations), the
// static ZMP of JVRC-1 equal to its CoM projection, and the feet-flat base
// velocity that keeps the support foot still.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <cmath>
#include <string>
#include <vector>

#include "suitsim/rigid/balance.h"
#include "suitsim/rigid/dynamics.h"
#include "suitsim/rigid/kinematics.h"
#include "suitsim/scene/scene.h"
#include "suitsim/scene/stance.h"
#include "suitsim/robot/robot.h"

namespace suitsim::eval {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector2d;
using Eigen::Vector3d;
using Eigen::VectorXd;

SupportPolygon rectangle(double x0, double x1, double y0, double y1) {
  return convexHull({{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}});
}

TEST(Balance, ConvexHullDropsInteriorAndCollinearPointsCounterClockwise) {
  const SupportPolygon hull =
      convexHull({{0, 0}, {2, 0}, {1, 0}, {2, 1}, {0, 1}, {1, 0.5}, {0.5, 0.25}, {2, 0.5}, {0, 0}});
  ASSERT_EQ(hull.vertices.size(), 4u);
  // Counter-clockwise: positive signed area 2 (shoelace).
  double area2 = 0.0;
  for (std::size_t k = 0; k < 4; ++k) {
    const Vector2d& a = hull.vertices[k];
    const Vector2d& b = hull.vertices[(k + 1) % 4];
    area2 += a.x() * b.y() - a.y() * b.x();
  }
  EXPECT_DOUBLE_EQ(area2, 4.0);
}

TEST(Balance, MarginIsTheSignedDistanceToTheEdge) {
  const SupportPolygon r = rectangle(0.0, 2.0, 0.0, 1.0);
  EXPECT_DOUBLE_EQ(polygonMargin(r, {1.0, 0.5}), 0.5);
  EXPECT_DOUBLE_EQ(polygonMargin(r, {0.2, 0.5}), 0.2);
  EXPECT_DOUBLE_EQ(polygonMargin(r, {3.0, 0.5}), -1.0);
  EXPECT_DOUBLE_EQ(polygonMargin(r, {3.0, 2.0}), -std::sqrt(2.0));  // nearest: the corner
  EXPECT_DOUBLE_EQ(polygonMargin(r, {2.0, 0.3}), 0.0);
  // A segment has no inside.
  EXPECT_DOUBLE_EQ(polygonMargin(convexHull({{0, 0}, {1, 0}}), {0.5, 0.25}), -0.25);
}

TEST(Balance, CentroidShrinkAndClosestPoint) {
  const SupportPolygon r = rectangle(0.0, 2.0, 0.0, 1.0);
  EXPECT_TRUE(polygonCentroid(r).isApprox(Vector2d(1.0, 0.5), 1e-15));
  const SupportPolygon tri = convexHull({{0, 0}, {3, 0}, {0, 3}});
  EXPECT_TRUE(polygonCentroid(tri).isApprox(Vector2d(1.0, 1.0), 1e-15));

  const SupportPolygon inner = shrinkPolygon(r, 0.1);
  ASSERT_EQ(inner.vertices.size(), 4u);
  const SupportPolygon expected = rectangle(0.1, 1.9, 0.1, 0.9);
  for (const Vector2d& v : expected.vertices) EXPECT_NEAR(polygonMargin(inner, v), 0.0, 1e-15);
  EXPECT_NEAR(polygonMargin(inner, {1.0, 0.5}), 0.4, 1e-15);
  EXPECT_TRUE(shrinkPolygon(r, 0.6).empty());  // the rectangle is 1 m wide

  EXPECT_TRUE(closestPointInPolygon(r, {1.0, 0.5}).isApprox(Vector2d(1.0, 0.5)));
  EXPECT_TRUE(closestPointInPolygon(r, {3.0, 0.5}).isApprox(Vector2d(2.0, 0.5)));
  EXPECT_TRUE(closestPointInPolygon(r, {-1.0, -1.0}).isApprox(Vector2d(0.0, 0.0)));
}

TEST(Balance, TiltedGroundHasOrthonormalAxes) {
  const GroundPlane g = makeGroundPlane({0.0, 0.3, 1.0}, 0.2);
  EXPECT_NEAR(g.normal.norm(), 1.0, 1e-15);
  EXPECT_NEAR(g.u.dot(g.normal), 0.0, 1e-15);
  EXPECT_NEAR(g.v.dot(g.u), 0.0, 1e-15);
  EXPECT_TRUE(g.normal.cross(g.u).isApprox(g.v));
  const Vector3d p = groundPoint(g, {0.4, -0.7});
  EXPECT_NEAR(heightAboveGround(g, p), 0.0, 1e-15);
  EXPECT_TRUE(groundCoordinates(g, p).isApprox(Vector2d(0.4, -0.7)));
}

// One floating box: half sizes (a, b, c), mass m, centre at its frame origin.
struct Box {
  double a = 0.12, b = 0.05, c = 0.2, m = 3.0;
  RobotDescription description() const {
    RobotDescription d;
    d.name = "box";
    RobotLink link;
    link.name = "box";
    link.inertial.mass = m;
    link.inertial.inertia = {m * (b * b + c * c) / 3.0, m * (a * a + c * c) / 3.0, m * (a * a + b * b) / 3.0,
                             0.0, 0.0, 0.0};
    d.links.push_back(link);
    d.root_link = 0;
    d.floating_base = true;
    return d;
  }
  std::vector<ContactPoint> soles() const {
    return {{0, {-a, -b, -c}}, {0, {a, -b, -c}}, {0, {a, b, -c}}, {0, {-a, b, -c}}};
  }
};

TEST(Balance, BoxFootSupportPolygonIsItsSoleRectangle) {
  const Box box;
  const RigidModel model = makeRigidModel(box.description());
  RigidData data(model);
  // Standing on the ground at (0.3, -0.1), turned 0.4 rad about z.
  const double yaw = 0.4;
  Configuration q = neutralConfiguration(model);
  q.base_R = Eigen::AngleAxisd(yaw, Vector3d::UnitZ()).toRotationMatrix();
  q.base_p = Vector3d(0.3, -0.1, box.c);
  const GroundPlane ground = makeGroundPlane(Vector3d::UnitZ(), 0.0);
  const SupportPolygon poly = supportPolygon(model, data, q, box.soles(), ground);
  ASSERT_EQ(poly.vertices.size(), 4u);
  const Matrix3d& R = q.base_R;
  for (const ContactPoint& c : box.soles()) {
    const Vector3d corner = q.base_p + R * c.point_F;
    EXPECT_NEAR(polygonMargin(poly, corner.head<2>()), 0.0, 1e-15);
  }
  // Centroid at the box's centre; the margin there is the half width b.
  EXPECT_TRUE(polygonCentroid(poly).isApprox(Vector2d(0.3, -0.1), 1e-14));
  EXPECT_NEAR(polygonMargin(poly, {0.3, -0.1}), box.b, 1e-15);
  // Lifted 2 mm it touches nothing (tolerance 1 mm).
  q.base_p.z() += 2e-3;
  EXPECT_TRUE(supportPolygon(model, data, q, box.soles(), ground).empty());
}

TEST(Balance, BoxZmpMatchesTheCartTableRelations) {
  const Box box;
  const RigidModel model = makeRigidModel(box.description());
  RigidData data(model);
  const double h = 0.9;  // centre of mass height
  Configuration q = neutralConfiguration(model);
  q.base_p = Vector3d(0.1, 0.05, h);
  const GroundPlane ground = makeGroundPlane(Vector3d::UnitZ(), 0.0);
  const double g = 9.81;
  VectorXd v = VectorXd::Zero(6), a = VectorXd::Zero(6);

  // At rest: under the CoM.
  EXPECT_TRUE(zeroMomentPoint(model, data, q, v, a, ground).isApprox(Vector2d(0.1, 0.05), 1e-14));

  // Accelerating forward and up: x_zmp = x_c − h ẍ / (g + z̈).
  a.head<3>() = Vector3d(1.5, -0.7, 2.0);
  const Vector2d zmp = zeroMomentPoint(model, data, q, v, a, ground);
  EXPECT_NEAR(zmp.x(), 0.1 - h * 1.5 / (g + 2.0), 1e-14);
  EXPECT_NEAR(zmp.y(), 0.05 + h * 0.7 / (g + 2.0), 1e-14);

  // Spinning up about y about its CoM: I_yy α = −(x_zmp − x_c) m g.
  a.setZero();
  a(4) = 3.0;
  const double iyy = box.m * (box.a * box.a + box.c * box.c) / 3.0;
  EXPECT_NEAR(zeroMomentPoint(model, data, q, v, a, ground).x(), 0.1 - iyy * 3.0 / (box.m * g), 1e-14);

  // No weight on the ground (free fall): no ZMP.
  a.head<3>() = Vector3d(0.0, 0.0, -g);
  a(4) = 0.0;
  EXPECT_THROW(zeroMomentPoint(model, data, q, v, a, ground), std::runtime_error);
}

TEST(Balance, ComJacobianMatchesFiniteDifferences) {
  const io::Scene scene = io::loadScene(std::string(SUITSIM_SOURCE_DIR) + "/scenes/jvrc1_stand.xml");
  const io::Stance stance = io::makeStance(*scene.robot);
  const RigidModel& model = stance.model;
  RigidData data(model);
  Configuration q = stance.initial;
  for (int j = 0; j < model.num_joints; ++j) q.joints(j) += 0.1 * std::sin(1.7 * j);
  forwardKinematics(model, data, q);
  Eigen::MatrixXd J(3, model.nv);
  comJacobian(model, data, J);
  const double eps = 1e-6;
  for (int k = 0; k < model.nv; ++k) {
    Configuration qp = q, qm = q;
    if (k < 3) {
      qp.base_p += eps * q.base_R.col(k);
      qm.base_p -= eps * q.base_R.col(k);
    } else if (k < 6) {
      qp.base_R = q.base_R * Eigen::AngleAxisd(eps, Vector3d::Unit(k - 3)).toRotationMatrix();
      qm.base_R = q.base_R * Eigen::AngleAxisd(-eps, Vector3d::Unit(k - 3)).toRotationMatrix();
    } else {
      qp.joints(k - 6) += eps;
      qm.joints(k - 6) -= eps;
    }
    const Vector3d d = (centerOfMass(model, data, qp) - centerOfMass(model, data, qm)) / (2 * eps);
    EXPECT_NEAR((d - J.col(k)).norm(), 0.0, 1e-9) << "column " << k;
  }
}

TEST(Balance, JvrcStaticZmpIsTheComProjectionAndFeetFlatKeepsTheFootStill) {
  const io::Scene scene = io::loadScene(std::string(SUITSIM_SOURCE_DIR) + "/scenes/jvrc1_stand.xml");
  const io::Stance stance = io::makeStance(*scene.robot);
  const RigidModel& model = stance.model;
  RigidData data(model);
  const VectorXd zero = VectorXd::Zero(model.nv);
  const Vector3d com = centerOfMass(model, data, stance.initial);
  const Vector2d zmp = zeroMomentPoint(model, data, stance.initial, zero, zero, stance.ground);
  EXPECT_NEAR((zmp - com.head<2>()).norm(), 0.0, 1e-12);
  // The soles are on the ground: eight corners, a rectangle around both feet.
  const SupportPolygon poly = supportPolygon(model, data, stance.initial, stance.contacts, stance.ground);
  EXPECT_EQ(poly.vertices.size(), 4u);
  EXPECT_GT(polygonMargin(poly, zmp), 0.0);

  // Feet flat: with the joints turning, the base velocity keeps the first
  // grounded foot still.
  const std::vector<int> feet = io::groundedLinks(stance, data);
  ASSERT_EQ(feet.size(), 2u);
  const FramePose foot = io::initialFramePose(stance, data, feet[0]);
  Configuration q = stance.initial;
  for (int j = 0; j < model.num_joints; ++j) q.joints(j) += 0.05 * std::cos(0.9 * j);
  placeBaseOnSupport(model, data, foot, q);
  forwardKinematics(model, data, q);
  EXPECT_NEAR((data.frame_p_W[foot.frame] - foot.p_W).norm(), 0.0, 1e-14);
  EXPECT_NEAR((data.frame_R_W[foot.frame] - foot.R_W).norm(), 0.0, 1e-14);
  VectorXd rates(model.num_joints), v;
  for (int j = 0; j < model.num_joints; ++j) rates(j) = std::sin(0.3 + j);
  feetFlatVelocity(model, data, q, foot, rates, v);
  Vector3d v_W, w_W;
  forwardKinematics(model, data, q, v);
  frameVelocity(model, data, foot.frame, &v_W, &w_W);
  EXPECT_LT(v_W.norm(), 1e-12);
  EXPECT_LT(w_W.norm(), 1e-12);
}

}  // namespace
}  // namespace suitsim::eval
