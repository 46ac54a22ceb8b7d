"""Your own controller in Python: JVRC-1 standing with the scene's servo
switched off and a PD law of your own commanding the motors at the servo's
rate. Here the law is the servo's with its stiffness scaled (--kp-scale),
so you can see how much the robot sags under gravity; compare with the
built-in servo stepped alongside.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/custom_controller.py [--seconds S] [--kp-scale F]
"""

import argparse
import os

import numpy as np

import suitsim

here = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser()
parser.add_argument("--scene", default=os.path.join(here, "..", "..", "scenes", "jvrc1_stand.xml"))
parser.add_argument("--seconds", type=float, default=2.0)
parser.add_argument("--kp-scale", type=float, default=0.5)
args = parser.parse_args()

scene = suitsim.load_scene(args.scene)
sim = scene.simulation(servo=False)  # we command the motors
builtin = scene.simulation()         # the scene's own servo, for comparison
hold = sim.encoder_angles.copy()     # stand in the initial pose
kp, kd = args.kp_scale * sim.kp, sim.kd
period = sim.steps_per_servo_period


def control():
    q, qd = sim.encoder_angles, sim.encoder_rates
    sim.set_joint_torques(kp * (hold - q) - kd * qd)


control()
worst = np.zeros(len(hold))
for _ in range(int(round(args.seconds / (period * sim.dt)))):
    sim.step(period)
    builtin.step(period)
    control()
    worst = np.maximum(worst, np.abs(sim.joint_angles - hold))

j = int(np.argmax(worst))
print(f"{sim.time:.3f} s with kp x {args.kp_scale:g}: largest sag {np.degrees(worst[j]):.3f} deg at {sim.joint_names[j]}")
print(f"built-in servo at the same joint: {np.degrees(abs(builtin.joint_angles[j] - hold[j])):.3f} deg")
