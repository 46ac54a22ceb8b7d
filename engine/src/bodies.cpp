// Reading joints and link poses back from the particles.
#include <Eigen/Dense>

#include "forces.h"
#include "suitsim/robot_readout.h"

namespace suitsim {

double jointAngle(const Model& model, const State& state, int hinge) {
  double angle = 0.0, rate = 0.0;
  detail::readHinge(model, state, hinge, &angle, &rate);
  return angle;
}

double jointVelocity(const Model& model, const State& state, int hinge) {
  double angle = 0.0, rate = 0.0;
  detail::readHinge(model, state, hinge, &angle, &rate);
  return rate;
}

double encoderAngle(const Model& model, const State& state, int hinge) {
  return model.hinge_encoder_on_motor[hinge] ? state.rotor_angle[hinge] : jointAngle(model, state, hinge);
}

double encoderVelocity(const Model& model, const State& state, int hinge) {
  return model.hinge_encoder_on_motor[hinge] ? state.rotor_velocity[hinge] : jointVelocity(model, state, hinge);
}

int findHinge(const Model& model, const std::string& name) {
  for (int h = 0; h < model.num_hinges; ++h) {
    if (model.hinge_name[h] == name) return h;
  }
  return -1;
}

int findBody(const Model& model, const std::string& name) {
  for (int b = 0; b < model.num_bodies; ++b) {
    if (model.body_name[b] == name) return b;
  }
  return -1;
}

Pose bodyPose(const Model& model, const State& state, int body) {
  const int begin = model.body_particle_begin[body], end = model.body_particle_end[body];
  double mass = 0.0;
  Eigen::Vector3d mean_body = Eigen::Vector3d::Zero(), mean_world = Eigen::Vector3d::Zero();
  for (int i = begin; i < end; ++i) {
    const double m = model.particle_mass[i];
    mass += m;
    mean_body += m * Eigen::Vector3d(model.particle_body_position.x[i], model.particle_body_position.y[i],
                                     model.particle_body_position.z[i]);
    mean_world += m * Eigen::Vector3d(state.position.x[i], state.position.y[i], state.position.z[i]);
  }
  mean_body /= mass;
  mean_world /= mass;
  // Cross-covariance of body-frame and world positions; its polar factor is
  // the rotation that best maps one onto the other (Kabsch).
  Eigen::Matrix3d H = Eigen::Matrix3d::Zero();
  for (int i = begin; i < end; ++i) {
    const Eigen::Vector3d xb = Eigen::Vector3d(model.particle_body_position.x[i], model.particle_body_position.y[i],
                                               model.particle_body_position.z[i]) -
                               mean_body;
    const Eigen::Vector3d xw =
        Eigen::Vector3d(state.position.x[i], state.position.y[i], state.position.z[i]) - mean_world;
    H += model.particle_mass[i] * xb * xw.transpose();
  }
  const Eigen::JacobiSVD<Eigen::Matrix3d> svd(H, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Eigen::Matrix3d D = Eigen::Matrix3d::Identity();
  D(2, 2) = (svd.matrixV() * svd.matrixU().transpose()).determinant() < 0.0 ? -1.0 : 1.0;
  const Eigen::Matrix3d R = svd.matrixV() * D * svd.matrixU().transpose();
  const Eigen::Vector3d p = mean_world - R * mean_body;
  Pose pose;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) pose.R[3 * r + c] = R(r, c);
    pose.p[r] = p[r];
  }
  return pose;
}

void bodyVelocity(const Model& model, const State& state, int body, Vec3* v_com, Vec3* omega) {
  const int begin = model.body_particle_begin[body], end = model.body_particle_end[body];
  double mass = 0.0;
  Eigen::Vector3d com = Eigen::Vector3d::Zero(), v = Eigen::Vector3d::Zero();
  for (int i = begin; i < end; ++i) {
    const double m = model.particle_mass[i];
    mass += m;
    com += m * Eigen::Vector3d(state.position.x[i], state.position.y[i], state.position.z[i]);
    v += m * Eigen::Vector3d(state.velocity.x[i], state.velocity.y[i], state.velocity.z[i]);
  }
  com /= mass;
  v /= mass;
  // Angular momentum about the centre of mass divided by the inertia: the
  // exact angular velocity when the cluster moves rigidly.
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();
  Eigen::Vector3d h = Eigen::Vector3d::Zero();
  for (int i = begin; i < end; ++i) {
    const double m = model.particle_mass[i];
    const Eigen::Vector3d r = Eigen::Vector3d(state.position.x[i], state.position.y[i], state.position.z[i]) - com;
    const Eigen::Vector3d dv = Eigen::Vector3d(state.velocity.x[i], state.velocity.y[i], state.velocity.z[i]) - v;
    inertia += m * (r.squaredNorm() * Eigen::Matrix3d::Identity() - r * r.transpose());
    h += m * r.cross(dv);
  }
  const Eigen::Vector3d w = inertia.ldlt().solve(h);
  *v_com = {v.x(), v.y(), v.z()};
  *omega = {w.x(), w.y(), w.z()};
}

}  // namespace suitsim
