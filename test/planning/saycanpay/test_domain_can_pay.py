"""SayCanPay in a domain folder: `llm-planner domain build DIR --saycanpay` trains the domain's own Can and
Pay models on the plans of its bank, the planner uses them in that domain (locating objects with the
domain's skills), and a model of another world is refused (a domain without its models:
test_domain_examples.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from language_model_doubles import ScoringOnlyModel
from office_copy import copy_domain
from saycan_doubles import saycanpay_history

from llm_planner_ros.domain.domain_folder import load_domain
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.domain.oracle import shortest_plan
from llm_planner_ros.llm.base import Embedder
from llm_planner_ros.planning.plan_loop import EndReason, run_plan
from llm_planner_ros.planning.registry import PlannerResources, build_planner, load_planner_options
from llm_planner_ros.planning.saycan.bank import load_bank
from llm_planner_ros.planning.saycanpay.models import ROLES, ScorerLoadError, load_scorer, model_units
from llm_planner_ros.planning.saycanpay.planner import DEFAULT_MODELS
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment

pytestmark = [pytest.mark.model, pytest.mark.timeout(600)]
NEXT = ROLES.index("next")


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    from llm_planner_ros.llm.factory import load_embedder

    return load_embedder({})


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the office whose bank and SayCanPay models `domain build --saycanpay` wrote (1 epoch each)."""
    from llm_planner_ros.cli.main import main

    folder = copy_domain(tmp_path_factory.mktemp("office"), bank=False)
    assert main(["domain", "build", str(folder), "--saycanpay", "--saycanpay-epochs", "1"]) == 0
    return folder


class PlanSay(ScoringOnlyModel):
    """The language model wants each step of ``plan`` in turn (log-probability 0) and nothing else (-5)."""

    def __init__(self, plan: Sequence[str]) -> None:
        super().__init__()
        self.plan = plan

    def log_prob(self, prompt: str, completion: str) -> float:
        history = saycanpay_history(prompt)
        return 0.0 if completion == self.plan[min(len(history), len(self.plan) - 1)] else -5.0


def test_domain_build_trains_the_domains_can_and_pay_on_the_plans_of_its_bank(built: Path, embedder: Embedder) -> None:
    office = load_domain(built)
    plans = len(load_bank(built / "bank.jsonl"))
    for kind in ("can", "pay"):
        scorer = load_scorer(
            built / "saycanpay" / f"{kind}.safetensors", kind, embedder, "kitchen", office.library, ("office", "")
        )
        assert scorer.network.config.world == "office" and scorer.library is office.library
        training = scorer.meta["training"]
        assert training["episodes"] == f"the {plans} plans of {built / 'bank.jsonl'}"
        assert f"{kind} --domain-folder {built}" in training["command"]
        assert training["train_trajectories"] + training["val_trajectories"] == plans


def test_the_located_sentence_is_found_with_the_domains_skills(built: Path) -> None:
    office = load_domain(built)
    episode = load_episodes(built / "train.yaml", office).episode("t-deliver-01")
    state = SimulatedEnvironment(episode.world(office)).describe_state()
    units = model_units("bring me the stapler", state, [], "pick up the stapler", True, "kitchen", office.library)
    assert units[-1][0] == NEXT and "stapler (stapler_1)" in units[-1][1]
    # the SayCan kitchen's skills know no office object: nothing would be located
    assert model_units("g", state, [], "hand over the stapler", True, "kitchen")[-1] == (NEXT, "hand over the stapler")


def test_the_planner_in_the_office_plans_with_the_domains_own_can_and_pay(built: Path, embedder: Embedder) -> None:
    office = load_domain(built)
    episode = load_episodes(built / "train.yaml", office).episode("t-deliver-01")
    plan = [skill.text for skill in shortest_plan(episode, kitchen=office) or []]
    assert plan and plan[-1] == "done"
    resources = PlannerResources(PlanSay(plan), office, lambda: embedder, load_planner_options())
    planner = build_planner("saycanpay", resources)
    env = SimulatedEnvironment(episode.world(office))
    result = run_plan(planner, episode.instruction, env, 12)
    assert result.reason == EndReason.DONE, result.message
    assert list(planner.plan) == plan
    for step in result.steps:
        assert all(0.0 < c.affordance < 1.0 and 0.0 < c.pay < 1.0 for c in step.candidates), step.candidates


def test_a_model_of_another_world_is_refused_naming_both_worlds(built: Path, embedder: Embedder) -> None:
    office = load_domain(built)
    with pytest.raises(ScorerLoadError, match="trained in the world 'office', not in 'lobby': train it with `build`"):
        load_scorer(
            built / "saycanpay" / "can.safetensors", "can", embedder, "kitchen", office.library, ("lobby", "build")
        )
    packaged = Path(__file__).parents[3] / DEFAULT_MODELS["kitchen", "pay"]
    with pytest.raises(ScorerLoadError, match="trained in the world 'saycan_kitchen', not in 'office'"):
        load_scorer(packaged, "pay", embedder, "kitchen", office.library, ("office", "build"))
