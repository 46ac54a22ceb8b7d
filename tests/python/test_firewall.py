"""The truth firewall in Python: `evaluate` has no parameter through which a
truth can reach it, refuses a run or a truth in place of streams, and two
scenes that differ only in true values give the same estimates from the
same streams."""

import inspect

import pytest

import suitsim
from conftest import shortened_scene


def test_evaluate_has_no_truth_parameter():
    for name in inspect.signature(suitsim.evaluate).parameters:
        assert "truth" not in name, name
    for name in inspect.signature(suitsim.identify).parameters:
        assert "truth" not in name, name


@pytest.fixture(scope="module")
def jvrc1(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("firewall"))
    path = shortened_scene("scenes/jvrc1_protocol.xml", folder, 8)
    with open(path) as f:
        text = f.read()
    other = text
    # Other true values: stiffer bands, a heavier hidden payload. Neither is
    # in the a-priori model or in the suit as designed.
    for old, new in (('stiffness="197.8"', 'stiffness="250"'), ('stiffness="395.6"', 'stiffness="500"'),
                     ('<payload link="WAIST_R_S" mass="4.0"', '<payload link="WAIST_R_S" mass="5.5"')):
        assert old in other, old
        other = other.replace(old, new)
    other_path = path.replace(".xml", "_other_truth.xml")
    with open(other_path, "w") as f:
        f.write(other)
    scene = suitsim.load_scene(path, threads=2)
    return scene, suitsim.load_scene(other_path, threads=2), scene.run()


def test_a_run_or_a_truth_is_refused_in_place_of_streams(jvrc1):
    scene, _, result = jvrc1
    with pytest.raises(TypeError, match="not the run with its truth"):
        suitsim.evaluate(scene, result)
    with pytest.raises(TypeError, match="no truth"):
        suitsim.evaluate(scene, result.truth)
    with pytest.raises(TypeError):
        suitsim.evaluate(scene, result.streams, truth=result.truth)


def test_estimates_do_not_move_when_only_the_truth_changes(jvrc1):
    scene, other, result = jvrc1
    a = suitsim.evaluate(scene, result.streams)
    b = suitsim.evaluate(other, result.streams)
    assert a.identification.to_json() == b.identification.to_json()
    assert a.suits == b.suits
    # The scoring does see the other truth.
    ra, rb = suitsim.score(a, result.truth).to_dict(), suitsim.score(b, result.truth).to_dict()
    assert ra["suits"]["normal"]["true_stiffness_n_per_m"] != rb["suits"]["normal"]["true_stiffness_n_per_m"]
