"""suitsim.identify(scene, log=MAP): a robot's own logs through a channel
map (docs/logs.md), here the Staubli TX40's real logs (tests/data/
staubli_tx40, docs/tx40.md), against `suitsim identify --log MAP`: the same
identification.json; and the bad inputs as the CLI refuses them."""

import json

import pytest

import suitsim
from conftest import run_cli, source_path

SCENE = "scenes/tx40_identification.xml"
MAP = "tests/data/staubli_tx40/log_map.xml"


def test_identify_from_a_log_equals_the_cli(tmp_path, suitsim_binary):
    out = tmp_path / "cli"
    code, _, err = run_cli(suitsim_binary, "identify", "--scene", source_path(SCENE), "--log", source_path(MAP),
                           "--out", out, "--quiet")
    assert code == 0, err
    with open(out / "identification.json") as f:
        cli = json.load(f)
    scene = suitsim.load_scene(source_path(SCENE))
    api = suitsim.identify(scene, log=source_path(MAP)).to_dict()
    assert api == cli
    assert api["coupled_drives"][0]["motor"] == "m6"
    assert api["log"]["format"] == "csv"


def test_streams_or_log_one_of_them():
    scene = suitsim.load_scene(source_path(SCENE))
    with pytest.raises(ValueError, match="one of streams and log"):
        suitsim.identify(scene)


def test_a_bad_map_is_a_value_error_naming_its_line(tmp_path):
    bad = tmp_path / "map.xml"
    bad.write_text('<?xml version="1.0"?>\n<log_map>\n  <format type="csv" file="x.csv"/>\n  <time rate="-5"/>\n  <trial name="tx40_ident"/>\n</log_map>\n')
    scene = suitsim.load_scene(source_path(SCENE))
    with pytest.raises(ValueError, match=r"map.xml:4: <time> attribute .rate."):
        suitsim.identify(scene, log=bad)
