"""Sweeps from Python: scenes/sweeps/smoke.xml (two points, each a whole
evaluation of the shortened H1 protocol) gives the table `suitsim sweep`
writes, row by row, apart from the wall times; a bad sweep file is a
ValueError with its file and line."""

import csv

import numpy as np
import pytest

import suitsim
from conftest import run_cli, source_path

SMOKE = source_path("scenes/sweeps/smoke.xml")
WALL = ("wall_time_s", "simulation_time_s")


def test_smoke_sweep_equals_the_cli_table(tmp_path, suitsim_binary):
    code, _, err = run_cli(suitsim_binary, "sweep", SMOKE, "--out", tmp_path / "cli", "--threads", "2", "--no-plots",
                           "--quiet")
    assert code == 0, err
    with open(tmp_path / "cli" / "results.csv", newline="") as f:
        rows = list(csv.reader(f))
    result = suitsim.sweep(SMOKE, tmp_path / "py", threads=2)
    assert result.columns == rows[0]
    assert len(result) == len(rows) - 1 == 2
    keep = [k for k, h in enumerate(rows[0]) if h not in WALL]
    for record, row in zip(result.records, rows[1:]):
        assert [record[rows[0][k]] for k in keep] == [suitsim._number(row[k]) for k in keep]
    # The study's numbers are there, as arrays too.
    stiffness = [c for c in result.columns if c.endswith("normal.A.approach_a.stiffness")]
    assert stiffness, result.columns
    assert np.all(result.column(stiffness[0]) > 0)
    # Resuming the same table runs nothing new and gives the same rows.
    again = suitsim.sweep(SMOKE, tmp_path / "py", threads=2)
    assert again.records == result.records


def test_a_bad_sweep_file(tmp_path):
    spec = tmp_path / "bad.xml"
    spec.write_text('<?xml version="1.0"?>\n<sweep name="bad" scene="' + source_path("scenes/h1_protocol.xml") +
                    '">\n  <parameter name="k" values="1 2"/>\n</sweep>\n')
    with pytest.raises(ValueError) as raised:
        suitsim.sweep(spec)
    assert str(raised.value).startswith(f"{spec}:")
