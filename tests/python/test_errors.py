"""Bad input raises ValueError carrying the message the command line
prints after "error: " (file:line first): every fixture of scenes/invalid/,
a missing file, overrides that do not fit the scene, a bad realism file."""

import glob
import os

import pytest

import suitsim
from conftest import run_cli, source_path

FIXTURES = sorted(glob.glob(source_path("scenes/invalid/*.xml")))


def cli_error(binary, tmp_path, scene, *options):
    code, _, err = run_cli(binary, "run", scene, "--out", tmp_path / "out", "--quiet", *options)
    return code, err


def test_there_are_fixtures():
    assert len(FIXTURES) > 100


@pytest.mark.parametrize("fixture", FIXTURES, ids=os.path.basename)
def test_each_invalid_scene_raises_the_cli_message(fixture, tmp_path, suitsim_binary):
    code, err = cli_error(suitsim_binary, tmp_path, fixture)
    assert code == 2, err
    with pytest.raises(ValueError) as raised:
        suitsim.load_scene(fixture)
    message = str(raised.value)
    assert f"error: {message}\n" in err or message in err, (message, err)
    # The file and line lead the message where the command line gives them.
    if err.startswith("error: " + fixture + ":"):
        assert message.startswith(fixture + ":")


def test_a_missing_file(tmp_path, suitsim_binary):
    missing = str(tmp_path / "missing.xml")
    code, err = cli_error(suitsim_binary, tmp_path, missing)
    assert code == 2
    with pytest.raises(ValueError) as raised:
        suitsim.load_scene(missing)
    assert f"error: {raised.value}\n" in err
    assert str(raised.value).startswith(missing)


def test_a_step_the_sensors_cannot_serve_names_the_sensors_line(tmp_path, suitsim_binary):
    scene = source_path("scenes/jvrc1_stand.xml")
    code, err = cli_error(suitsim_binary, tmp_path, scene, "--dt", "3e-4")
    assert code == 2
    with pytest.raises(ValueError) as raised:
        suitsim.load_scene(scene, dt=3e-4)
    assert f"error: {raised.value}\n" in err
    assert str(raised.value).startswith(scene + ":")


@pytest.mark.parametrize("keyword, value", [("dt", -1.0), ("duration", 0.0), ("threads", 0)])
def test_out_of_range_overrides(keyword, value):
    with pytest.raises(ValueError, match=keyword):
        suitsim.load_scene(source_path("scenes/jvrc1_stand.xml"), **{keyword: value})


def test_a_missing_realism_file(tmp_path):
    with pytest.raises(ValueError, match="missing_realism.xml"):
        suitsim.load_scene(source_path("scenes/jvrc1_stand.xml"), realism=str(tmp_path / "missing_realism.xml"))


def test_bad_streams_are_a_value_error(tmp_path):
    scene = suitsim.load_scene(source_path("scenes/jvrc1_protocol.xml"))
    with pytest.raises(ValueError) as raised:
        suitsim.identify(scene, str(tmp_path))
    # The stream's file, as `suitsim identify` names it.
    assert str(tmp_path) in str(raised.value)
