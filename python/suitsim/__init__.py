"""suitsim from Python: scenes, trials, sensor streams as NumPy arrays, the
evaluator, and stepping a trial with your own controller.

    import suitsim
    scene = suitsim.load_scene("scenes/h1_protocol.xml", duration=6)
    result = scene.run()                      # every trial, in C++ threads
    result.streams["bend_normal"]["left_knee_joint.encoder"]  # a NumPy column
    ev = suitsim.evaluate(scene, result.streams)      # sees no truth
    report = suitsim.score(ev, result.truth)          # report.json's content
    report.to_dict()

The evaluator is given the scene's file (read by the evaluator's own
loader, which has no field for a true value) and the sensor streams; the
truth a run produced is kept in its own object and reaches only `score`.
See docs/python.md.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import weakref
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core

__all__ = [
    "load_scene", "evaluate", "identify", "score", "read_streams",
    "Scene", "Robot", "Joint", "Link", "Band", "Trial", "Motion",
    "Table", "Streams", "Truth", "RunResult", "Evaluation", "Identification", "Report",
    "Simulation", "SceneError", "StreamError", "sweep", "budget", "SweepResult",
]

#: A bad scene file: a ValueError whose message is the command line's
#: "path:line: <element> problem (got value)".
SceneError = _core.SceneError
#: A sensor stream that cannot be used: a ValueError, "file:line: problem".
StreamError = _core.StreamError


# ---- the scene -----------------------------------------------------------------


@dataclass(frozen=True)
class Joint:
    """A joint of the robot description (limits in rad, effort in N m)."""
    name: str
    type: str
    parent: str
    child: str
    lower: float
    upper: float
    effort_limit: float
    velocity_limit: float
    axis: Tuple[float, float, float]
    mimic: str
    source: str


@dataclass(frozen=True)
class Link:
    """A link: mass (kg), centre of mass (m, link frame), inertia about it
    (kg m^2: ixx, iyy, izz, ixy, ixz, iyz)."""
    name: str
    mass: float
    com: Tuple[float, float, float]
    inertia: Tuple[float, float, float, float, float, float]
    source: str


@dataclass(frozen=True)
class Robot:
    """A robot description: the simulated one (`Scene.robot`) or the
    evaluator's a-priori one (`Scene.robot_apriori`)."""
    name: str
    links: List[Link]
    joints: List[Joint]
    root_link: str
    floating_base: bool
    total_mass: float

    def joint(self, name: str) -> Joint:
        """The joint called `name` (KeyError if there is none)."""
        for j in self.joints:
            if j.name == name:
                return j
        raise KeyError(name)

    def link(self, name: str) -> Link:
        """The link called `name` (KeyError if there is none)."""
        for link in self.links:
            if link.name == name:
                return link
        raise KeyError(name)

    @property
    def movable_joints(self) -> List[Joint]:
        return [j for j in self.joints if j.type != "fixed"]


@dataclass(frozen=True)
class Band:
    """A suit band as simulated: via points (link, point in the link frame,
    m), true stiffness (N/m), natural length (m), stiffness group."""
    name: str
    group: str
    links: List[str]
    points: List[Tuple[float, float, float]]
    stiffness: float
    natural_length: float


@dataclass(frozen=True)
class Trial:
    """One trial of the scene's experiment (A section 5)."""
    name: str
    motion: str
    suit: str
    device: str
    purpose: str
    line: int
    dt: float
    duration: float


@dataclass(frozen=True)
class Motion:
    """A reference motion: its length (s), the joints it moves, and the fit
    joints the scene declares for it (empty: derived by the evaluator)."""
    name: str
    duration: float
    joints: List[str]
    fit_joints: List[str]


def _robot(d: Optional[dict]) -> Optional[Robot]:
    if d is None:
        return None
    return Robot(name=d["name"], links=[Link(**x) for x in d["links"]], joints=[Joint(**x) for x in d["joints"]],
                 root_link=d["root_link"], floating_base=d["floating_base"], total_mass=d["total_mass"])


class Scene:
    """A scene file with the overrides it was loaded with. Make one with
    `load_scene`. Its trials are re-read from the file for every run and
    simulation, with the same overrides, as the command line does."""

    def __init__(self, handle, info: dict):
        self._handle = handle
        self.path: str = info["path"]
        self.name: str = info["name"]
        #: The simulated robot (None for a scene without one).
        self.robot: Optional[Robot] = _robot(info["robot"])
        #: The evaluator's starting model of the robot.
        self.robot_apriori: Optional[Robot] = _robot(info["robot_apriori"])
        #: The experiment's trials (empty for a scene without <experiment>).
        self.trials: List[Trial] = [Trial(**t) for t in info["trials"]]
        #: Each suit's bands as simulated, by suit name.
        self.suits: Dict[str, List[Band]] = {k: [Band(**b) for b in v] for k, v in info["suits"].items()}
        self.motions: List[Motion] = [Motion(**m) for m in info["motions"]]
        #: The first trial's time step and duration (s), overrides applied.
        self.dt: float = info["dt"]
        self.duration: float = info["duration"]
        self.integrator: str = info["integrator"]
        #: Advice the checks gave when loading (a servo loop that may lag, ...).
        self.warnings: List[str] = list(info["warnings"])
        self._threads: Optional[int] = None

    def __repr__(self) -> str:
        return f"<suitsim.Scene {self.name!r} from {self.path!r}, {len(self.trials)} trials>"

    def run(self, trials: Optional[Sequence[str]] = None, threads: Optional[int] = None,
            out: Optional[Union[str, os.PathLike]] = None) -> "RunResult":
        """Simulates the trials (default: every trial; a plain scene's one)
        in C++, one thread per trial, and returns their sensor streams and,
        apart, their truth.

        The trials are written as `suitsim run` writes them, into `out` when
        given (kept), otherwise into temporary folders removed with the
        result, the truth files in a folder of their own; each trial's
        streams are read into NumPy arrays when first used (the evaluator
        reads streams from files). Raises ValueError for a bad
        scene or trial name, RuntimeError for a divergence (the message
        names the trial), KeyboardInterrupt on Ctrl-C (nothing is left)."""
        names = [] if trials is None else [trials] if isinstance(trials, str) else list(trials)
        keep = out is not None
        folder = os.fspath(out) if keep else tempfile.mkdtemp(prefix="suitsim-run-")
        existed = keep and os.path.exists(folder)
        try:
            if keep:
                os.makedirs(folder, exist_ok=True)
            done = _core.run(self._handle, names, threads or 0, folder)
        except BaseException:
            # A failed or interrupted run leaves nothing it made (the C++
            # side removed its files and the trials' folders), as `suitsim run`.
            if not keep:
                shutil.rmtree(folder, ignore_errors=True)
            elif not existed:
                try:
                    os.rmdir(folder)  # only if empty: nothing else is touched
                except OSError:
                    pass
            raise
        return RunResult._from_folder(self, folder, done, temporary=not keep)

    def simulation(self, trial: Optional[str] = None, *, servo: bool = True) -> "Simulation":
        """A trial to step yourself (default: the scene's first trial).
        With `servo=False` the scene's joint servo is off and your code
        commands the motors (`Simulation.currents`, `set_joint_torques`)."""
        return Simulation(_core.Simulation(self._handle, trial or "", servo), self)

    def trial(self, name: str) -> Trial:
        """The trial called `name` (KeyError if there is none)."""
        for t in self.trials:
            if t.name == name:
                return t
        raise KeyError(name)


def load_scene(path: Union[str, os.PathLike], *, trial: Optional[str] = None, dt: Optional[float] = None,
               duration: Optional[float] = None, noise: Optional[bool] = None, stribeck: Optional[bool] = None,
               realism: Optional[str] = None, threads: Optional[int] = None) -> Scene:
    """Reads and checks a scene, as `suitsim run` does before it runs.

    Overrides as on the command line: `dt` and `duration` (s, per trial),
    `noise` (True/False: the sensors' noise on or off; None: as the scene
    says), `stribeck=False` (no Stribeck drop), `realism` (a preset,
    "ideal" or "realistic", or a realism file), `threads`. `trial` narrows
    an experiment to one trial.

    Raises ValueError for a bad scene, carrying the command line's message
    ("path:line: <element> problem (got value)"), a missing file, a trial
    the scene does not have or an override that does not fit it."""
    path = os.fspath(path)
    if noise is not None and not isinstance(noise, bool):
        raise TypeError(f"noise: needs True, False or None (got {noise!r})")
    handle = _core.load_scene(path, trial or "", dt, duration, noise, stribeck, realism, threads)
    scene = Scene(handle, _core.scene_info(handle))
    scene._threads = threads
    return scene


# ---- streams and truth ---------------------------------------------------------


class Table:
    """One CSV file of a trial as arrays: `time` (s), and each channel by
    name (`table["R_KNEE.encoder"]`, a view into `data`), with `units`.
    `data` is samples x channels (time excluded); `header` holds the
    file's "# key: value" lines."""

    def __init__(self, path: Optional[str] = None, *, header: Optional[Dict[str, str]] = None,
                 names: Optional[List[str]] = None, units: Optional[List[str]] = None,
                 data: Optional[np.ndarray] = None):
        if path is not None:
            header, names, units, data = _core.read_table(path)
        self.path: Optional[str] = path
        self.header: Dict[str, str] = header
        self.time: np.ndarray = data[:, 0]
        self.channels: List[str] = names[1:]
        self.units: List[str] = units[1:]
        self.data: np.ndarray = data[:, 1:]
        self._index = {n: k for k, n in enumerate(self.channels)}

    def __getitem__(self, channel: str) -> np.ndarray:
        return self.data[:, self._index[channel]]

    def __contains__(self, channel: str) -> bool:
        return channel in self._index

    def __len__(self) -> int:
        return self.data.shape[0]

    def unit(self, channel: str) -> str:
        return self.units[self._index[channel]]

    def to_dict(self) -> Dict[str, np.ndarray]:
        """{"time": ..., channel: column, ...}: what pandas.DataFrame takes."""
        d = {"time": self.time}
        d.update({c: self[c] for c in self.channels})
        return d

    def __repr__(self) -> str:
        return f"<suitsim.Table {len(self)} samples x {len(self.channels)} channels>"


class _Folder:
    """A run's folder; a temporary one is removed with the last object using it."""

    def __init__(self, path: str, temporary: bool, simulated: bool):
        self.path = path
        #: Written by a run of this session (report.json then says "simulated").
        self.simulated = simulated
        if temporary:
            self._finalizer = weakref.finalize(self, shutil.rmtree, path, True)


class Streams(Mapping[str, Table]):
    """What the robot measured, per trial: `streams[trial]` is that trial's
    sensors.csv as a Table, read when first used. `directory` is where
    the files are, laid out as `suitsim run` writes them: what `suitsim
    evaluate --streams` and `evaluate` read (a run into a temporary folder
    keeps no truth files there)."""

    def __init__(self, folder: _Folder, trials: Sequence[str]):
        self._folder = folder
        self.directory: str = folder.path
        self._trials = list(trials)
        self._tables: Dict[str, Table] = {}

    def __getitem__(self, trial: str) -> Table:
        if trial not in self._trials:
            raise KeyError(trial)
        if trial not in self._tables:
            self._tables[trial] = Table(os.path.join(self.directory, trial, "sensors.csv"))
        return self._tables[trial]

    def __iter__(self) -> Iterator[str]:
        return iter(self._trials)

    def __len__(self) -> int:
        return len(self._trials)

    def __repr__(self) -> str:
        return f"<suitsim.Streams {len(self)} trials in {self.directory!r}>"


class Truth(Mapping[str, Table]):
    """What the simulator knows and the evaluator must never read, per
    trial: `truth[trial]` is truth.csv (true joint angles, motor and
    friction torques, band lengths and tensions, balance), and
    `truth.records[trial]` the scene's <record> channels (stream.csv).
    Only `score` takes it."""

    def __init__(self, folder: _Folder, trials: Sequence[str], scene: Scene):
        self._folder = folder
        self.directory: str = folder.path
        self.scene = scene
        self._trials = list(trials)
        self._tables: Dict[Tuple[str, str], Table] = {}

    def _table(self, trial: str, name: str) -> Table:
        if trial not in self._trials:
            raise KeyError(trial)
        key = (trial, name)
        if key not in self._tables:
            self._tables[key] = Table(os.path.join(self.directory, trial, name))
        return self._tables[key]

    def __getitem__(self, trial: str) -> Table:
        return self._table(trial, "truth.csv")

    @property
    def records(self) -> Mapping[str, Table]:
        return {t: self._table(t, "stream.csv") for t in self._trials}

    def __iter__(self) -> Iterator[str]:
        return iter(self._trials)

    def __len__(self) -> int:
        return len(self._trials)


@dataclass
class RunResult:
    """What `Scene.run` returns: the streams, the truth kept apart from
    them, and each trial's summary.json and warnings, by trial name (""
    for a scene without an <experiment>)."""
    scene: Scene
    streams: Streams
    truth: Truth
    summaries: Dict[str, dict] = field(default_factory=dict)
    warnings: Dict[str, List[str]] = field(default_factory=dict)
    wall_time_s: float = 0.0

    @property
    def trials(self) -> List[str]:
        return list(self.summaries)

    @staticmethod
    def _from_folder(scene: Scene, folder: str, done: dict, temporary: bool) -> "RunResult":
        names = list(done)
        if temporary:
            # The truth files leave the streams' folder, so that the folder
            # handed to the evaluator holds only what a robot would log.
            truth_dir = tempfile.mkdtemp(prefix="suitsim-truth-")
            for name in names:
                os.makedirs(os.path.join(truth_dir, name), exist_ok=True)
                for f in ("truth.csv", "stream.csv", "summary.json"):
                    src = os.path.join(folder, name, f)
                    if os.path.exists(src):
                        shutil.move(src, os.path.join(truth_dir, name, f))
            streams_folder, truth_folder = _Folder(folder, True, True), _Folder(truth_dir, True, True)
        else:
            streams_folder = truth_folder = _Folder(folder, False, True)
        summaries = {n: json.loads(done[n]["summary"]) for n in names}
        # Only a robot with <sensors> logs a stream; a plain scene's run has
        # its <record> channels alone (truth.records).
        logged = [n for n in names if os.path.exists(os.path.join(folder, n, "sensors.csv"))]
        return RunResult(scene=scene, streams=Streams(streams_folder, logged),
                         truth=Truth(truth_folder, names, scene), summaries=summaries,
                         warnings={n: list(done[n]["warnings"]) for n in names},
                         wall_time_s=sum(s.get("wall_time_s", 0.0) for s in summaries.values()))


def read_streams(directory: Union[str, os.PathLike], trials: Sequence[str]) -> Streams:
    """Streams recorded earlier (`suitsim run --out DIR`): DIR/<trial>/sensors.csv."""
    return Streams(_Folder(os.fspath(directory), False, False), trials)


# ---- the evaluation --------------------------------------------------------------


class Identification:
    """The robot's identification: `to_dict()` is identification.json's content."""

    def __init__(self, text: str):
        self._text = text

    def to_dict(self) -> dict:
        return json.loads(self._text)

    def to_json(self) -> str:
        """identification.json's text, to the byte."""
        return self._text


class Evaluation:
    """The evaluator's result (identification, supporting torques, band
    fits) for a scene and its streams. It was computed from the a-priori
    model and the streams only. `suits[suit][method][group]` gives each
    estimate (`stiffness` in N/m or None, `identifiable`, `reason`);
    `identification.to_dict()` is identification.json. Scoring against the
    truth, and report.json, is `score(evaluation, truth)`."""

    def __init__(self, handle, scene: Scene, streams: Streams):
        self._handle = handle
        self.scene = scene
        self.streams = streams
        self.identification = Identification(handle.identification_json)
        self.suits: Dict[str, Dict[str, Dict[str, dict]]] = handle.suits

    @property
    def curves(self) -> List[dict]:
        """Per suit trial, its supporting torque against the bare trial of
        the same motion: `motion`, `suit`, `joints` (names), `time` (s),
        `angle` (rad) and `rest` (samples x joints), and `estimates`: per
        method ("approach_a", "approach_b", "apriori", "apriori_approach_a")
        the supporting torque, samples x joints (N m); `fit_joints` and
        `figure_joint` (the joint the motion is about), as the band fit
        chose them, with `fit_joints_reason`. Where a joint rests,
        static friction hides the torque from every method (A(7)-(8))."""
        return self._handle.curves


class Report:
    """An evaluation scored against the truth: `to_dict()` is report.json's
    content, `to_markdown()` report.md's (without plots), as `suitsim
    evaluate` writes them."""

    def __init__(self, json_text: str, markdown: str):
        self._json = json_text
        self._markdown = markdown

    def to_dict(self) -> dict:
        return json.loads(self._json)

    def to_json(self) -> str:
        return self._json

    def to_markdown(self) -> str:
        return self._markdown


_SETTINGS_DOC = """
    Settings as `suitsim evaluate`'s options, by their words: rest_rows
    ("exclude", "sign-rule"), armature ("fit", "known", "ignored"), gear
    ("ideal", "fit"), heating ("ignored", "corrected"), sensor_delay
    ("ignored", "compensated"), gear_twist ("ignored", "compensated"),
    suit_geometry ("designed", "measured"), band_model ("elastic",
    "viscoelastic", "capstan", "viscoelastic-capstan"), straps ("ignored",
    "corrected"), band_joints (joint names), threads."""


def _streams_of(scene: Scene, streams) -> Tuple[Streams, str]:
    """The streams to evaluate and the folder report.json names for them
    ("" for a run of this session, as `suitsim evaluate` without --streams)."""
    if isinstance(streams, RunResult):
        raise TypeError("evaluate takes the streams, not the run with its truth: pass result.streams")
    if isinstance(streams, Truth):
        raise TypeError("evaluate takes no truth: pass the run's streams")
    if isinstance(streams, Streams):
        # A run of this session: report.json says the trials were simulated.
        return streams, "" if streams._folder.simulated else streams.directory
    if isinstance(streams, (str, os.PathLike)):
        directory = os.fspath(streams)
        return read_streams(directory, [t.name for t in scene.trials]), directory
    raise TypeError(f"streams: needs Streams, a folder or None (got {type(streams).__name__})")


def evaluate(scene: Scene, streams: Union[Streams, str, os.PathLike, None] = None, *,
             rest_rows: Optional[str] = None, armature: Optional[str] = None, gear: Optional[str] = None,
             heating: Optional[str] = None, sensor_delay: Optional[str] = None, gear_twist: Optional[str] = None,
             suit_geometry: Optional[str] = None, band_model: Optional[str] = None, straps: Optional[str] = None,
             band_joints: Optional[Sequence[str]] = None, threads: Optional[int] = None) -> Evaluation:
    """The paper's evaluation of the scene's experiment from its sensor
    streams: identify the robot, extract the supporting torques (approaches
    A and B), fit the bands. `streams`: a run's `result.streams`, a folder
    of recorded streams, or None to run every trial first (the run's truth
    is then at `evaluation.run.truth`). There is no parameter for a truth.
    """
    run = None
    sim_wall = 0.0
    if streams is None:
        run = scene.run(threads=threads)
        streams_obj, reported = run.streams, ""
        sim_wall = run.wall_time_s
    else:
        streams_obj, reported = _streams_of(scene, streams)
    settings = dict(rest_rows=rest_rows, armature=armature, gear=gear, heating=heating, sensor_delay=sensor_delay,
                    gear_twist=gear_twist, suit_geometry=suit_geometry, band_model=band_model, straps=straps,
                    band_joints=list(band_joints) if band_joints is not None else None,
                    threads=threads if threads is not None else _scene_threads(scene))
    handle = _core.evaluate(scene._handle, streams_obj.directory, reported, settings, sim_wall)
    ev = Evaluation(handle, scene, streams_obj)
    #: The run evaluate made itself (None when given streams): its truth is for `score`.
    ev.run = run
    return ev


evaluate.__doc__ += _SETTINGS_DOC


def _scene_threads(scene: Scene) -> Optional[int]:
    # `suitsim evaluate --threads N` sets the identification's threads too.
    return scene._threads


def identify(scene: Scene, streams: Union[Streams, str, os.PathLike, None] = None, *,
             log: Union[str, os.PathLike, None] = None, rest_rows: Optional[str] = None,
             armature: Optional[str] = None, gear: Optional[str] = None, heating: Optional[str] = None,
             sensor_delay: Optional[str] = None, gear_twist: Optional[str] = None,
             threads: Optional[int] = None) -> Identification:
    """The robot's identification from the streams, as `suitsim identify
    --scene SCENE --streams DIR`, or from a robot's own logs through the
    channel map `log`, as `--log MAP` (docs/logs.md): one of the two.
    `to_dict()` is identification.json (with `log`: its "log" part too)."""
    if (streams is None) == (log is None):
        raise ValueError("identify: give one of streams and log")
    settings = dict(rest_rows=rest_rows, armature=armature, gear=gear, heating=heating, sensor_delay=sensor_delay,
                    gear_twist=gear_twist, threads=threads)
    if log is not None:
        settings["log"] = os.fspath(log)
        return Identification(_core.identify(scene._handle, "", settings))
    streams_obj, _ = _streams_of(scene, streams)
    return Identification(_core.identify(scene._handle, streams_obj.directory, settings))


def score(evaluation: Evaluation, truth: Union[Truth, str, os.PathLike]) -> Report:
    """Scores an evaluation against the truth: the scene's true values and
    the run's truth files (a run's `result.truth`, or the folder `suitsim
    run --out` wrote). Returns the report (`to_dict()`: report.json)."""
    directory = truth.directory if isinstance(truth, Truth) else os.fspath(truth)
    json_text, markdown = _core.score(evaluation._handle, directory)
    return Report(json_text, markdown)


# ---- sweeps and the error budget ------------------------------------------------


def _number(field: str):
    try:
        return float(field)
    except ValueError:
        return field


class SweepResult:
    """A sweep's results table (DIR/results.csv, one row per point):
    `columns` (the header), `records` (one dict per point; numbers as
    floats, other fields as text), `column(name)` (a float array, NaN where
    a row has no number), `directory` (the table, summary.md, points/)."""

    def __init__(self, folder: "_Folder", header: List[str], rows: List[List[str]]):
        self._folder = folder
        self.directory: str = folder.path
        self.columns: List[str] = list(header)
        self.records: List[dict] = [{h: _number(f) for h, f in zip(header, row)} for row in rows]

    def column(self, name: str) -> np.ndarray:
        if name not in self.columns:
            raise KeyError(name)
        return np.array([r[name] if isinstance(r[name], float) else np.nan for r in self.records])

    def __len__(self) -> int:
        return len(self.records)

    def __repr__(self) -> str:
        return f"<suitsim.SweepResult {len(self)} points x {len(self.columns)} columns in {self.directory!r}>"


def _out_folder(out, prefix: str) -> "_Folder":
    if out is None:
        return _Folder(tempfile.mkdtemp(prefix=prefix), True, True)
    return _Folder(os.fspath(out), False, True)


def sweep(spec: Union[str, os.PathLike], out: Optional[Union[str, os.PathLike]] = None, *,
          threads: Optional[int] = None, keep_streams: bool = False) -> SweepResult:
    """Runs a sweep file (docs/sweeps.md) as `suitsim sweep SPEC --out DIR`
    does on one process: every point not yet in DIR/results.csv (a sweep
    into the same `out` resumes), `threads` points at once. Without `out`
    the table lives in a temporary folder that goes with the result.
    Raises ValueError for a bad sweep file or a point's scene that cannot
    be evaluated (file:line), KeyboardInterrupt on Ctrl-C (rows written so
    far stay in `out`)."""
    folder = _out_folder(out, "suitsim-sweep-")
    header, rows = _core.sweep(os.fspath(spec), folder.path, threads or 0, keep_streams)
    return SweepResult(folder, header, rows)


def budget(scene: Union[str, os.PathLike, Scene], out: Optional[Union[str, os.PathLike]] = None, *,
           realism: str = "realistic", seeds: int = 3, first_seed: int = 1, remedies: bool = True,
           threads: Optional[int] = None, keep_streams: bool = False) -> Tuple[SweepResult, dict]:
    """The error budget of a scene, as `suitsim budget`: the evaluation
    with no error source, each source of `realism` (a preset, a realism
    file, or "scene": the scene's own <realism>) alone and all of them,
    over `seeds` seeds, with and without the evaluator's remedies. Returns
    the results table and budget.json's content."""
    path = scene.path if isinstance(scene, Scene) else os.fspath(scene)
    folder = _out_folder(out, "suitsim-budget-")
    (header, rows), text, notes = _core.budget(path, folder.path, realism, seeds, first_seed, remedies,
                                               threads or 0, keep_streams)
    result = SweepResult(folder, header, rows)
    #: What the budget had to change to run (e.g. a smaller step for compliant gears).
    result.notes = list(notes)
    return result, json.loads(text)


# ---- stepping ----------------------------------------------------------------------


class Simulation:
    """One trial to step yourself (`Scene.simulation`). The engine's state
    between steps: `joint_angles` and `currents` are views of the engine's
    own arrays (writing `currents` commands the motors, held over the next
    step as a servo's command is); `joint_rates`, `encoder_angles`,
    `encoder_rates`, `positions` and `velocities` (particles x 3) and
    `contact_forces` (contacts x 3) are computed at each read;
    `sensor_log` is what the robot's sensors logged. Units: rad, rad/s,
    A, m, m/s, N, N m."""

    def __init__(self, core, scene: Scene):
        self._core = core
        self.scene = scene
        self.joint_names: List[str] = list(core.joint_names)
        #: True motor constants k_T (N m/A) and torque offsets tau_o (N m), per joint.
        self.motor_constants = np.asarray(core.motor_constants)
        self.torque_offsets = np.asarray(core.torque_offsets)
        kp, kd = core.servo_gains
        #: The scene's servo gains per joint (N m/rad, N m s/rad) and rate (Hz).
        self.kp, self.kd = np.asarray(kp), np.asarray(kd)
        self.servo_rate: float = core.servo_rate
        self.dt: float = core.dt

    def step(self, n: int = 1) -> None:
        """Advances n steps (GIL released). RuntimeError on a divergence."""
        self._core.step(n)

    @property
    def time(self) -> float:
        return self._core.time

    @property
    def joint_angles(self) -> np.ndarray:
        return self._core.joint_angles

    @property
    def currents(self) -> np.ndarray:
        return self._core.currents

    @currents.setter
    def currents(self, value) -> None:
        self._core.currents[:] = value

    @property
    def joint_rates(self) -> np.ndarray:
        return self._core.joint_rates

    @property
    def encoder_angles(self) -> np.ndarray:
        return self._core.encoder_angles

    @property
    def encoder_rates(self) -> np.ndarray:
        return self._core.encoder_rates

    @property
    def positions(self) -> np.ndarray:
        return self._core.positions

    @property
    def contact_forces(self) -> np.ndarray:
        """The ground's force on each contact point (contacts x 3, N)."""
        return self._core.contact_forces

    @property
    def sensor_log(self) -> Table:
        """What the robot's sensors logged so far, as `suitsim run` logs
        them into sensors.csv (same rows, same noise, unrounded): a Table.
        A row is complete once its averaging window has passed, so the
        log lags the state by up to half a sample."""
        names, units = ["time"], ["s"]
        for c in self._core.sensor_channels:
            names.append(c[: c.rindex("[")] if c.endswith("]") else c)
            units.append(c[c.rindex("[") + 1: -1] if c.endswith("]") else "")
        return Table(header={}, names=names, units=units, data=self._core.sensor_log)

    @property
    def velocities(self) -> np.ndarray:
        return self._core.velocities

    @property
    def steps_per_servo_period(self) -> int:
        """Steps between two updates of the scene's servo (its rate and dt)."""
        return max(1, int(round(1.0 / (self.servo_rate * self.dt)))) if self.servo_rate > 0 else 1

    def set_joint_torques(self, torque) -> None:
        """Commands each joint's motor to give `torque` (N m): the current
        (torque - tau_o) / k_T, as the servo computes it (A(6))."""
        self._core.set_joint_torques(np.asarray(torque, dtype=float))

    def reference(self, t: float) -> Tuple[np.ndarray, np.ndarray]:
        """The trial's reference motion at t: angles and rates per joint
        (NaN for joints the motion does not move)."""
        a, r = self._core.reference(t)
        return np.asarray(a), np.asarray(r)
