"""The shortened H1 protocol evaluated through Python gives what `suitsim
evaluate` writes for the same scene: report.json's content apart from the
wall times, identification.json to the byte; and `suitsim.identify` gives
what `suitsim identify` writes for the same streams."""

import json

import pytest

import suitsim
from conftest import run_cli, shortened_scene

WALL_TIMES = ("wall_time_s", "simulation_wall_time_s")


@pytest.fixture(scope="module")
def h1(tmp_path_factory):
    # 8 s: every trial still moves (as the truth firewall test shortens).
    return shortened_scene("scenes/h1_protocol.xml", str(tmp_path_factory.mktemp("h1")), 8)


@pytest.fixture(scope="module")
def cli_evaluation(h1, tmp_path_factory, suitsim_binary):
    out = tmp_path_factory.mktemp("cli") / "out"
    code, _, err = run_cli(suitsim_binary, "evaluate", h1, "--out", out, "--threads", "2", "--no-plots", "--quiet")
    assert code == 0, err
    return out


@pytest.fixture(scope="module")
def python_evaluation(h1):
    scene = suitsim.load_scene(h1, threads=2)
    evaluation = suitsim.evaluate(scene)
    return scene, evaluation, suitsim.score(evaluation, evaluation.run.truth)


def test_report_equals_the_cli_report_apart_from_wall_times(cli_evaluation, python_evaluation):
    _, _, report = python_evaluation
    with open(cli_evaluation / "report.json") as f:
        expected = json.load(f)
    got = report.to_dict()
    for key in WALL_TIMES:
        assert key in expected and key in got
        del expected[key], got[key]
    assert got == expected
    # Not vacuous: the report holds the estimates and their scores.
    assert got["suits"]["normal"]["approach_a"]["stiffness_n_per_m"] > 0


def test_identification_equals_the_cli_file(cli_evaluation, python_evaluation):
    _, evaluation, _ = python_evaluation
    with open(cli_evaluation / "identification.json") as f:
        assert evaluation.identification.to_json() == f.read()


def test_estimates_are_reachable_without_scoring(python_evaluation, cli_evaluation):
    _, evaluation, report = python_evaluation
    with open(cli_evaluation / "report.json") as f:
        expected = json.load(f)
    group = expected["suits"]["normal"]["headline_group"]
    assert evaluation.suits["normal"]["approach_a"][group]["stiffness"] == \
        expected["suits"]["normal"]["approach_a"]["stiffness_n_per_m"]


def test_identify_equals_the_cli_identify(python_evaluation, tmp_path, suitsim_binary):
    scene, evaluation, _ = python_evaluation
    streams = evaluation.streams
    code, _, err = run_cli(suitsim_binary, "identify", "--scene", scene.path, "--streams", streams.directory,
                           "--out", tmp_path, "--quiet")
    assert code == 0, err
    with open(tmp_path / "identification.json") as f:
        assert suitsim.identify(scene, streams).to_json() == f.read()


def test_curves_name_the_report_joints(python_evaluation):
    _, evaluation, report = python_evaluation
    suits = report.to_dict()["suits"]
    assert len(evaluation.curves) == 4  # two motions, two suits
    for c in evaluation.curves:
        chosen = suits[c["suit"]]["fit_joints"][c["motion"]]
        assert c["figure_joint"] == chosen["figure_joint"]
        j = c["joints"].index(c["figure_joint"])
        n = len(c["time"])
        for method, torque in c["estimates"].items():
            assert torque.shape == (n, len(c["joints"])), method
        # The suit supports the joint the motion is about somewhere along it.
        moving = ~c["rest"][:, j]
        assert abs(c["estimates"]["approach_a"][moving, j]).max() > 0.1
