"""Stepping from Python: a PD controller written in Python, run at the
servo's rate on JVRC-1 standing, gives the built-in servo's trajectory to
the last bit; stepping one step at a time gives the same state as one call
for all of them; a divergence is a RuntimeError."""

import numpy as np
import pytest

import suitsim
from conftest import source_path

STAND = source_path("scenes/jvrc1_stand.xml")
SECONDS = 0.5


def python_pd(sim, hold):
    # The servo's law, A(6) inverted: tau = kp (q_ref - q) + kd (qd_ref - qd).
    q, qd = sim.encoder_angles, sim.encoder_rates
    sim.set_joint_torques(sim.kp * (hold - q) + sim.kd * (0.0 - qd))


def test_python_pd_matches_the_builtin_servo_bit_for_bit():
    scene = suitsim.load_scene(STAND)
    builtin = scene.simulation()
    own = scene.simulation(servo=False)
    assert np.all(own.currents == 0.0)  # nothing commands the motors but us
    hold = own.encoder_angles.copy()
    period = own.steps_per_servo_period
    steps = int(round(SECONDS / own.dt))
    assert steps % period == 0
    python_pd(own, hold)
    np.testing.assert_array_equal(own.currents, builtin.currents)
    for _ in range(steps // period):
        own.step(period)
        builtin.step(period)
        python_pd(own, hold)
    assert own.time == builtin.time
    np.testing.assert_array_equal(own.joint_angles, builtin.joint_angles)
    np.testing.assert_array_equal(own.positions, builtin.positions)
    np.testing.assert_array_equal(own.velocities, builtin.velocities)
    np.testing.assert_array_equal(own.currents, builtin.currents)
    # Not a robot at rest: gravity moved it and the servo pushed back.
    assert np.max(np.abs(own.joint_angles - hold)) > 1e-6


def test_stepping_one_at_a_time_gives_the_same_bits():
    scene = suitsim.load_scene(STAND)
    a, b = scene.simulation(), scene.simulation()
    for _ in range(200):
        a.step(1)
    b.step(200)
    np.testing.assert_array_equal(a.positions, b.positions)
    np.testing.assert_array_equal(a.joint_angles, b.joint_angles)


def test_views_follow_the_engine():
    sim = suitsim.load_scene(STAND).simulation(servo=False)
    angles = sim.joint_angles
    before = angles.copy()
    sim.step(20)
    assert not np.array_equal(angles, before)  # a view, not a copy
    with pytest.raises(ValueError):
        angles[0] = 1.0  # the engine's own state: read-only
    sim.currents[:] = 0.5
    assert np.all(sim.currents == 0.5)
    assert len(sim.joint_names) == len(angles) == len(sim.kp)


def test_a_divergence_is_a_runtime_error():
    sim = suitsim.load_scene(STAND).simulation(servo=False)
    sim.currents[:] = 1e300
    with pytest.raises(RuntimeError, match="diverged"):
        sim.step(50)


def test_wrong_number_of_torques():
    sim = suitsim.load_scene(STAND).simulation(servo=False)
    with pytest.raises(ValueError, match="one torque per joint"):
        sim.set_joint_torques([1.0, 2.0])


def test_a_simulation_logs_what_a_run_writes(tmp_path):
    # The same trial stepped here and run by scene.run: the sensor rows
    # agree to the 12 digits sensors.csv keeps (same noise draws too).
    scene = suitsim.load_scene(source_path("scenes/h1_protocol.xml"), duration=0.2)
    trial = scene.trials[0].name
    run = scene.run(trials=[trial]).streams[trial]
    sim = scene.simulation(trial)
    sim.step(int(round(0.2 / sim.dt)))
    log = sim.sensor_log
    assert log.channels == run.channels and log.units == run.units
    rows = min(len(log), len(run))
    assert rows >= len(run) - 1 > 10
    rounded = np.vectorize(lambda v: float(f"{v:.12g}"))(log.data[:rows])
    np.testing.assert_array_equal(rounded, run.data[:rows])
    np.testing.assert_array_equal(np.vectorize(lambda v: float(f"{v:.9g}"))(log.time[:rows]), run.time[:rows])


def test_contact_forces_carry_the_robot():
    sim = suitsim.load_scene(STAND).simulation()
    sim.step(2000)  # 1 s: settled on its soles
    total = sim.contact_forces.sum(axis=0)
    mass = sim.scene.robot.total_mass
    assert abs(total[2] - 9.81 * mass) < 0.05 * 9.81 * mass
