"""SayCanPay in the kitchen: the Can/Pay training data built from generated requests and oracle plans,
the shipped kitchen weight files, and the planner in the in-process kitchen with them."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import pytest
from language_model_doubles import ScoringOnlyModel
from repo_paths import REPO_ROOT
from saycan_doubles import saycanpay_history

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.llm.base import Embedder
from llm_planner_ros.planning.domain_tasks import normalized
from llm_planner_ros.planning.plan_loop import EndReason, run_plan
from llm_planner_ros.planning.registry import PlannerResources, build_planner, load_planner_options
from llm_planner_ros.planning.saycan.bank import PlanExample
from llm_planner_ros.planning.saycanpay.models import ROLES, ScorerLoadError, load_scorer, model_units
from llm_planner_ros.planning.saycanpay.planner import DEFAULT_MODELS
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment
from llm_planner_ros.training.saycan_bank import excluded_instructions, generate_examples
from llm_planner_ros.training.saycanpay_models import groups
from llm_planner_ros.training.saycanpay_trajectories import KITCHEN_EXCLUDE, Trajectory, kitchen_trajectories

KITCHEN = load_domain_files()
NEXT = ROLES.index("next")


@pytest.fixture(scope="module")
def generated() -> list[tuple[PlanExample, Trajectory]]:
    """16 generated requests and the trajectories built from them (the same seed and exclusions)."""
    exclude = [text for path in KITCHEN_EXCLUDE for text in excluded_instructions(path, KITCHEN)]
    examples = list(generate_examples(KITCHEN, 16, 5, exclude))
    return list(zip(examples, kitchen_trajectories(KITCHEN, 16, seed=5), strict=True))


@pytest.fixture(scope="module")
def trajectories(generated: list[tuple[PlanExample, Trajectory]]) -> list[Trajectory]:
    return [trajectory for _, trajectory in generated]


def next_action(units: Sequence[tuple[int, str]]) -> str:
    return next(text for role, text in units if role == NEXT)


def test_the_kitchen_plans_are_generated_requests_with_oracle_plans_and_no_evaluation_request(
    generated: list[tuple[PlanExample, Trajectory]],
) -> None:
    excluded = {normalized(e.instruction) for e in load_episodes(REPO_ROOT / KITCHEN_EXCLUDE[0], KITCHEN)}
    assert len(generated) == 16
    for example, trajectory in generated:
        assert normalized(trajectory.goal) not in excluded
        assert trajectory.goal == example.instruction and trajectory.plan == example.steps
        # the initial observation is what the plan loop's environment describes
        assert trajectory.initial_state == SimulatedEnvironment(KITCHEN.world(example.initial)).describe_state()
        assert trajectory.plan[-1] == "done"
        assert len(trajectory.allowed) == len(trajectory.rejected) == len(trajectory.plan)


def test_can_negatives_are_infeasible_and_come_from_other_plans_or_the_rules(
    generated: list[tuple[PlanExample, Trajectory]],
) -> None:
    trajectories = [trajectory for _, trajectory in generated]
    built = groups("can", trajectories, 0.9, random.Random(0), state_negatives=2, domain="kitchen")
    steps = [(example, t, i) for example, t in generated for i in range(len(t.plan))]
    assert len(built) == len(steps)
    every_plan_step = {a for t in trajectories for a in t.plan}
    hard = paper = 0
    for group, (example, trajectory, i) in zip(built, steps, strict=True):
        world = KITCHEN.world(example.initial)  # replayed here: the state before step i
        for action in trajectory.plan[:i]:
            world.apply(action)
        positive, *negatives = group
        assert positive.target == 1.0 and next_action(positive.units) == trajectory.plan[i]
        assert world.can_apply(trajectory.plan[i])
        for negative in negatives:
            action = next_action(negative.units)
            assert negative.target == 0.0
            assert not world.can_apply(action), (action, world.summary())
            if negative.state_negative:
                hard += 1
            else:
                paper += 1
                assert action in every_plan_step  # a step of this plan or of another plan
    assert hard == sum(min(2, len(t.rejected[i])) for _, t, i in steps)
    assert paper > 0


def test_pay_targets_are_discounted_and_negatives_from_other_plans_get_zero(trajectories: list[Trajectory]) -> None:
    built = groups("pay", trajectories, 0.9, random.Random(0), domain="kitchen")
    steps = [(t, i) for t in trajectories for i in range(len(t.plan))]
    for group, (trajectory, i) in zip(built, steps, strict=True):
        positive, *negatives = group
        assert positive.target == pytest.approx(0.9 ** (len(trajectory.plan) - 1 - i))
        assert [n.target for n in negatives] == [0.0] * len(negatives) and len(negatives) <= 1
        for negative in negatives:
            assert next_action(negative.units) != trajectory.plan[i]
            assert any(next_action(negative.units) in t.plan for t in trajectories if t is not trajectory)


def test_a_kitchen_input_has_one_unit_per_state_line_and_the_line_of_the_skills_object() -> None:
    state = "robot: at table, holding nothing\ntable: apple (apple_1)\nfar counter: coke (coke_1)\nvisited: table"
    units = model_units("bring me a coke", state, ["find a coke"], "pick up the coke", True, "kitchen")
    assert units == [
        (ROLES.index("goal"), "bring me a coke"),
        *((ROLES.index("state"), line + ".") for line in state.splitlines()),
        (ROLES.index("step"), "find a coke"),
        (NEXT, "pick up the coke"),
        (NEXT, "far counter: coke (coke_1)."),
    ]
    assert model_units("g", state, [], "done", True, "kitchen")[-1] == (NEXT, "done")
    assert model_units("g", state, [], "go to the table", True, "kitchen")[-1][1] == "robot: at table, holding nothing."


# ----- the shipped kitchen weight files --------------------------------------------------------------------


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    from llm_planner_ros.llm.factory import load_embedder

    return load_embedder({})


@pytest.mark.model
def test_the_kitchen_files_load_as_kitchen_and_other_files_are_refused_with_the_fix(embedder: Embedder) -> None:
    can = load_scorer(REPO_ROOT / DEFAULT_MODELS["kitchen", "can"], "can", embedder, "kitchen")
    pay = load_scorer(REPO_ROOT / DEFAULT_MODELS["kitchen", "pay"], "pay", embedder, "kitchen")
    assert can.network.config.domain == pay.network.config.domain == "kitchen"
    assert can.meta["training"]["domain"] == "kitchen"
    with pytest.raises(
        ScorerLoadError, match="holds a babyai can model, not a kitchen one: point the kitchen_can_model"
    ):
        load_scorer(REPO_ROOT / DEFAULT_MODELS["babyai", "can"], "can", embedder, "kitchen")
    with pytest.raises(ScorerLoadError, match="holds a kitchen pay model, not a babyai one"):
        load_scorer(REPO_ROOT / DEFAULT_MODELS["kitchen", "pay"], "pay", embedder, "babyai")
    with pytest.raises(ScorerLoadError, match="holds a pay model, not a can model: point the kitchen_can_model"):
        load_scorer(REPO_ROOT / DEFAULT_MODELS["kitchen", "pay"], "can", embedder, "kitchen")


@pytest.mark.model
def test_the_shipped_kitchen_can_model_rates_expert_steps_above_rule_rejected_ones(embedder: Embedder) -> None:
    can = load_scorer(REPO_ROOT / DEFAULT_MODELS["kitchen", "can"], "can", embedder, "kitchen")
    plans = kitchen_trajectories(KITCHEN, 30, seed=77)  # another generator seed than the training data's
    rng = random.Random(0)
    wins = total = 0
    for trajectory in plans:
        for i, action in enumerate(trajectory.plan):
            rejected = rng.sample(trajectory.rejected[i], min(3, len(trajectory.rejected[i])))
            first, *others = can.probabilities(
                trajectory.goal, trajectory.initial_state, trajectory.plan[:i], [action, *rejected]
            )
            wins += sum(first > other for other in others)
            total += len(others)
    assert wins >= 0.9 * total


# ----- the planner in the in-process kitchen ----------------------------------------------------------------


class FoolishSay(ScoringOnlyModel):
    """Prefers ``pick up the coke`` first (log-probability 0; infeasible: the coke is on another counter),
    then each step of ``plan`` (0; ``find a coke`` -1 at the first step) and -5 for anything else."""

    def __init__(self, plan: Sequence[str]) -> None:
        super().__init__()
        self.plan = plan

    def log_prob(self, prompt: str, completion: str) -> float:
        history = saycanpay_history(prompt)
        wanted = self.plan[min(len(history), len(self.plan) - 1)]
        if not history:
            return {"pick up the coke": 0.0, wanted: -1.0}.get(completion, -5.0)
        return 0.0 if completion == wanted else -5.0


@pytest.mark.model
def test_the_planner_in_the_kitchen_lets_the_learned_can_overrule_an_infeasible_say_choice(embedder: Embedder) -> None:
    plan = ["find a coke", "pick up the coke", "bring it to you", "put down the coke", "done"]
    world = KITCHEN.world(
        {
            "robot": {"at": "table", "holding": None},
            "objects": [
                {"id": "coke_1", "label": "coke", "at": "far counter"},
                {"id": "apple_1", "label": "apple", "at": "table"},
            ],
        }
    )
    resources = PlannerResources(FoolishSay(plan), KITCHEN, lambda: embedder, load_planner_options())
    planner = build_planner("saycanpay", resources)
    env = SimulatedEnvironment(world)
    result = run_plan(planner, "Bring me the coke, please.", env, 10)
    assert result.reason == EndReason.DONE, result.message
    assert list(planner.plan) == plan
    first = {c.skill.text: c.affordance for c in result.steps[0].candidates}
    assert first["pick up the coke"] < 0.5 < first["find a coke"], first
    assert any(obj.label == "coke" and obj.at == "user" for obj in env.world.objects)


def test_pay_can_add_a_negative_from_the_same_plan_at_another_step(trajectories: list[Trajectory]) -> None:
    built = groups("pay", trajectories, 0.9, random.Random(0), domain="kitchen", pay_same_plan=True)
    steps = [(t, i) for t in trajectories for i in range(len(t.plan))]
    same_plan = 0
    for group, (trajectory, i) in zip(built, steps, strict=True):
        positive, *negatives = group
        assert positive.target == pytest.approx(0.9 ** (len(trajectory.plan) - 1 - i))
        assert len(negatives) <= 2 and all(n.target == 0.0 for n in negatives)
        assert all(next_action(n.units) != trajectory.plan[i] for n in negatives)
        # the history is this step's: a same-plan negative is another step of this plan in this context
        assert all(
            [text for role, text in n.units if role == ROLES.index("step")] == list(trajectory.plan[:i])
            for n in negatives
        )
        same_plan += len(negatives) == 2 and next_action(negatives[1].units) in trajectory.plan
    assert same_plan >= 0.9 * len(steps)


@pytest.mark.model
def test_training_stops_when_validation_stops_improving(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from llm_planner_ros.cli.main import run_command

    out = tmp_path / "pay.safetensors"
    # lr 0: the validation score never improves after the first epoch, so patience 1 stops after epoch 2
    args = ["train", "saycanpay", "pay", "--domain", "kitchen", "--plans", "6", "--data-seed", "5", "--out", str(out)]
    run_command([*args, "--epochs", "5", "--lr", "0", "--patience", "1", "--pay-same-plan-negatives", "--threads", "1"])
    printed = capsys.readouterr().out
    assert "epoch 2/5" in printed and "epoch 3/5" not in printed
    assert "stopped: no better validation score for 1 epochs" in printed
    assert out.is_file() and (tmp_path / "pay.safetensors.ckpt").is_file()
    with pytest.raises(SystemExit, match="trained on other data"):  # the checkpoint records its negatives
        run_command([*args, "--epochs", "3", "--resume", "--threads", "1"])


# ----- the Say prompt's examples, retrieved per instruction --------------------------------------------------


@pytest.mark.model
def test_kitchen_prompt_examples_are_the_bank_requests_nearest_to_the_instruction(embedder: Embedder) -> None:
    from llm_planner_ros.planning.saycanpay.planner import load_kitchen_examples, retrieved_kitchen_examples
    from llm_planner_ros.planning.saycanpay.prompt import MAX_EXAMPLE_STEPS

    resources = PlannerResources(FoolishSay([]), KITCHEN, lambda: embedder, load_planner_options())
    source = retrieved_kitchen_examples("domains/saycan_kitchen/bank.jsonl", 3, resources)
    excluded = {normalized(text) for path in KITCHEN_EXCLUDE for text in excluded_instructions(path, KITCHEN)}
    goals = ["Go find the apple.", "Throw the sponge away.", "Put what you are holding on the table."]
    prompts = [source.for_goal(goal) for goal in goals]
    for goal, prompt in zip(goals, prompts, strict=True):
        assert len(prompt.examples) == 3
        assert all(len(e.plan) <= MAX_EXAMPLE_STEPS and e.plan[-1] == "done" for e in prompt.examples)
        assert not {normalized(e.goal) for e in prompt.examples} & excluded
        # the most similar is last, next to the task
        similarity = [
            float(embedder.embed([goal, e.goal])[0] @ embedder.embed([goal, e.goal])[1]) for e in prompt.examples
        ]
        assert similarity[-1] == max(similarity), (goal, [e.goal for e in prompt.examples])
    assert "find" in prompts[0].examples[-1].goal.lower() or prompts[0].examples[-1].plan[0].startswith("find")
    assert len({p.examples for p in prompts}) == 3  # each instruction its own examples
    fixed = load_kitchen_examples("domains/saycan_kitchen/bank.jsonl", 3, KITCHEN)
    assert fixed.for_goal(goals[0]) is fixed.for_goal(goals[1]) is fixed
