// Robots in the particle engine: compiling a RobotDescription into particle
// clusters and rotation-plane hinges (robot_compile.cpp). Reading joint
// angles and link poses back from the particles is robot_readout.h.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "suitsim/builder.h"
#include "suitsim/model.h"
#include "suitsim/robot/robot.h"
#include "suitsim/robot/suit.h"
#include "suitsim/robot_readout.h"

namespace suitsim {

/// How a robot becomes particles. Each body is a tetrahedron of four equal
/// particles; its six springs get k = (link_frequency^2 / 4) (m / 4), and
/// explicit integration needs about dt < 1 / link_frequency. With rigid
/// links (hinge.link_model, the default) a body with hinges moves as a
/// rigid body whatever its springs (they only hold its shape against
/// integration drift), so they can be weak; with LinkModel::kSprings the
/// springs alone hold it, and the step must follow them (linkModes).
struct RobotCompileOptions {
  double link_frequency = 1000.0;     ///< target natural frequency of link springs (rad/s)
  double link_damping_ratio = 0.3;    ///< damping ratio of each link spring
  double arm_length = 0.0;   ///< hinge arms |C - J|, |B - J| (m); 0: 0.7 x the child's radius of gyration
  double axis_length = 0.0;  ///< axis point |A - J| (m); 0: 0.7 x the parent's radius of gyration
  HingeSettings hinge;                ///< constraint and friction settings
};

/// Where the robot starts: base pose and joint angles.
struct RobotPose {
  Vec3 base_position{0.0, 0.0, 0.0};  ///< root link origin in the world (m)
  Vec3 base_rpy{0.0, 0.0, 0.0};       ///< root link roll, pitch, yaw (rad), URDF convention
  std::vector<double> joint_angles;    ///< per description joint (rad); empty means all zero
  /// When set, the base is lowered or raised along the ground normal so that
  /// the lowest contact point just touches the ground plane.
  bool place_on_ground = false;
  Vec3 ground_normal{0.0, 0.0, 1.0};  ///< unit
  double ground_offset = 0.0;         ///< plane: normal . p = offset
};

/// What addRobot built, to find things again.
struct CompiledRobot {
  int first_particle = 0;
  int num_particles = 0;
  std::vector<int> link_body;         ///< body index of each description link (merged links share one)
  std::vector<Pose> link_in_body;     ///< each link's frame in its body's frame
  std::vector<Pose> link_world;       ///< each link's frame in the world, as built (the initial pose)
  std::vector<int> joint_hinge;       ///< builder hinge index of each description joint, -1 for fixed ones
  std::vector<int> contact_point;     ///< builder contact-point index of each ContactPoint, in order
  std::vector<int> body_link;         ///< description link that names each body of this robot
  std::vector<int> body_first_particle;  ///< first particle each body owns
  std::vector<int> body_num_particles;   ///< how many particles each body owns
  std::vector<int> band;                 ///< builder band index of each RobotBand, in order
  std::vector<double> band_natural_length;  ///< each band's l0 as compiled (auto resolved) (m)
};

/// Compiles the robot into `builder`: a particle tetrahedron per body (links
/// joined by fixed joints merged) whose mass, centre of mass and inertia
/// tensor equal the body's, joined by rotation-plane hinges between points
/// of the bodies. Revolute and
/// continuous joints become hinges; prismatic, planar and floating joints are
/// rejected (ModelError), as are moving bodies without mass. A fixed-base
/// robot's root particles are fixed in the world.
/// A <mimic> joint becomes a coupling of its hinge to its leader's
/// (follower = multiplier x leader + offset, ModelBuilder::addCoupling): it
/// starts at that angle whatever `pose` says, and has no motor (its torque
/// offset is dropped). A mimic joint that is fixed (frozen) is not coupled;
/// a moving one whose leader is fixed is a ModelError.
/// `bands` become builder bands whose via points are fixed on the bodies of
/// their links (unknown links: ModelError).
CompiledRobot addRobot(ModelBuilder& builder, const RobotDescription& robot, const RobotPose& pose,
                       const std::vector<ContactPoint>& contacts, const RobotCompileOptions& options,
                       const std::vector<RobotBand>& bands = {});

}  // namespace suitsim
