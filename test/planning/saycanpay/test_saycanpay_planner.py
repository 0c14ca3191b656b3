"""The saycanpay planner in the shared plan loop on BabyAI episodes, with scripted and tiny models,
and its Can/Pay weight files (saved, loaded, refused when they do not fit)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from language_model_doubles import ScoringOnlyModel
from repo_paths import REPO_ROOT
from safetensors import safe_open
from safetensors.torch import save_file
from saycan_doubles import saycanpay_history

from llm_planner_ros.babyai_domain.episodes import Episode, load_episodes, read_episodes
from llm_planner_ros.babyai_domain.world import judged_along_plan
from llm_planner_ros.llm.base import Embedder
from llm_planner_ros.planning.babyai_environment import BabyAIEnvironment
from llm_planner_ros.planning.plan_loop import EndReason, run_plan
from llm_planner_ros.planning.saycanpay.models import (
    ROLES,
    Scorer,
    ScorerConfig,
    ScorerLoadError,
    load_scorer,
    model_units,
)
from llm_planner_ros.planning.saycanpay.planner import (
    DEFAULT_CAN,
    DEFAULT_PAY,
    DomainModels,
    SayCanPayOptions,
    SayCanPayPlanner,
    edit_distance,
    load_examples,
)
from llm_planner_ros.planning.saycanpay.prompt import SayPrompt

EPISODES = list(load_episodes(REPO_ROOT / "benchmarks" / "babyai" / "test-executable.txt"))
PROMPT = load_examples(REPO_ROOT / "benchmarks" / "babyai" / "train.txt", 3)


class ScriptedSay(ScoringOnlyModel):
    """Gives log-probability 0 to the action ``choose(history)`` names and -5 to every other one."""

    def __init__(self, choose) -> None:
        super().__init__()
        self.choose = choose

    def log_prob(self, prompt: str, completion: str) -> float:
        return 0.0 if completion == self.choose(saycanpay_history(prompt)) else -5.0


def oracle_say(episode: Episode) -> ScriptedSay:
    return ScriptedSay(lambda history: episode.plan[len(history)] if len(history) < len(episode.plan) else "")


@pytest.mark.parametrize("strategy", ["greedy_action", "beam_action"])
def test_an_oracle_say_model_plans_offline_and_the_loop_executes_the_plan(strategy: str) -> None:
    episode = EPISODES[0]
    model = oracle_say(episode)
    planner = SayCanPayPlanner(
        model, {"babyai": DomainModels(PROMPT)}, SayCanPayOptions(score="say", strategy=strategy)
    )
    env = BabyAIEnvironment.for_episode(episode)
    result = run_plan(planner, episode.goal, env, 20)
    assert result.reason == EndReason.DONE and env.goal_reached, result.message
    assert planner.plan == episode.plan
    assert [step.skill.text for step in result.steps] == list(episode.plan)
    assert result.steps[0].candidates[0].skill.text == episode.plan[0]
    # offline: every Say call happens before the first action runs, conditioned on the initial state only
    assert all(episode.initial_state.strip() in prompt for prompt in model.prompts)
    expected_calls = len(episode.plan) if strategy == "greedy_action" else None
    assert expected_calls is None or len(model.prompts) == expected_calls


def test_the_first_failing_action_ends_an_offline_plan_without_recovery() -> None:
    episode = EPISODES[0]  # three rooms: the goal ball is behind two locked doors
    goal_pick = episode.plan[-2]
    model = ScriptedSay(lambda history: goal_pick if not history else "done picking up")
    planner = SayCanPayPlanner(
        model, {"babyai": DomainModels(PROMPT)}, SayCanPayOptions(score="say", strategy="greedy_action")
    )
    env = BabyAIEnvironment.for_episode(episode)
    result = run_plan(planner, episode.goal, env, 20)
    assert result.reason == EndReason.NO_CANDIDATE
    assert f"step 1 {goal_pick!r} failed" in result.message and "behind a locked door" in result.message
    assert not env.goal_reached and len(result.steps) == 1


def test_greedy_token_with_a_tiny_random_model_maps_each_written_step_to_an_admissible_action() -> None:
    sys.path.insert(0, str(REPO_ROOT / "test" / "llm"))
    from tiny_llm import build_tiny_model, train_tokenizer

    from llm_planner_ros.llm.hf import HFLanguageModel

    tokenizer = train_tokenizer()
    model = HFLanguageModel(build_tiny_model(tokenizer), tokenizer, "tiny-llama")
    options = SayCanPayOptions(score="say", strategy="greedy_token", max_actions=3, max_tokens=4)
    # the tiny model's window is 256 tokens: no examples
    planner = SayCanPayPlanner(model, {"babyai": DomainModels(SayPrompt(()))}, options)
    env = BabyAIEnvironment.for_episode(EPISODES[1])
    result = run_plan(planner, EPISODES[1].goal, env, 10)
    admissible = {skill.text for skill in env.admissible_skills()}
    assert 1 <= len(planner.plan) <= 3 and set(planner.plan) <= admissible
    # The loop ran the mapped actions in order (the random model's plan itself means nothing).
    assert [step.skill.text for step in result.steps] == list(planner.plan)[: len(result.steps)]
    assert result.reason != EndReason.ERROR, result.message


def test_options_and_missing_models_are_refused_with_the_fix() -> None:
    with pytest.raises(ValueError, match="greedy_token writes each step"):
        SayCanPayOptions(score="say_can", strategy="greedy_token")
    with pytest.raises(ValueError, match="beam_size <= candidates"):
        SayCanPayOptions(candidates=2, beam_size=3)
    with pytest.raises(ValueError, match="needs the babyai Can model"):
        SayCanPayPlanner(oracle_say(EPISODES[0]), {"babyai": DomainModels(PROMPT)}, SayCanPayOptions(score="say_can"))
    assert edit_distance("pick up red kye", "pick up red key") == 2


# ----- the Can / Pay weight files ------------------------------------------------------------------------


class Renamed(Embedder):
    """The project's encoder under another name (a file trained on another encoder)."""

    def __init__(self, inner: Embedder, name: str) -> None:
        self.inner, self._name = inner, name

    @property
    def name(self) -> str:
        return self._name

    def embed(self, texts: Sequence[str]):
        return self.inner.embed(texts)


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    from llm_planner_ros.llm.factory import load_embedder

    return load_embedder({})


@pytest.mark.model
def test_a_saved_scorer_loads_back_with_the_same_outputs_and_other_files_are_refused(
    embedder: Embedder, tmp_path: Path
) -> None:
    config = ScorerConfig(input_dim=384 + 3, dim=16, layers=1, heads=2)
    scorer = Scorer.fresh("can", embedder, ["blue", "key", "door"], config, seed=3)
    path = tmp_path / "can.safetensors"
    scorer.save(path, {"command": "test"})
    episode = EPISODES[0]
    args = (episode.goal, episode.initial_state, episode.plan[:1], list(episode.plan[1:4]))
    loaded = load_scorer(path, "can", embedder)
    scorer.network.eval()
    assert loaded.probabilities(*args) == pytest.approx(scorer.probabilities(*args), abs=1e-6)
    assert loaded.meta["training"] == {"command": "test"}

    with pytest.raises(ScorerLoadError, match="holds a can model, not a pay model"):
        load_scorer(path, "pay", embedder)
    with pytest.raises(ScorerLoadError, match="trained on 'all-MiniLM-L6-v2' sentence vectors"):
        load_scorer(path, "can", Renamed(embedder, "other-encoder"))
    with pytest.raises(ScorerLoadError, match="can model not found at .*: train it with"):
        load_scorer(tmp_path / "missing.safetensors", "can", embedder)
    # weights of a wider head under the metadata of the narrow one
    wider = Scorer.fresh("can", embedder, ["blue", "key", "door"], ScorerConfig(387, dim=32, layers=1, heads=2), 0)
    with safe_open(str(path), framework="pt") as handle:
        metadata = handle.metadata()
    save_file(
        {k: v.contiguous() for k, v in wider.network.state_dict().items()},
        str(tmp_path / "swapped.safetensors"),
        metadata,
    )
    with pytest.raises(ScorerLoadError, match="do not fit the can architecture"):
        load_scorer(tmp_path / "swapped.safetensors", "can", embedder)
    (tmp_path / "corrupt.safetensors").write_bytes(b"not a weight file")
    with pytest.raises(ScorerLoadError, match="not a readable safetensors file"):
        load_scorer(tmp_path / "corrupt.safetensors", "can", embedder)


@pytest.mark.model
def test_the_shipped_models_prefer_the_oracle_first_action_over_the_goal_pick(embedder: Embedder) -> None:
    can = load_scorer(REPO_ROOT / DEFAULT_CAN, "can", embedder)
    pay = load_scorer(REPO_ROOT / DEFAULT_PAY, "pay", embedder)
    assert len(model_units("g.", "A. B.", ["x"], "y")) == 5
    wins = 0
    for episode in EPISODES:
        first, goal_pick = episode.plan[0], episode.plan[-2]
        feasible, behind_door = can.probabilities(episode.goal, episode.initial_state, (), [first, goal_pick])
        wins += feasible > behind_door
        late, done = pay.probabilities(
            episode.goal, episode.initial_state, episode.plan[:-1], [episode.plan[0], "done picking up"]
        )
        wins += done > late
    assert wins >= 0.9 * 2 * len(EPISODES)


def test_a_located_input_adds_the_observation_sentence_of_the_actions_object() -> None:
    state = "Room 1 has agent, red key. Room 2 has blue key. The door connecting Room 1 and Room 2 is locked."
    plain = model_units("pick up the ball.", state, ["pick up red key"], "toggle blue door")
    located = model_units("pick up the ball.", state, ["pick up red key"], "toggle blue door", locate=True)
    assert located == [*plain, (ROLES.index("next"), "Room 2 has blue key.")]
    assert model_units("g.", state, [], "pick up red key", locate=True)[-1][1] == "Room 1 has agent, red key."
    assert model_units("g.", state, [], "drop key in void", locate=True) == model_units(
        "g.", state, [], "drop key in void"
    )


@pytest.mark.model
def test_the_shipped_can_model_prefers_the_key_in_the_agents_room_to_one_behind_a_locked_door(
    embedder: Embedder,
) -> None:
    can = load_scorer(REPO_ROOT / DEFAULT_CAN, "can", embedder)
    train = load_episodes(REPO_ROOT / "benchmarks" / "babyai" / "train.txt")
    three_rooms = [e for e in train if "Room 3 has" in e.initial_state][:30]
    wins = 0
    for episode in three_rooms:
        _, rejected = judged_along_plan(episode)[0]
        far_keys = [a for a in rejected if a.startswith("pick up") and a.endswith(" key")]
        first, *others = can.probabilities(episode.goal, episode.initial_state, (), [episode.plan[0], *far_keys])
        wins += first > 0.5 and all(p < 0.5 for p in others)
    assert wins >= 0.9 * len(three_rooms)


def test_the_bench_fails_an_unreadable_episode_with_the_reason_and_goes_on(tmp_path: Path) -> None:
    """One sentence the reader does not know, or a block that is not an episode, fails its own episode;
    the episodes after it still run (it used to end the whole run on the first one)."""
    from llm_planner_ros.evaluation.babyai_bench import evaluate
    from llm_planner_ros.llm.counting_model import CountingModel

    good = (REPO_ROOT / "benchmarks" / "babyai" / "named-doors.txt").read_text().split("\n\n")[0]
    unknown = good.replace("[Seed] 9001", "[Seed] 1").replace("Room 2 has purple box.", "Room 2 has a purple box.")
    split = tmp_path / "split.txt"
    split.write_text("\n\n".join([unknown, "[Seed] x\n[Goal] pick up the box.", good]) + "\n")
    episodes = read_episodes(split)
    model = CountingModel(oracle_say(next(e for e in episodes if isinstance(e, Episode) and e.seed == 9001)))
    planner = SayCanPayPlanner(model, {"babyai": DomainModels(PROMPT)}, SayCanPayOptions(score="say"))
    reported: list[str] = []
    result = evaluate(planner, episodes, model, report=reported.append)
    rows = result["episodes"]
    assert [row["id"] for row in rows] == ["seed-1", "block-2", "seed-9001"]
    assert [row["success"] for row in rows] == [False, False, True]
    assert rows[0]["end"] == "unreadable: unknown object 'a purple box' in 'Room 2 has a purple box'"
    assert rows[1]["end"].startswith("unreadable: ") and "Seed" in rows[1]["end"]
    assert result["summary"]["unreadable"] == 2 and result["summary"]["planning_success"] == 1 / 3
    assert "cannot read the episode" in reported[0]
