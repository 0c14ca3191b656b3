"""Grammar-constrained generation: the planners' grammars, and a random model that can only write in them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from openai_stub import StubServer
from tiny_llm import KITCHEN_TEXT

from llm_planner_ros.domain import World
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.llm.base import InvalidRequestError, RecordingNotFoundError, UnsupportedRequestError
from llm_planner_ros.llm.hf import HFLanguageModel
from llm_planner_ros.llm.openai_compat import OpenAICompatibleModel
from llm_planner_ros.llm.replay import ReplayLanguageModel
from llm_planner_ros.paths import default_domain_file
from llm_planner_ros.planning.grammars import GrammarError, plan_grammar, program_grammar, step_grammar
from llm_planner_ros.planning.progprompt.examples import indent, load_examples
from llm_planner_ros.planning.progprompt.validator import parse_program, parse_valid_prefix
from llm_planner_ros.planning.progprompt.vocabulary import Vocabulary

PROMPT = "".join(f"{line}\n" for line in KITCHEN_TEXT[:3]) + "Human: bring me a 7up.\nRobot:"
# Names with spaces, digits and a quote: each must reach the text exactly as the grammar spells it.
SKILLS = [
    Skill("find a 7up", "find", ("7up",)),
    Skill("find a water bottle", "find", ("water bottle",)),
    Skill("pick up the 7up", "pick", ("7up",)),
    Skill("pick up the chef's knife", "pick", ("chef's knife",)),
    Skill("go to the far counter", "goto", ("far counter",)),
    Skill("done", "terminate"),
]
STEP = r" (find a 7up|find a water bottle|pick up the 7up|go to the far counter|done)"


def accepts(tokenizer: Any, text: str, grammar: str, complete: bool = True) -> bool:
    """Whether ``text`` is a sentence of ``grammar`` (or, ``complete`` False, a prefix of one)."""
    import llguidance
    import llguidance.hf

    matcher = llguidance.LLMatcher(
        llguidance.hf.from_tokenizer(tokenizer), llguidance.LLMatcher.grammar_from_lark(grammar), log_level=0
    )
    ids = tokenizer(text)["input_ids"]
    if matcher.validate_tokens(ids) != len(ids):
        return False
    return not complete or (matcher.consume_tokens(ids) and matcher.is_accepting())


def scene(make_world: Any) -> World:
    return make_world("table", **{"7up_1": "far counter", "water_bottle_1": "table", "sponge_1": "close counter"})


def vocabulary_of(world: World) -> Vocabulary:
    return Vocabulary.of_scene(world.admissible_skills(), world, sorted({obj.label for obj in world.objects}))


# ----- the grammar builders ---------------------------------------------------------------------------


def test_step_and_plan_grammars_name_skills_on_perceived_objects_places_or_nothing() -> None:
    grammar = step_grammar(SKILLS, ["7up", "water bottle"])
    assert '"find a 7up"' in grammar and '"go to the far counter"' in grammar and '"done"' in grammar
    assert "chef" not in grammar  # not perceived
    assert plan_grammar(SKILLS, ["chef's knife"]).count('"pick up the chef\'s knife"') == 1


def test_a_skill_on_a_place_is_written_without_perceiving_anything() -> None:
    # A domain's own family may act on a place ("wipe the desk"): places need no perceiving, so the
    # grammar must let the model write it in a scene where only objects were perceived.
    wipe = Skill("wipe the desk", "wipe", ("desk",))
    assert '"wipe the desk"' in step_grammar([*SKILLS, wipe], ["7up"], places=("desk", "far counter"))
    assert '"wipe the desk"' in plan_grammar([*SKILLS, wipe], [], places=("desk",))
    assert '"wipe the desk"' not in step_grammar([*SKILLS, wipe], ["7up"], places=("far counter",))


def test_a_scene_without_skills_or_objects_is_refused_with_the_reason(make_world: Any) -> None:
    with pytest.raises(GrammarError, match="no skill to write"):
        step_grammar([], ["7up"])
    with pytest.raises(GrammarError, match="no skill to write"):
        plan_grammar([s for s in SKILLS if s.family == "pick"], [])
    empty = Vocabulary({}, (), ())
    with pytest.raises(GrammarError, match="no skill call"):
        program_grammar(empty)


def test_the_program_grammar_takes_the_example_programs_and_the_scenes_names(
    make_world: Any, tiny_tokenizer: Any
) -> None:
    world = make_world("table", water_bottle_1="far counter", energy_bar_1="table", sponge_1="table", redbull_1="table")
    vocabulary = vocabulary_of(world)
    grammar = program_grammar(vocabulary)
    assert "\"'water bottle'\"" in grammar and "\"'coke'\"" not in grammar  # the scene's objects only
    for example in load_examples(default_domain_file("examples/progprompt.yaml")).programs:
        body = "\n" + indent(example.body) + "\n"
        assert accepts(tiny_tokenizer, body, grammar), body
    assert not accepts(tiny_tokenizer, "\n    import os\n", grammar, complete=False)
    assert not accepts(tiny_tokenizer, "\n    find('coke')\n", grammar, complete=False)  # no coke here


def test_a_plan_may_not_start_with_a_skill_left_out_of_its_first_step(tiny_tokenizer: Any) -> None:
    grammar = plan_grammar(SKILLS, ["7up"], not_first={"pick up the 7up"})
    assert accepts(tiny_tokenizer, " find a 7up, pick up the 7up, done\n", grammar)
    assert not accepts(tiny_tokenizer, " pick up the 7up, done\n", grammar, complete=False)
    with pytest.raises(GrammarError, match="no skill to write"):
        plan_grammar(SKILLS[:1], ["7up"], not_first={"find a 7up"})


# ----- constrained generation on a random model --------------------------------------------------------


def test_every_sample_of_a_random_model_is_a_sentence_of_the_grammar(
    tiny_lm: HFLanguageModel, tiny_tokenizer: Any
) -> None:
    grammar = plan_grammar(SKILLS, ["7up", "water bottle"])
    result = tiny_lm.generate(PROMPT, n=12, max_tokens=60, temperature=1.5, grammar=grammar)
    finished = [text for text in result.texts if text.endswith("\n")]
    assert len(finished) >= 6, result.texts  # most end where the grammar does, within the budget
    for text in result.texts:
        if text in finished:
            assert re.fullmatch(f"{STEP}(,{STEP})*\n", text), text
        else:  # the budget ran out: a prefix of a sentence
            assert accepts(tiny_tokenizer, text, grammar, complete=False), text


def test_a_constrained_program_parses_and_validates(make_world: Any, tiny_model: Any, tiny_tokenizer: Any) -> None:
    vocabulary = vocabulary_of(scene(make_world))
    grammar = program_grammar(vocabulary)
    for seed in range(3):
        model = HFLanguageModel(tiny_model, tiny_tokenizer, "tiny", seed=seed)
        text = model.generate("def bring_me_a_7up():", max_tokens=120, temperature=1.0, grammar=grammar).texts[0]
        program_text = "def bring_me_a_7up():" + text
        if text.endswith("\n"):
            assert parse_program(program_text, vocabulary).body
        else:  # cut by the budget: every line before the cut runs
            program, cut = parse_valid_prefix(program_text, vocabulary)
            assert cut is not None and cut.line == len(program_text.rstrip("\n").split("\n"))


def test_constrained_generation_reuses_the_prompt_cache(
    tiny_lm: HFLanguageModel, tiny_model: Any, count_forwards: Any
) -> None:
    grammar = step_grammar(SKILLS, ["7up"])
    tiny_lm.generate(PROMPT, n=2, max_tokens=12, grammar=grammar)
    calls = count_forwards(tiny_model)
    tiny_lm.generate(PROMPT, n=2, max_tokens=12, temperature=1.0, grammar=grammar)
    assert calls and max(tokens for _, tokens in calls) <= 2  # one token per sample per step: no prompt


def test_a_malformed_grammar_is_refused_before_any_forward(
    tiny_lm: HFLanguageModel, tiny_model: Any, count_forwards: Any
) -> None:
    calls = count_forwards(tiny_model)
    with pytest.raises(InvalidRequestError, match="not a valid Lark grammar.*unknown name"):
        tiny_lm.generate(PROMPT, grammar='start: "a" missing_rule')
    with pytest.raises(InvalidRequestError, match="blank"):
        tiny_lm.generate(PROMPT, grammar="  ")
    assert calls == []


# ----- the other backends -------------------------------------------------------------------------------


@pytest.fixture
def stub(tiny_model: Any, tiny_tokenizer: Any) -> Any:
    server = StubServer(tiny_model, tiny_tokenizer).start()
    yield server
    server.stop()


def test_the_openai_backend_refuses_a_grammar_unless_the_server_takes_one(stub: StubServer) -> None:
    grammar = step_grammar(SKILLS, ["7up"])
    plain = OpenAICompatibleModel(stub.base_url, "stub-model", max_retries=0)
    with pytest.raises(UnsupportedRequestError, match="structured_outputs: vllm"):
        plain.generate(PROMPT, max_tokens=4, grammar=grammar)
    assert stub.bodies == []  # refused without asking the server
    vllm = OpenAICompatibleModel(stub.base_url, "stub-model", max_retries=0, structured_outputs="vllm")
    vllm.generate(PROMPT, max_tokens=4, grammar=grammar)
    assert stub.bodies[-1]["structured_outputs"] == {"grammar": grammar}
    with pytest.raises(InvalidRequestError, match="not a valid Lark grammar"):
        vllm.generate(PROMPT, max_tokens=4, grammar="start: nowhere")


def test_replay_keys_answers_by_their_grammar(tiny_lm: HFLanguageModel, tmp_path: Path) -> None:
    recording = tmp_path / "run.jsonl"
    grammar = step_grammar(SKILLS, ["7up"])
    recorded = ReplayLanguageModel(recording, tiny_lm).generate(PROMPT, max_tokens=12, grammar=grammar)
    assert json.loads(recording.read_text())["request"]["grammar"] == grammar
    replay = ReplayLanguageModel(recording)
    assert replay.generate(PROMPT, max_tokens=12, grammar=grammar) == recorded
    with pytest.raises(RecordingNotFoundError):
        replay.generate(PROMPT, max_tokens=12)
