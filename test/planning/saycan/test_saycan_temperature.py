"""The temperature on SayCan's language-model term: its fit, and what it changes in the planner's choice."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from language_model_doubles import FixedModel

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.paths import config_file, repo_path
from llm_planner_ros.planning.saycan.llm_temperature import (
    StepSample,
    fit_temperature,
    mean_log_likelihood,
    overturn_affordance,
)
from llm_planner_ros.planning.saycan.planner import SayCanOptions, SayCanPlanner
from llm_planner_ros.planning.saycan.prompt import SayCanPrompt
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment

TEMPERATURE_REPLAY = "test/data/saycan_temperature_sp01_replay.jsonl"


def _samples(gap: float, right_first: int, wrong_first: int) -> list[StepSample]:
    """Steps of two skills where the model's first choice leads by ``gap`` nats; it is right in
    ``right_first`` of them and the second choice is the right one in ``wrong_first``."""
    log_probs = (0.0, -gap)
    return [StepSample(log_probs, (True, False))] * right_first + [StepSample(log_probs, (False, True))] * wrong_first


def test_fitted_temperature_matches_how_often_the_first_choice_is_right() -> None:
    # First choice 12 nats ahead but right only 3 times in 4: the calibrated softmax puts 3/4 on it,
    # i.e. exp(12 / T) = 3, T = 12 / ln 3 ~ 10.9 (within the grid's 3 % steps).
    samples = _samples(12.0, right_first=30, wrong_first=10)
    temperature = fit_temperature(samples)
    assert temperature == pytest.approx(12.0 / math.log(3.0), rel=0.04)
    assert mean_log_likelihood(samples, temperature) > mean_log_likelihood(samples, 1.0) + 1.0
    # A model that is always right is best left sharp: the fit goes to the sharp end of the grid.
    assert fit_temperature(_samples(12.0, right_first=20, wrong_first=0)) < 1.0
    # At the fitted T an affordance of 0.2 on the first choice loses to a feasible second (0.9).
    assert overturn_affordance(12.0, temperature, 0.9) > 0.2 > overturn_affordance(12.0, 1.0, 0.9)
    with pytest.raises(ValueError, match="no step samples"):
        fit_temperature([])
    with pytest.raises(ValueError, match="at least one right skill"):
        StepSample((0.0, -1.0), (False, False))


def test_temperature_lets_a_graded_affordance_overturn_the_models_first_choice() -> None:
    kitchen = load_domain_files()
    world = kitchen.world(
        {
            "robot": {"at": "table", "holding": None},
            "objects": [
                {"id": "coke_1", "label": "coke", "at": "table"},
                {"id": "apple_1", "label": "apple", "at": "table"},
            ],
        }
    )
    # The model: "pick up the coke" first, "pick up the apple" 12 nats behind. The environment: the coke
    # pick succeeds with 0.2, the apple pick with 0.9 (say the coke lies at the back of the table).
    model = FixedModel({"pick up the coke": -0.01, "pick up the apple": -12.01})
    graded = {"pick up the coke": 0.2, "pick up the apple": 0.9}

    class GradedEnvironment(SimulatedEnvironment):
        def affordances(self, skills):  # type: ignore[no-untyped-def]
            return [graded.get(s.text, 0.0) for s in skills]

    prompt = SayCanPrompt.from_yaml(config_file("saycan_prompt.yaml"))
    chosen = {}
    for temperature in (1.0, 10.0):
        for prune in (True, False):
            planner = SayCanPlanner(model, prompt, SayCanOptions(llm_temperature=temperature, prune=prune))
            planner.reset("bring me something to eat")
            decision = planner.next_step(GradedEnvironment(world.copy()), [])
            assert decision.skill is not None
            chosen[(temperature, prune)] = decision.skill.text
            top = decision.candidates[0]
            assert top.combined == pytest.approx(math.exp(top.llm / temperature) * top.affordance)
    # Without a temperature the sure model wins even at 0.2; with T = 10 the feasible second choice does,
    # and pruning (exact branch and bound on p x a^T) chooses as scoring every skill does.
    assert chosen[(1.0, True)] == chosen[(1.0, False)] == "pick up the coke"
    assert chosen[(10.0, True)] == chosen[(10.0, False)] == "pick up the apple"
    with pytest.raises(ValueError, match="llm_temperature must be a positive number"):
        SayCanOptions(llm_temperature=0.0)

    # min_affordance vetoes the 0.2 pick at T = 1 and leaves the model's ranking of the rest; `done`, at the
    # paper's 0.1, stays below the gate's reach so a plan can still end.
    model = FixedModel({"pick up the coke": -0.01, "pick up the apple": -12.01, "done": -3.0})
    for prune in (True, False):
        options = SayCanOptions(min_affordance=0.25, terminate_affordance=0.1, prune=prune)
        planner = SayCanPlanner(model, prompt, options)
        planner.reset("bring me something to eat")
        decision = planner.next_step(GradedEnvironment(world.copy()), [])
        scores = {c.skill.text: c for c in decision.candidates}
        assert decision.skill is not None and decision.skill.text == "done", scores
        assert scores["done"].affordance == 0.1 and "pick up the coke" not in scores
    with pytest.raises(ValueError, match="min_affordance must be in"):
        SayCanOptions(min_affordance=1.0)


def test_step_samples_walk_the_oracle_plan_of_a_generated_task() -> None:
    from llm_planner_ros.training.saycan_bank import generate_examples
    from llm_planner_ros.training.saycan_temperature import SAY_ONLY, step_samples

    kitchen = load_domain_files()
    (example,) = generate_examples(kitchen, 1, seed=17)
    # A model that knows only the plan's first step: sure of it, -40 nats for everything else.
    model = FixedModel({example.steps[0]: -0.01})
    options = SayCanOptions(**{**SAY_ONLY, "top_k": 1000})
    planner = SayCanPlanner(model, SayCanPrompt.from_yaml(config_file("saycan_prompt.yaml")), options)
    samples = list(step_samples(planner, example, kitchen))
    assert len(samples) == len(example.steps)  # one per step, "done" included
    first = samples[0]
    assert len(first.log_probs) == len(kitchen.world(example.initial).admissible_skills())
    best = max(range(len(first.log_probs)), key=first.log_probs.__getitem__)
    assert first.right[best]  # the oracle's first step is among the right skills
    assert all(sum(s.right) >= 1 for s in samples)
    assert sum(samples[-1].right) == 1  # at the end only "done" is right


def test_bench_command_reports_each_temperature(tmp_path: Path) -> None:
    """``llm-planner bench saycan-temperature`` as a user runs it, with the embedded model's answers replayed
    (test/data/saycan_temperature_sp01_replay.jsonl, recorded by the same command with ``--llm backend=replay
    --llm replay_mode=record --llm recording=...`` on the embedded SmolLM2 with its SayCan adapter)."""
    out = tmp_path / "temperature.json"
    command = [sys.executable, "-m", "llm_planner_ros.cli.main", "bench", "saycan-temperature", "--ids", "sp-01",
               "--temperature", "1", "10", "--option", "terminate_affordance=1.0", "--llm", "backend=replay",
               "--llm", f"recording={repo_path(TEMPERATURE_REPLAY)}", "--json", str(out)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert set(report["by_temperature"]) == {"1", "10"}
    for entry in report["by_temperature"].values():
        # "pick up the energy bar", then "done": both the model's first choice, so nothing is overturned.
        assert (entry["plan_success"], entry["steps"], entry["episodes_done"]) == (1, 2, 1), entry
        assert entry["overturned_at_zero"] == entry["overturned_above_zero"] == 0
    assert "T=10: " in done.stdout
    refused = subprocess.run([*command[:-2], "--option", "prune=maybe"], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "--option prune=maybe: saycan's prune takes true or false" in refused.stderr
