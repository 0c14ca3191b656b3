"""Rollout collector: runs pick, place, go-to and the drawer skills in the physics kitchen from
randomised scenes and records what the robot perceived before each skill and whether the skill succeeded.

One JSON line per rollout (format in docs/value_functions.md), gzip-compressed when ``--out`` ends in
``.gz``::

    {"index": 12, "seed": 0, "family": "pick", "skill": "pick up the coke", "argument": "coke",
     "observation": {...value_functions.observation.Observation...}, "success": true,
     "message": "holding coke_1", "wall_s": 0.81}

Rollout ``index`` is drawn from its own generator seeded by (seed, index), so a run resumed with
``--resume`` continues exactly where it stopped and produces the same rollouts as an uninterrupted one
(observations and outcomes; the numbers in a failure message can differ in the last digit, as a fresh
simulation's contact solver starts cold).
``--cycle`` chooses the families: ``default`` cycles pick, pick, place, go-to by index; ``drawer`` runs
only the drawer skills (open, close, put the X in the drawer; the rollout's ``argument`` is ``open``,
``close`` or the label put in). A file keeps one cycle: resuming with another is refused.

    nice -n 10 llm-planner collect value-functions --out data/value_functions/rollouts_seed0.jsonl.gz \
        --count 10000 --seed 0 --resume
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import time
import zlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import IO, NamedTuple

import pybullet as pb

from llm_planner_ros.domain.config import HELD
from llm_planner_ros.domain.scene import ObjectInstance, Scene
from llm_planner_ros.domain.skill import DRAWER, GOTO, PICK, PLACE
from llm_planner_ros.physics_sim import PhysicsKitchen, Pose2D
from llm_planner_ros.physics_sim.scripted import ScriptedSkills, SkillRun
from llm_planner_ros.physics_sim.truth import Truth
from llm_planner_ros.robot_motion.drawer import CLOSE, OPEN
from llm_planner_ros.value_functions.observation import Observation, PerceivedObject
from llm_planner_ros.value_functions.perceived import HeadCameraPerception, Seen, perceived_pick

# Pick is the skill the targets are set for, and the fastest to run: it gets half of the rollouts.
FAMILY_CYCLE = (PICK, PICK, PLACE, GOTO)
CYCLES = {"default": FAMILY_CYCLE, "drawer": (DRAWER,), "pick": (PICK,)}
# How a rollout's observation is made: the simulator's state with ``Noise`` added, or the head camera
# through perception's pipeline (llm_planner_ros.value_functions.perceived; pick only).
SIMULATED, PERCEPTION = "simulated", "perception"
OBSERVERS = (SIMULATED, PERCEPTION)
# A perceived rollout's ``localization``: SHARED when the localization error moved the robot and the
# camera's objects alike (``seen_through_localization``); "" in lines collected before, which drew it
# for the robot alone (``llm-planner collect relocalize`` rewrites them, training refuses them).
SHARED_LOCALIZATION = "shared"
DRIFT_M = 0.45  # how far (back, sideways) the base is moved off its standing pose in most rollouts
PERCEIVED_DRIFT_M = 0.15
SURFACES = ("close counter", "far counter", "table")
OBSTACLE_LABEL = "obstacle"


@dataclass(frozen=True)
class Noise:
    """Perception noise added to the simulator's state (what a detector and localization would report)."""

    position_m: float = 0.015
    size_fraction: float = 0.08
    robot_m: float = 0.03
    miss_rate: float = 0.04
    confidence_low: float = 0.5


class Attempt(NamedTuple):
    """What a family's run gives: the skill, its argument, the observation before it, the outcome, and
    the camera crop of its target (base64 PNG; "" when the observation was not through a camera)."""

    skill: str
    argument: str
    observation: Observation
    success: bool
    message: str
    crop: str = ""


@dataclass(frozen=True)
class Rollout:
    """One skill attempt: the observation before it and its outcome; ``observed_by`` says how the
    observation was made (``OBSERVERS``), ``crop`` is the camera crop of the target ("" without a camera)."""

    index: int
    seed: int
    family: str
    skill: str
    argument: str
    observation: Observation
    success: bool
    message: str
    wall_s: float
    observed_by: str = SIMULATED
    crop: str = ""
    localization: str = ""

    def to_json(self) -> str:
        extra = (
            {"observed_by": self.observed_by, "crop": self.crop, "localization": self.localization}
            if self.observed_by != SIMULATED
            else {}
        )
        return json.dumps(
            {
                "index": self.index,
                "seed": self.seed,
                "family": self.family,
                "skill": self.skill,
                "argument": self.argument,
                "observation": self.observation.to_dict(),
                "success": self.success,
                "message": self.message,
                "wall_s": round(self.wall_s, 3),
                **extra,
            }
        )

    @classmethod
    def from_json(cls, line: str) -> Rollout:
        d = json.loads(line)
        observed_by = str(d.get("observed_by", SIMULATED))
        if observed_by not in OBSERVERS:
            raise ValueError(f"observed_by {observed_by!r} is none of {list(OBSERVERS)}")
        return cls(
            int(d["index"]),
            int(d["seed"]),
            str(d["family"]),
            str(d["skill"]),
            str(d["argument"]),
            Observation.from_dict(d["observation"]),
            bool(d["success"]),
            str(d["message"]),
            float(d["wall_s"]),
            observed_by,
            str(d.get("crop", "")),
            str(d.get("localization", "")),
        )


def shifted(objects: Sequence[PerceivedObject], dx: float, dy: float) -> tuple[PerceivedObject, ...]:
    """Perceived objects moved by (dx, dy) in the map: where a localization off by that much places them."""
    return tuple(replace(o, position=(o.position[0] + dx, o.position[1] + dy, o.position[2])) for o in objects)


def open_rollouts(path: Path, mode: str) -> IO[str]:
    """A rollout file opened as text (``a`` to append, ``w`` to rewrite), gzip-compressed when its name
    ends in ``.gz``."""
    return gzip.open(path, mode + "t") if path.suffix == ".gz" else path.open(mode)


def load_rollouts(path: str | Path) -> list[Rollout]:
    """Every rollout of a collector file (JSON lines, or gzip-compressed ones: ``.jsonl.gz``); ValueError
    names the first malformed line, or says the file was cut off (a collector killed mid-write) and how
    to keep its complete rollouts."""
    text, dropped = _complete_text(Path(path))
    if dropped is not None:
        raise ValueError(
            f"{path} ends in a cut-off line (a collector killed while writing): run the collector on it with "
            "--resume, which keeps its complete rollouts and goes on"
        )
    rollouts = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rollouts.append(Rollout.from_json(line))
        except (KeyError, ValueError, TypeError) as error:
            raise ValueError(f"{path}:{number}: not a rollout line ({error})") from error
    return rollouts


def repair_rollouts(path: Path) -> int | None:
    """Rewrite a cut-off collector file with its complete lines only: how many characters were dropped,
    or None when the file was whole (it is left untouched)."""
    text, dropped = _complete_text(path)
    if dropped is None:
        return None
    with open_rollouts(path, "w") as file:
        file.write(text)
    return dropped


def _complete_text(path: Path) -> tuple[str, int | None]:
    """The file's text up to its last complete line, and how many characters followed it when it was
    cut off (a gzip stream without its end, a last line without its newline); None when it is whole."""
    raw = path.read_bytes()
    data, cut = _gunzip(raw) if path.suffix == ".gz" else (raw, False)
    text = data.decode("utf-8", errors="replace")
    complete = text[: text.rfind("\n") + 1]
    return complete, (len(text) - len(complete) if cut or complete != text else None)


def _gunzip(raw: bytes) -> tuple[bytes, bool]:
    """Every gzip member's data (``--resume`` appends one member per run), and whether the last one ends
    before its end-of-stream marker (its data then goes as far as it was written)."""
    out = bytearray()
    while raw:
        member = zlib.decompressobj(16 + zlib.MAX_WBITS)
        out += member.decompress(raw)
        if not member.eof:
            return bytes(out), True
        raw = member.unused_data
    return bytes(out), False


class RolloutCollector:
    """Randomises a scene per rollout on one reused ``PhysicsKitchen`` and runs one scripted skill."""

    def __init__(
        self,
        sim: PhysicsKitchen,
        seed: int,
        noise: Noise | None = None,
        cycle: Sequence[str] = FAMILY_CYCLE,
        camera: HeadCameraPerception | None = None,
    ) -> None:
        """``camera``: observe through it and pick as the executor does (``PERCEPTION``; the cycle must
        be pick only); None: the simulator's state with ``noise`` (``SIMULATED``)."""
        if camera is not None and set(cycle) != {PICK}:
            raise ValueError(f"rollouts observed by {PERCEPTION} run the pick family only, not {sorted(set(cycle))}")
        self.sim = sim
        self.seed = seed
        self.cycle = tuple(cycle)
        self.noise = noise or Noise()
        self.skills = ScriptedSkills(sim)
        self.labels = sim.kitchen.config.labels
        self.camera = camera
        self.observed_by = SIMULATED if camera is None else PERCEPTION

    def generator(self, index: int) -> random.Random:
        """Rollout ``index``'s own generator, seeded by (seed, index)."""
        return random.Random(self.seed * 1_000_003 + index)

    def rollout(self, index: int) -> Rollout:
        rng = self.generator(index)
        family = self.cycle[index % len(self.cycle)]
        start = time.perf_counter()
        run = {PICK: self._pick, PLACE: self._place, GOTO: self._goto, DRAWER: self._drawer}[family]
        attempt = run(rng)
        return Rollout(
            index,
            self.seed,
            family,
            attempt.skill,
            attempt.argument,
            attempt.observation,
            attempt.success,
            attempt.message,
            time.perf_counter() - start,
            self.observed_by,
            attempt.crop,
            SHARED_LOCALIZATION if self.camera is not None else "",
        )

    # ----- families -----------------------------------------------------------------------------------------
    def pick_setting(self, rng: random.Random) -> tuple[Truth, str]:
        """A pick's scene, set up in the simulator, and the label to pick: the first draws of a pick
        rollout's generator (``relocalize`` replays them)."""
        robot_at = rng.choice(SURFACES)
        local = [rng.choice(self.labels) for _ in range(rng.randint(1, 6))]
        scene = self._scene(rng, robot_at, local, holding=None)
        # Through the camera the robot stands where navigation left it, near the standing pose: the
        # failures to learn there are perception's, not reach's (the simulated rollouts cover reach).
        self._set_up(rng, scene, PERCEIVED_DRIFT_M if self.camera is not None else DRIFT_M)
        truth = self.sim.truth()
        present = [o for o in truth.objects if o.at != HELD]
        here = [o for o in present if o.at == robot_at]
        # Mostly labels at the robot's place (the interesting cases); some elsewhere or on the floor.
        return truth, rng.choice(here if here and rng.random() < 0.8 else present).label

    def _pick(self, rng: random.Random) -> Attempt:
        truth, target_label = self.pick_setting(rng)
        if self.camera is not None:
            seen = self.camera.look()
            observation = self.seen_through_localization(rng, truth, seen)
            run, crop = perceived_pick(self.skills, seen, target_label, truth.robot_at)
            return Attempt(f"pick up the {target_label}", target_label, observation, run.success, run.message, crop)
        present = [o for o in truth.objects if o.at != HELD]
        observation = self.observe(rng, truth)
        robot = self.sim.robot.pose
        target = min(
            (o for o in present if o.label == target_label),
            key=lambda o: math.hypot(o.position[0] - robot.x, o.position[1] - robot.y),
        )
        run = self.skills.pick(target.id)
        success = run.success and self.sim.holding() == target.id
        return Attempt(f"pick up the {target_label}", target_label, observation, success, run.message)

    def _place(self, rng: random.Random) -> Attempt:
        robot_at = rng.choice((*SURFACES, "trash can", "user"))
        local = [rng.choice(self.labels) for _ in range(rng.randint(0, 7))] if robot_at != "trash can" else []
        held = rng.choice(self.labels) if rng.random() > 0.05 else None
        scene = self._scene(rng, robot_at, local, holding=held)
        self._set_up(rng, scene)
        truth = self.sim.truth()
        observation = self.observe(rng, truth)
        return self._put(rng, held, observation, "put down the {}", self.skills.put_down, truth.robot_at)

    def _goto(self, rng: random.Random) -> Attempt:
        places = self.sim.kitchen.config.places(False)
        robot_at = rng.choice(places)
        target = rng.choice([p for p in places if p != robot_at])
        local = [rng.choice(self.labels) for _ in range(rng.randint(0, 5))]
        scene = self._scene(rng, robot_at if robot_at in SURFACES else rng.choice(SURFACES), local, holding=None)
        self.sim.load(Scene(robot_at, scene.objects, None))
        self._jitter_robot(rng)
        self._obstacles(rng, self.sim.standing_pose(target))
        truth = self.sim.truth()
        observation = self.observe(rng, truth)
        run = self.skills.go_to(target)
        return Attempt(f"go to the {target}", target, observation, run.success, run.message)

    def _drawer(self, rng: random.Random) -> Attempt:
        """Open, close or put into the drawer: mostly at the drawers and in the state the skill needs, with
        the base off its standing pose, the drawer part-way out, something in the gripper or the robot
        elsewhere now and then."""
        drawer = self.sim.kitchen.config.drawer
        assert drawer is not None  # the kitchen world file configures it (the physics kitchen builds it)
        action = rng.choice((OPEN, CLOSE, None))
        robot_at = drawer.location if rng.random() < 0.92 else rng.choice(SURFACES)
        wanted_open = action != OPEN
        is_open = wanted_open if rng.random() < 0.85 else not wanted_open
        # A put mostly with something in the gripper, open and close mostly without.
        wants_held = rng.random() < 0.92 if action is None else rng.random() >= 0.92
        held = rng.choice(self.labels) if wants_held else None
        stored = [rng.choice(self.labels) for _ in range(rng.choice((0, 0, 1, 1, 2, 3)))]
        elsewhere = [rng.choice(self.labels) for _ in range(rng.randint(0, 4))]
        objects = [
            ObjectInstance(
                f"{label.replace(' ', '_')}_{n}",
                label,
                drawer.contents_at if n <= len(stored) else rng.choice(SURFACES),
            )
            for n, label in enumerate([*stored, *elsewhere], 1)
        ]
        if held is not None:
            objects.append(ObjectInstance(f"{held.replace(' ', '_')}_held", held, HELD))
        self.sim.load(Scene(robot_at, tuple(objects), is_open))
        if rng.random() < 0.25:  # part-way out: the handle is not where a closed or open drawer has it
            self.sim.set_drawer_extension(rng.uniform(0.0, self.sim.layout.drawer_travel))
        self.sim.step(int(0.3 / self.sim.time_step))
        # The drawer's handle and interior are at the edge of the folded arm's reach from the standing
        # pose: a navigation error of a few centimetres already decides, half a metre never succeeds.
        self._jitter_robot(rng, reach_m=0.2)
        truth = self.sim.truth()
        observation = self.observe(rng, truth)
        if action is None:
            put_in = partial(self.skills.drawer, None)
            return self._put(rng, held, observation, "put the {} in the drawer", put_in, drawer.contents_at)
        run = self.skills.drawer(action)
        success = run.success and self.sim.truth().drawer_open is (action == OPEN)
        message = (
            run.message if not run.success or success else f"the drawer is {'closed' if action == OPEN else 'open'}"
        )
        return Attempt(f"{action} the drawer", action, observation, success, message)

    def _put(
        self,
        rng: random.Random,
        held: str | None,
        observation: Observation,
        text: str,
        run_put: Callable[[], SkillRun],
        destination: str,
    ) -> Attempt:
        """A put of the held label (8 % of them another label's): refused when the gripper does not hold
        that label, as the executor refuses it; else it succeeds when the object ends at ``destination``."""
        argument = held if held is not None and rng.random() > 0.08 else rng.choice(self.labels)
        skill = text.format(argument)
        holding = self.sim.holding()
        if holding is None or self.sim.built.labels[holding] != argument:
            return Attempt(skill, argument, observation, False, f"the gripper does not hold a {argument}")
        run = run_put()
        after = {o.id: o for o in self.sim.truth().objects}[holding]
        success = run.success and after.at == destination
        message = run.message if not run.success or success else f"{holding} ended at {after.at or 'no place'}"
        return Attempt(skill, argument, observation, success, message)

    # ----- scenes -------------------------------------------------------------------------------------------
    def _scene(self, rng: random.Random, robot_at: str, local: Sequence[str], holding: str | None) -> Scene:
        """``local`` labels at the robot's place, a few more elsewhere, optionally one held."""
        elsewhere = [rng.choice(self.labels) for _ in range(rng.randint(0, 4))]
        objects = []
        for number, label in enumerate([*local, *elsewhere]):
            at = robot_at if number < len(local) else rng.choice(SURFACES)
            objects.append(ObjectInstance(f"{label.replace(' ', '_')}_{number + 1}", label, at))
        if holding is not None:
            objects.append(ObjectInstance(f"{holding.replace(' ', '_')}_held", holding, HELD))
        return Scene(robot_at, tuple(objects), None)

    def _set_up(self, rng: random.Random, scene: Scene, drift_m: float = DRIFT_M) -> None:
        """Load, then move objects anywhere on their tops (edge of reach, clutter), topple some, and
        park the robot off its standing pose; let physics settle."""
        sim = self.sim
        sim.load(scene)
        held = sim.holding()
        for obj in scene.objects:
            if obj.id == held or obj.at not in SURFACES:
                continue
            body = sim.built.objects[obj.id]
            position, orientation = pb.getBasePositionAndOrientation(body, physicsClientId=sim.client)
            piece = sim.layout.furniture[obj.at]
            if rng.random() < 0.6:
                lx = rng.uniform(-piece.depth / 2 + 0.04, piece.depth / 2 - 0.04)
                ly = rng.uniform(-piece.width / 2 + 0.05, piece.width / 2 - 0.05)
                x, y = piece.to_map(lx, ly)
                position = (x, y, position[2] + 0.01)
            yaw = rng.uniform(-math.pi, math.pi)
            if rng.random() < 0.2:  # toppled: lying on its side
                orientation = pb.getQuaternionFromEuler([math.pi / 2, 0.0, yaw])
                position = (position[0], position[1], piece.height + 0.06)
            else:
                orientation = pb.getQuaternionFromEuler([0.0, 0.0, yaw])
            pb.resetBasePositionAndOrientation(body, position, orientation, physicsClientId=sim.client)
        sim.step(int(0.5 / sim.time_step))
        self._jitter_robot(rng, drift_m)

    def _jitter_robot(self, rng: random.Random, reach_m: float = DRIFT_M) -> None:
        """Most of the time, move the base up to ``reach_m`` back and sideways off its standing pose."""
        sim = self.sim
        if rng.random() < 0.4:
            return
        standing = sim.robot.pose
        back, side = rng.uniform(0.0, reach_m), rng.uniform(-reach_m, reach_m)
        c, s = math.cos(standing.yaw), math.sin(standing.yaw)
        moved = Pose2D(standing.x - back * c - side * s, standing.y - back * s + side * c, standing.yaw)
        sim.robot.set_base_pose(moved)
        if sim.base_collision() is not None:
            sim.robot.set_base_pose(standing)

    def _obstacles(self, rng: random.Random, goal: Pose2D) -> None:
        """Boxes on the floor: on the straight way to the goal, at the goal, or anywhere."""
        start = self.sim.robot.pose
        for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
            where = rng.random()
            if where < 0.5:
                t = rng.uniform(0.25, 0.75)
                x, y = start.x + t * (goal.x - start.x), start.y + t * (goal.y - start.y)
            elif where < 0.65:
                x, y = goal.x + rng.uniform(-0.3, 0.3), goal.y + rng.uniform(-0.3, 0.3)
            else:
                x, y = rng.uniform(0.0, 6.0), rng.uniform(-0.5, 4.5)
            size = (rng.uniform(0.2, 1.6), rng.uniform(0.2, 1.6), 0.5)
            if math.hypot(x - start.x, y - start.y) > 0.6:  # never on the robot itself
                self.sim.add_obstacle((x, y), size)

    # ----- perception ---------------------------------------------------------------------------------------
    def observe(self, rng: random.Random, truth: Truth) -> Observation:
        """The state as the robot's perception and localization would report it (noisy, partial; exact
        with ``Noise(0.0, 0.0, 0.0, 0.0, 1.0)``)."""
        noise, sim = self.noise, self.sim
        drawer = sim.kitchen.config.drawer
        inside = drawer.contents_at if drawer is not None else None  # a head camera does not see in there
        objects = []
        for o in truth.objects:
            if o.at == HELD or o.at == inside or rng.random() < noise.miss_rate:
                continue
            objects.append(self._detection(rng, o.label, sim.built.objects[o.id], o.at or ""))
        objects += [self._detection(rng, OBSTACLE_LABEL, body, "") for body in sim.obstacles]
        held = truth.holding
        return Observation(
            self.localized(rng, truth),
            truth.robot_at,
            sim.built.labels[held] if held else None,
            truth.drawer_open,
            tuple(objects),
        )

    def localized(self, rng: random.Random, truth: Truth) -> tuple[float, float]:
        """The robot's position as its localization reports it."""
        return (truth.robot.x + rng.gauss(0, self.noise.robot_m), truth.robot.y + rng.gauss(0, self.noise.robot_m))

    def seen_through_localization(self, rng: random.Random, truth: Truth, seen: Seen) -> Observation:
        """The observation of a head-camera look: the robot where its localization reports it, and the
        camera's objects moved by the same error, as a robot's camera is placed in the map through that
        localization (on the physics graph both are exact). Drawing the error for the robot alone, as
        before, put 3 cm of noise between the robot and every object it saw, which no robot has."""
        x, y = self.localized(rng, truth)
        objects = shifted(tuple(o.perceived for o in seen.objects), x - truth.robot.x, y - truth.robot.y)
        return Observation((x, y), truth.robot_at, None, truth.drawer_open, objects)

    def _detection(self, rng: random.Random, label: str, body: int, location: str) -> PerceivedObject:
        noise, c = self.noise, self.sim.client
        low, high = pb.getAABB(body, physicsClientId=c)
        center = [(a + b) / 2 + rng.gauss(0, noise.position_m) for a, b in zip(low, high, strict=True)]
        size = [max(0.005, (b - a) * (1 + rng.gauss(0, noise.size_fraction))) for a, b in zip(low, high, strict=True)]
        return PerceivedObject(
            label,
            (center[0], center[1], center[2]),
            (size[0], size[1], size[2]),
            location,
            rng.uniform(noise.confidence_low, 1.0),
        )


def collect(
    out: Path,
    count: int,
    seed: int,
    resume: bool,
    progress_every: int = 25,
    cycle: str = "default",
    observed_by: str = SIMULATED,
    first: int = 0,
) -> int:
    """Append rollouts ``first..count-1`` of the families of ``cycle`` (``CYCLES``), observed as
    ``observed_by`` says (``OBSERVERS``), not yet in ``out``; returns how many were added. A rollout's
    scene depends on its index and seed only, so processes given disjoint index ranges (one ``out``
    each) collect what one process would."""
    if not 0 <= first < count:
        raise SystemExit(f"--first {first} must lie in 0..{count - 1} (--count {count})")
    families = CYCLES[cycle]
    if observed_by == PERCEPTION and set(families) != {PICK}:
        raise SystemExit(f"--observe {PERCEPTION} runs the pick family only: use --cycle pick")
    done: set[int] = set()
    if out.exists():
        if not resume:
            raise SystemExit(f"{out} exists: pass --resume to continue it, or choose another --out")
        dropped = repair_rollouts(out)
        if dropped is not None:
            print(
                f"collector: {out} was cut off (a run killed while writing): kept its complete lines, dropped "
                f"{dropped} characters after them",
                flush=True,
            )
        rollouts = load_rollouts(out)
        if any(r.seed != seed for r in rollouts):
            raise SystemExit(f"{out} was collected with another --seed; resume it with that seed")
        if any(r.family != families[r.index % len(families)] for r in rollouts):
            raise SystemExit(f"{out} was collected with another --cycle than {cycle!r}; resume it with that cycle")
        if any(r.observed_by != observed_by for r in rollouts):
            raise SystemExit(f"{out} was observed otherwise than by {observed_by!r}; resume it with its --observe")
        done = {r.index for r in rollouts}
    todo = [i for i in range(first, count) if i not in done]
    print(f"collector: {len(done)} rollouts in {out}, {len(todo)} to go (seed {seed})", flush=True)
    if not todo:
        return 0
    out.parent.mkdir(parents=True, exist_ok=True)
    # The simulated observation renders nothing (a small camera keeps the build quick); the perception
    # one renders the head camera at physics_sim's 320 x 240.
    sim = PhysicsKitchen.from_files() if observed_by == PERCEPTION else PhysicsKitchen.from_files(image_size=(64, 48))
    camera = HeadCameraPerception(sim) if observed_by == PERCEPTION else None
    collector = RolloutCollector(sim, seed, cycle=families, camera=camera)
    tally: Counter[tuple[str, bool]] = Counter()
    started = time.perf_counter()
    try:
        with open_rollouts(out, "a") as file:
            for number, index in enumerate(todo, 1):
                rollout = collector.rollout(index)
                file.write(rollout.to_json() + "\n")
                file.flush()
                tally[(rollout.family, rollout.success)] += 1
                if number % progress_every == 0 or number == len(todo):
                    elapsed = time.perf_counter() - started
                    rates = ", ".join(
                        f"{f} {tally[(f, True)]}/{tally[(f, True)] + tally[(f, False)]} ok"
                        for f in dict.fromkeys(families)
                    )
                    print(
                        f"collector: {number}/{len(todo)} this run ({rates}); "
                        f"{number / elapsed * 3600:.0f} rollouts/h, {elapsed:.0f} s",
                        flush=True,
                    )
    finally:
        sim.close()
    return len(todo)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``llm-planner collect value-functions``."""
    parser.add_argument(
        "--out", type=Path, required=True, help="JSON-lines file of rollouts, appended to (.jsonl.gz: gzip-compressed)"
    )
    parser.add_argument("--count", type=int, required=True, help="rollout indices 0..count-1 (over all families)")
    parser.add_argument(
        "--first",
        type=int,
        default=0,
        help="start at this index instead: split one collection over processes, one --out each (both cores)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resume", action="store_true", help="continue an existing --out file")
    parser.add_argument(
        "--cycle", choices=sorted(CYCLES), default="default", help="families: pick/place/go-to, or the drawer skills"
    )
    parser.add_argument(
        "--observe",
        choices=OBSERVERS,
        default=SIMULATED,
        help="the simulator's state with noise, or the head camera through perception's pipeline (pick only)",
    )


def run(args: argparse.Namespace) -> int:
    """Collect the rollouts ``args`` name (see the module docstring)."""
    collect(args.out, args.count, args.seed, args.resume, cycle=args.cycle, observed_by=args.observe, first=args.first)
    return 0
