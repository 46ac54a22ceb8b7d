"""scene.run's streams against the CSV files `suitsim run` writes for the
same scene and overrides, column by column, read here with Python's own
csv module (not the module's reader); the truth apart from them."""

import csv
import os

import numpy as np
import pytest

import suitsim
from conftest import run_cli, source_path

SCENE = "scenes/h1_protocol.xml"
TRIAL = "bend_normal"


def read_csv(path):
    header, rows = None, []
    with open(path, newline="") as f:
        for row in csv.reader(line for line in f if not line.startswith("#")):
            if header is None:
                header = row
            else:
                rows.append([float(x) for x in row])
    return header, np.array(rows)


@pytest.fixture(scope="module")
def runs(tmp_path_factory, suitsim_binary):
    folder = tmp_path_factory.mktemp("streams")
    cli_out = folder / "cli"
    code, _, err = run_cli(suitsim_binary, "run", source_path(SCENE), "--out", cli_out, "--trial", TRIAL,
                           "--duration", "0.5", "--threads", "1", "--quiet")
    assert code == 0, err
    scene = suitsim.load_scene(source_path(SCENE), duration=0.5, threads=1)
    result = scene.run(trials=[TRIAL])
    return cli_out / TRIAL, result


def test_sensor_channels_equal_the_cli_csv(runs):
    cli_dir, result = runs
    header, rows = read_csv(cli_dir / "sensors.csv")
    table = result.streams[TRIAL]
    assert rows.shape == (len(table), len(table.channels) + 1)
    np.testing.assert_array_equal(table.time, rows[:, 0])
    for k, column in enumerate(header[1:], start=1):
        name, unit = column[:-1].split("[")
        assert table.unit(name) == unit
        np.testing.assert_array_equal(table[name], rows[:, k], err_msg=name)
    assert table.header["trial"] == TRIAL


def test_truth_is_kept_apart_from_the_streams(runs):
    cli_dir, result = runs
    assert sorted(os.listdir(os.path.join(result.streams.directory, TRIAL))) == ["sensors.csv"]
    header, rows = read_csv(cli_dir / "truth.csv")
    truth = result.truth[TRIAL]
    assert truth.channels == [c[: c.rindex("[")] for c in header[1:]]
    np.testing.assert_array_equal(truth.data, rows[:, 1:])
    header, rows = read_csv(cli_dir / "stream.csv")
    np.testing.assert_array_equal(result.truth.records[TRIAL].data, rows[:, 1:])
    assert result.summaries[TRIAL]["steps"] == 2000


def test_temporary_folders_go_with_the_result(runs):
    scene = suitsim.load_scene(source_path(SCENE), duration=0.05)
    result = scene.run(trials=TRIAL)
    streams_dir, truth_dir = result.streams.directory, result.truth.directory
    assert os.path.isdir(streams_dir) and os.path.isdir(truth_dir)
    del result
    assert not os.path.exists(streams_dir) and not os.path.exists(truth_dir)


def test_an_unknown_trial_is_a_value_error():
    scene = suitsim.load_scene(source_path(SCENE), duration=0.05)
    with pytest.raises(ValueError, match="no trial named 'nope'"):
        scene.run(trials=["nope"])


def test_a_plain_scene_has_records_and_no_streams():
    # No robot, no sensors: what it records is the simulator's (truth.records).
    scene = suitsim.load_scene(source_path("scenes/spring_mass.xml"), duration=0.1)
    assert scene.trials == [] and scene.robot is None
    result = scene.run()
    assert list(result.streams) == [] and result.trials == [""]
    records = result.truth.records[""]
    assert len(records) == 21 and records.time[-1] == pytest.approx(0.1)


def test_a_divergence_is_a_runtime_error_and_leaves_nothing(tmp_path, suitsim_binary):
    # A spring stepped far past its bound (omega dt > 2) blows up.
    scene_path = source_path("scenes/spring_mass.xml")
    code, _, err = run_cli(suitsim_binary, "run", scene_path, "--dt", "0.15", "--duration", "200", "--out",
                           tmp_path / "cli", "--quiet")
    assert code == 1
    scene = suitsim.load_scene(scene_path, dt=0.15, duration=200)
    with pytest.raises(RuntimeError) as raised:
        scene.run(out=tmp_path / "py")
    assert f"error: {raised.value}\n" in err
    assert "diverged" in str(raised.value)
    assert not (tmp_path / "py").exists()
