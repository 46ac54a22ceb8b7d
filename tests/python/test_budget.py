"""The error budget from Python equals `suitsim budget` on the same scene
and plan (one source, one seed, no remedies, on the shortened H1
protocol): the same results table apart from the wall times, the same
budget.json."""

import csv
import json

import suitsim
from conftest import run_cli, shortened_scene

WALL = ("wall_time_s", "simulation_time_s")


def test_budget_equals_the_cli_budget(tmp_path, suitsim_binary):
    scene = shortened_scene("scenes/h1_protocol.xml", str(tmp_path), 6)
    realism = tmp_path / "via_points.xml"
    realism.write_text('<?xml version="1.0"?>\n<realism seed="8"><via_points offset="0.005"/></realism>\n')
    code, _, err = run_cli(suitsim_binary, "budget", scene, "--out", tmp_path / "cli", "--realism", realism,
                           "--seeds", "1", "--no-remedies", "--threads", "2", "--no-plots", "--quiet")
    assert code == 0, err
    table, summary = suitsim.budget(scene, tmp_path / "py", realism=str(realism), seeds=1, remedies=False,
                                    threads=2)
    with open(tmp_path / "cli" / "results.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert table.columns == rows[0]
    assert len(table) == len(rows) - 1 >= 2  # no source, and the one source
    keep = [h for h in rows[0] if h not in WALL]
    for record, row in zip(table.records, rows[1:]):
        expected = dict(zip(rows[0], row))
        assert [record[h] for h in keep] == [suitsim._number(expected[h]) for h in keep]
    with open(tmp_path / "cli" / "budget.json") as f:
        assert summary == json.load(f)
    assert [r["source"] for r in table.records][:2] == ["none", "via_points"]
