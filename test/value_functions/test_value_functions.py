"""The ROS-free value-function package: metrics, features, weight files, the learned model, the collector."""

from __future__ import annotations

import gzip
import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from repo_paths import REPO_ROOT
from value_function_scenes import drawer_observation, random_weights, table_observation

from llm_planner_ros.affordance.model import AffordanceError
from llm_planner_ros.domain import Domain, Skill
from llm_planner_ros.domain.domain_folder import domain_value_functions_file
from llm_planner_ros.value_functions.analytic import skill_of, world_of
from llm_planner_ros.value_functions.boosted_trees import WeightFileError, load_value_functions
from llm_planner_ros.value_functions.collector import PERCEPTION, Rollout, collect, load_rollouts
from llm_planner_ros.value_functions.features import LEARNED_FAMILIES, Featurizer, pick_target, skill_argument
from llm_planner_ros.value_functions.learned import LearnedAffordance
from llm_planner_ros.value_functions.metrics import brier, reliability, roc_auc
from llm_planner_ros.value_functions.observation import Observation, PerceivedObject
from llm_planner_ros.value_functions.training import served_observation


def test_roc_auc_and_brier_on_known_cases() -> None:
    assert roc_auc([False, False, True, True], [0.1, 0.4, 0.35, 0.8]) == pytest.approx(0.75)
    assert roc_auc([True, False], [0.5, 0.5]) == pytest.approx(0.5)  # a tie counts half
    assert roc_auc([True, True], [0.2, 0.9]) is None  # one class: undefined
    assert brier([True, False], [1.0, 0.0]) == 0.0
    assert brier([True, False], [0.5, 0.5]) == pytest.approx(0.25)
    bins = reliability([True, False, True, True], [0.05, 0.05, 0.95, 0.92])
    assert [(round(p, 3), rate, n) for p, rate, n in bins] == [(0.05, 0.5, 2), (0.935, 1.0, 2)]


def test_features_have_their_names_and_see_a_toppled_can(kitchen: Domain) -> None:
    featurizer = Featurizer(kitchen.config)
    observation = table_observation()
    for family, argument in (("pick", "coke"), ("place", "coke"), ("goto", "far counter")):
        assert len(featurizer.vector(observation, family, argument)) == len(featurizer.names(family))
    flatness = featurizer.names("pick").index("flatness")
    upright = featurizer.vector(observation, "pick", "coke")[flatness]
    lying = Observation(
        observation.robot_xy,
        "table",
        None,
        None,
        (PerceivedObject("coke", (2.65, 3.6, 0.78), (0.12, 0.07, 0.066), "table"),),
    )
    assert featurizer.vector(lying, "pick", "coke")[flatness] < upright / 2
    unseen = featurizer.vector(observation, "pick", "sponge")
    assert unseen[featurizer.names("pick").index("seen")] == 0.0
    clearance = featurizer.names("goto").index("path_clearance")
    blocked = featurizer.vector(observation, "goto", "far counter")[clearance]  # the box stands on the way
    free = featurizer.vector(observation, "goto", "user")[clearance]
    assert blocked == 0.0 < free
    with pytest.raises(AffordanceError, match="unknown place"):
        featurizer.vector(observation, "goto", "garage")


def test_drawer_skills_share_one_model_read_by_action_and_label(kitchen: Domain, tmp_path: Path) -> None:
    world = kitchen.world({"robot": {"at": "drawers"}, "objects": [], "drawer": {"open": True}})
    texts = ("open the drawer", "close the drawer", "put the coke in the drawer")
    assert [skill_argument(world.skill(t)) for t in texts] == ["open", "close", "coke"]
    with pytest.raises(AffordanceError, match="needs one argument"):
        skill_argument(Skill("pull the drawer", "drawer", ()))
    # The analytic model gets the kitchen's own drawer skill back from (family, argument).
    assert [skill_of("drawer", skill_argument(world.skill(t)), kitchen) for t in texts] == [
        world.skill(t) for t in texts
    ]
    with pytest.raises(ValueError, match="pass the kitchen"):
        skill_of("drawer", "open")
    featurizer = Featurizer(kitchen.config)
    names = featurizer.names("drawer")
    holding = drawer_observation(holding="coke", drawer_open=True)
    put = featurizer.vector(holding, "drawer", "coke")
    assert len(put) == len(names)
    assert put[names.index("action=put")] == 1.0 and put[names.index("holds_argument")] == 1.0
    assert put[names.index("label=coke")] == 1.0 and put[names.index("drawer_open")] == 1.0
    opening = featurizer.vector(drawer_observation(), "drawer", "open")
    assert opening[names.index("action=open")] == 1.0 and opening[names.index("label=coke")] == 0.0
    assert opening[names.index("at_drawer")] == 1.0
    assert opening[names.index("distance_to_base")] == pytest.approx(0.0707, abs=1e-3)  # 5 cm off each way
    # The learned backend scores them with the drawer model, each as alone, in order.
    model = LearnedAffordance(random_weights(tmp_path / "vf.npz", kitchen), kitchen)
    skills = [world.skill(t) for t in texts]
    answers = model.evaluate(skills, holding)
    assert answers == pytest.approx([model.evaluate([s], holding)[0] for s in skills])
    expected = model.models["drawer"].probabilities(featurizer.matrix([(holding, "open"), (holding, "close"),
                                                                       (holding, "coke")], "drawer"))  # fmt: skip
    assert answers == pytest.approx(expected.tolist())


def test_weight_file_round_trip_and_refusals(kitchen: Domain, tmp_path: Path) -> None:
    featurizer = Featurizer(kitchen.config)
    path = random_weights(tmp_path / "vf.npz", kitchen)
    networks, meta = load_value_functions(path, featurizer)
    assert set(networks) == set(LEARNED_FAMILIES) and meta["record"] == {"test": True}
    # Each family is an ensemble whose probability is its members' mean.
    features = featurizer.matrix([(table_observation(), "apple")], "pick")
    members = networks["pick"].members
    assert len(members) == 2
    assert networks["pick"].probabilities(features) == pytest.approx(
        (members[0].probabilities(features) + members[1].probabilities(features)) / 2
    )
    with pytest.raises(WeightFileError, match="not found at .*llm-planner train value-functions"):
        load_value_functions(tmp_path / "missing.npz", featurizer)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(WeightFileError, match="is not a value-function weight file"):
        load_value_functions(tmp_path / "junk.npz", featurizer)
    # A file made for a kitchen with other labels is refused, naming the features that differ.
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(str(arrays["meta"]))
    meta["features"]["pick"] = [n.replace("label=coke", "label=cola") for n in meta["features"]["pick"]]
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "other.npz", **arrays)
    with pytest.raises(WeightFileError, match="pick model was trained on .*label=cola"):
        load_value_functions(tmp_path / "other.npz", featurizer)


def test_learned_model_answers_in_order_with_caps_and_fallback(kitchen: Domain, tmp_path: Path) -> None:
    model = LearnedAffordance(random_weights(tmp_path / "vf.npz", kitchen), kitchen)
    observation = table_observation()
    world = kitchen.world({"robot": {"at": "table"}, "objects": []})
    skills = [world.skill(t) for t in ("pick up the coke", "go to the far counter", "put down the apple",
                                        "pick up the apple", "go to the table", "find an apple", "done")]  # fmt: skip
    answers = model.evaluate(skills, observation)
    alone = [model.evaluate([s], observation)[0] for s in skills]
    assert answers == pytest.approx(alone)  # a batch is the skills one by one, in order
    assert model.evaluate(skills[::-1], observation) == pytest.approx(answers[::-1])
    assert answers[4] == 0.0  # going where the robot is
    assert answers[6] == model.analytic.calibration.terminate  # no model: the analytic answer
    assert all(0.0 < a < 1.0 for a in answers[:4])
    holding = Observation(observation.robot_xy, "table", "sponge", None, observation.objects)
    assert model.evaluate([skills[0]], holding) == [0.0]  # picking with a full gripper
    # A label perception reports nowhere: the executor has nothing to grasp (no rollout shows this).
    assert model.evaluate([world.skill("pick up the sponge")], observation) == [0.0]
    # The robot map gives the drawers no surface: the executor refuses a put down there.
    put_down = skills[2]  # put down the apple
    assert model.evaluate([put_down], drawer_observation(holding="apple")) == [0.0]
    assert model.evaluate([put_down], replace(observation, holding_label="apple"))[0] > 0.0
    with pytest.raises(AffordanceError, match="needs one argument"):
        model.evaluate([Skill("pick up", "pick", ())], observation)
    with pytest.raises(WeightFileError, match="no model for"):
        LearnedAffordance(random_weights(tmp_path / "pick_only.npz", kitchen, families=("pick",)), kitchen)


def test_analytic_world_of_a_perceived_observation(kitchen: Domain) -> None:
    observation = table_observation()
    world = world_of(observation, kitchen)
    assert world.robot_at == "table" and world.holding is None
    assert sorted(o.label for o in world.objects) == ["apple", "coke"]  # the box on the floor has no place
    from llm_planner_ros.affordance.model import AffordanceModel

    analytic = AffordanceModel()
    assert analytic.affordance(skill_of("pick", "apple"), world) == pytest.approx(0.9)
    assert analytic.affordance(skill_of("pick", "sponge"), world) == 0.0


@pytest.mark.timeout(180)
@pytest.mark.parametrize("name", ["rollouts.jsonl", "rollouts.jsonl.gz"])
def test_collector_records_perceived_observations_and_resumes(tmp_path: Path, name: str) -> None:
    out = tmp_path / name
    assert collect(out, 2, seed=3, resume=False) == 2
    with pytest.raises(SystemExit, match="pass --resume"):
        collect(out, 4, seed=3, resume=False)
    with pytest.raises(SystemExit, match="another --seed"):
        collect(out, 4, seed=4, resume=True)
    assert collect(out, 4, seed=3, resume=True) == 2
    rollouts = load_rollouts(out)
    assert [r.index for r in rollouts] == [0, 1, 2, 3]
    assert [r.family for r in rollouts] == ["pick", "pick", "place", "goto"]
    assert collect(out, 4, seed=3, resume=True) == 0
    # A second process's range: the same rollouts as the first process made of those indices.
    second = tmp_path / f"second_{name}"
    assert collect(second, 4, seed=3, resume=False, first=2) == 2
    assert [(r.index, r.observation, r.success) for r in load_rollouts(second)] == [
        (r.index, r.observation, r.success) for r in rollouts[2:]
    ]
    with pytest.raises(SystemExit, match="--first 4 must lie in 0..3"):
        collect(tmp_path / "none.jsonl", 4, seed=3, resume=False, first=4)
    text = gzip.decompress(out.read_bytes()).decode() if name.endswith(".gz") else out.read_text()
    for line in text.splitlines():
        objects = json.loads(line)["observation"]["objects"]
        # Only what perception reports: no ids, orientations or contacts of the simulator's truth.
        assert all(set(o) == {"label", "position", "size", "location", "confidence"} for o in objects)


@pytest.mark.timeout(180)
def test_collector_drawer_cycle_records_drawer_skills_and_keeps_its_cycle(tmp_path: Path) -> None:
    out = tmp_path / "drawer.jsonl"
    assert collect(out, 6, seed=2, resume=False, cycle="drawer") == 6
    rollouts = load_rollouts(out)
    assert {r.family for r in rollouts} == {"drawer"}
    for r in rollouts:
        action = r.skill.split()[0]
        assert (
            r.skill in ("open the drawer", "close the drawer")
            and r.argument == action
            or (r.skill == f"put the {r.argument} in the drawer")
        )
        # A head camera does not see into the drawer: nothing is reported there.
        assert all(o.location != "drawer" for o in r.observation.objects)
    with pytest.raises(SystemExit, match="another --cycle"):
        collect(out, 8, seed=2, resume=True)
    # Resumed, the same rollouts as one uninterrupted run (a failure message's numbers may differ: a
    # fresh simulation's contact solver starts cold).
    again = tmp_path / "again.jsonl"
    collect(again, 3, seed=2, resume=False, cycle="drawer")
    collect(again, 6, seed=2, resume=True, cycle="drawer")

    def outcomes(path: Path) -> list[tuple[object, ...]]:
        return [(r.index, r.skill, r.observation, r.success) for r in load_rollouts(path)]

    assert outcomes(again) == outcomes(out)


@pytest.mark.timeout(300)
def test_bench_command_compares_learned_and_analytic_on_the_test_split(kitchen: Domain, tmp_path: Path) -> None:
    import subprocess
    import sys

    from llm_planner_ros.value_functions.collector import PERCEPTION, SIMULATED, Rollout
    from llm_planner_ros.value_functions.training import split_of

    observation = table_observation()
    rows = []
    for index in range(400):
        family = ("pick", "place", "goto")[index % 3]
        argument = {"pick": "apple" if index % 2 else "sponge", "place": "apple", "goto": "far counter"}[family]
        rows.append(Rollout(index, 0, family, f"{family} {argument}", argument, observation, index % 2 == 0, "", 0.1))
    at_closed_drawer = drawer_observation()
    for index in range(400, 600):
        action = "open" if index % 2 else "close"
        rows.append(
            Rollout(index, 0, "drawer", f"{action} the drawer", action, at_closed_drawer, action == "close", "", 0.1)
        )
    # Picks observed through the camera are scored apart from the simulated ones.
    rows += [
        Rollout(i, 0, "pick", "pick up the apple", "apple", observation, i % 3 == 0, "", 0.1, PERCEPTION)
        for i in range(600, 700)
    ]
    rollouts = tmp_path / "rollouts.jsonl"
    rollouts.write_text("".join(r.to_json() + "\n" for r in rows))
    weights = random_weights(tmp_path / "vf.npz", kitchen)
    out, plot = tmp_path / "bench.json", tmp_path / "reliability.png"
    command = [sys.executable, "-m", "llm_planner_ros.cli.main", "bench", "value-functions",
               "--rollouts", str(rollouts), "--weights", str(weights), "--plot", str(plot), "--repeats", "20",
               "--json", str(out)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert f"wrote {out}" in done.stdout and "pick: {" in done.stdout, done.stdout
    tested = sum(split_of(r) == "test" for r in rows if r.family == "pick" and r.observed_by == SIMULATED)
    assert report["pick"]["test_rollouts"] == tested > 0
    perceived = [r for r in rows if r.observed_by == PERCEPTION and split_of(r) == "test"]
    assert report["pick_perceived"]["test_rollouts"] == len(perceived) > 0
    assert report["pick_perceived"]["success_rate"] == round(sum(r.success for r in perceived) / len(perceived), 4)
    assert "place_perceived" not in report
    # Made-up outcomes against the analytic model: the apple on the table (0.9) always fails here and
    # the unseen sponge (0) always succeeds, so its ranking is exactly backwards.
    assert report["pick"]["analytic_roc_auc"] == 0.0
    # The same for the drawer: the analytic model reads the kitchen's own texts (a closed drawer: open
    # possible, close not), and here only the closes succeed.
    assert report["drawer"]["analytic_roc_auc"] == 0.0 and report["drawer"]["test_rollouts"] > 0
    for family in ("pick", "place", "goto", "drawer"):
        assert set(report[family]) >= {"roc_auc", "brier", "analytic_roc_auc", "analytic_brier"}
    assert report["batch_latency_ms"]["batch"] == 50 and report["batch_latency_ms"]["p95"] > 0
    assert plot.stat().st_size > 10_000


def test_shipped_weights_serve_the_packaged_kitchen(kitchen: Domain) -> None:

    model = LearnedAffordance(domain_value_functions_file(kitchen), kitchen)
    assert model.record["families"]["pick"]["train"] > 1000
    observation = table_observation()
    near, unseen = model.evaluate([skill_of("pick", "apple"), skill_of("pick", "sponge")], observation)
    assert near > 0.5 > unseen  # an upright apple in front of the robot vs a label nobody sees


@pytest.mark.parametrize(
    ("change", "refusal"),
    [
        ({"format": "llm_planner_ros.value_functions/2"}, "format 'llm_planner_ros.value_functions/2'"),
        ({"feature_version": 1}, "feature version 1;"),
    ],
)
def test_old_weight_files_are_refused_with_the_rebuild_command(
    kitchen: Domain, tmp_path: Path, change: dict[str, object], refusal: str
) -> None:
    with np.load(random_weights(tmp_path / "vf.npz", kitchen), allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(str(arrays["meta"]))
    arrays["meta"] = np.array(json.dumps({**meta, **change}))
    np.savez(tmp_path / "old.npz", **arrays)
    with pytest.raises(WeightFileError, match=f"{refusal}.*rebuild it with `llm-planner train value-functions`"):
        load_value_functions(tmp_path / "old.npz", Featurizer(kitchen.config))
    # A file from before the trees (format 2: MLP layers) lacks the tree arrays; so does a damaged one.
    del arrays["pick/0/threshold"]
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "damaged.npz", **arrays)
    with pytest.raises(WeightFileError, match="pick model 0 lacks 'pick/0/threshold'"):
        load_value_functions(tmp_path / "damaged.npz", Featurizer(kitchen.config))


def test_fitted_trees_answer_as_scikit_learn_does() -> None:
    from sklearn.ensemble import GradientBoostingClassifier

    from llm_planner_ros.value_functions.training import TreeSettings, fit

    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 6)).astype(np.float32)
    y = (x[:, 0] + 0.5 * x[:, 1] * x[:, 2] + rng.normal(scale=0.5, size=400)) > 0
    settings = TreeSettings(max_trees=60)
    member, summary = fit((x[:300], y[:300]), (x[300:], y[300:]), seed=3, settings=settings)
    assert 1 <= summary["trees"] <= 60 and len(member.roots) == summary["trees"]
    reference = GradientBoostingClassifier(
        n_estimators=summary["trees"], learning_rate=0.03, max_depth=3, subsample=0.7, min_samples_leaf=5,
        random_state=3,
    ).fit(x[:300], y[:300])  # fmt: skip
    fresh = rng.normal(size=(200, 6)).astype(np.float32)
    assert member.probabilities(fresh) == pytest.approx(reference.predict_proba(fresh)[:, 1], abs=1e-9)
    assert brier(y[300:], member.probabilities(x[300:])) < brier(y[300:], np.full(100, y[:300].mean()))


def test_pick_features_are_in_the_work_frame_of_the_robots_place(kitchen: Domain) -> None:
    featurizer = Featurizer(kitchen.config)
    names = featurizer.names("pick")
    # config/robot_map.yaml: the table's base pose is (2.5, 2.9), facing +y; its surface point (2.5, 3.5).
    coke = PerceivedObject("coke", (2.6, 3.6, 0.81), (0.066, 0.066, 0.12), "table")
    drifted = Observation((2.5, 2.8), "table", None, None, (coke,))
    values = dict(zip(names, featurizer.vector(drifted, "pick", "coke"), strict=True))
    assert values["forward"] == pytest.approx(0.8, abs=1e-4)  # straight ahead, whatever the robot's offset
    assert values["lateral"] == pytest.approx(-0.1, abs=1e-4)  # +x on the map is the robot's right here
    assert values["robot_forward_offset"] == pytest.approx(-0.1, abs=1e-4)
    assert values["robot_side_offset"] == pytest.approx(0.0, abs=1e-4)
    assert values["target_depth"] == pytest.approx(0.1, abs=1e-4)
    assert values["top_z"] == pytest.approx(0.87, abs=1e-4)


def test_pick_features_describe_the_instance_the_executor_grasps(kitchen: Domain) -> None:
    """Two cokes at the table: the executor (object_to_pick) grasps the first one reported there, so the
    features must describe it, though the other is nearer; a simulated rollout, whose scripted pick
    grasped the nearest, is served with that one first."""
    featurizer = Featurizer(kitchen.config)
    names = featurizer.names("pick")
    far = PerceivedObject("coke", (2.9, 3.7, 0.81), (0.066, 0.066, 0.12), "table")
    near = PerceivedObject("coke", (2.5, 3.4, 0.81), (0.066, 0.066, 0.12), "table")
    elsewhere = PerceivedObject("coke", (1.0, 0.5, 0.96), (0.066, 0.066, 0.12), "close counter")
    observation = Observation((2.5, 2.9), "table", None, None, (elsewhere, far, near))
    assert pick_target(observation.objects, "coke", "table") is far
    assert pick_target(observation.objects, "coke", "far counter") is elsewhere  # none there: the first
    distance = names.index("distance")
    assert featurizer.vector(observation, "pick", "coke")[distance] == pytest.approx(math.hypot(0.4, 0.8), abs=1e-4)

    rollout = Rollout(0, 0, "pick", "pick up the coke", "coke", observation, True, "", 0.0)
    served = served_observation(rollout)
    assert served.objects[0] is near and sorted(map(id, served.objects)) == sorted(map(id, observation.objects))
    assert featurizer.vector(served, "pick", "coke")[distance] == pytest.approx(0.5, abs=1e-4)
    perceived = replace(rollout, observed_by=PERCEPTION)  # picked by the executor's own rule: unchanged
    assert served_observation(perceived) is observation
    assert served_observation(replace(rollout, family="place")) is observation


@pytest.mark.timeout(300)
def test_resumed_training_retrains_a_family_whose_rollouts_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A rollout file collected again (another perception, the same seed and count) has as many rows as
    # before: a resume that compared counts kept the stale pick model.
    from llm_planner_ros.cli.main import run_command

    data = REPO_ROOT / "data" / "value_functions"
    lines: list[str] = []
    for name, families in (
        ("rollouts_seed0.jsonl.gz", ("pick", "place", "goto")),
        ("rollouts_drawer_seed2.jsonl.gz", ("drawer",)),
    ):
        with gzip.open(data / name, "rt") as file:
            kept = {family: 0 for family in families}
            for line in file:
                family = json.loads(line)["family"]
                if family in kept and kept[family] < 150:
                    kept[family] += 1
                    lines.append(line)
                if all(count == 150 for count in kept.values()):
                    break
    rollouts, weights = tmp_path / "rollouts.jsonl", tmp_path / "value_functions.npz"
    rollouts.write_text("".join(lines))
    args = ["train", "value-functions", "--rollouts", str(rollouts), "--out", str(weights)]
    args += ["--members", "1", "--resume"]
    assert run_command(args) == 0
    out = capsys.readouterr().out
    assert all(f"training {f}: member 0" in out for f in LEARNED_FAMILIES), out
    assert run_command(args) == 0
    out = capsys.readouterr().out
    assert all(f"training {f}: kept from" in out for f in LEARNED_FAMILIES), out
    # The same picks with every outcome flipped: as many rows, other data.
    flipped = []
    for line in lines:
        record = json.loads(line)
        if record["family"] == "pick":
            record["success"] = not record["success"]
        flipped.append(json.dumps(record) + "\n")
    rollouts.write_text("".join(flipped))
    assert run_command(args) == 0
    out = capsys.readouterr().out
    assert "training pick: member 0" in out
    assert all(f"training {f}: kept from" in out for f in ("place", "goto", "drawer"))


@pytest.mark.timeout(180)
@pytest.mark.parametrize("name", ["rollouts.jsonl", "rollouts.jsonl.gz"])
def test_a_collection_killed_while_writing_resumes_from_its_complete_rollouts(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # A collector killed by a signal leaves a gzip stream without its end (or a half-written line): the
    # resume then failed on the file it was meant to continue.
    out = tmp_path / name
    assert collect(out, 3, seed=3, resume=False) == 3
    whole = load_rollouts(out)
    raw = out.read_bytes()
    if name.endswith(".gz"):
        text = gzip.decompress(raw)
        cut = gzip.compress(text)[:-12]  # the stream loses its end and some data
        out.write_bytes(cut)
    else:
        out.write_bytes(raw[:-20])  # the last line half-written
    with pytest.raises(ValueError, match="cut-off line .*--resume"):
        load_rollouts(out)
    added = collect(out, 4, seed=3, resume=True)
    assert "was cut off" in capsys.readouterr().out
    rollouts = load_rollouts(out)
    assert [r.index for r in rollouts] == [0, 1, 2, 3]
    kept = 4 - added
    assert 1 <= kept <= 2
    assert rollouts[:kept] == whole[:kept]  # the complete lines stay as written
    # The cut-off ones are collected again, the same scenes with the same outcomes.
    assert [(r.observation, r.success) for r in rollouts[kept:3]] == [(r.observation, r.success) for r in whole[kept:]]
