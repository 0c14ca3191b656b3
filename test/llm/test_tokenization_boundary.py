"""The prompt/completion boundary: the spliced tokenization (prompt head once, last line per candidate)
must give exactly the joint tokenization of every ``prompt + completion``, and fall back to it when
the tokenizer does not allow splicing."""

from __future__ import annotations

from typing import Any

import pytest

from llm_planner_ros.domain import domain_skill_texts
from llm_planner_ros.llm.hf_loading import LoadedModel
from llm_planner_ros.llm.tokenization import SplitCompletion, split_completions
from llm_planner_ros.paths import resolve_config
from llm_planner_ros.planning.saycan.prompt import SayCanPrompt

pytestmark = pytest.mark.model


class _CountingTokenizer:
    """Forwards to a fast tokenizer and counts the characters it was asked to tokenize."""

    def __init__(self, tokenizer: Any, append_end_token: int | None = None) -> None:
        self._tokenizer = tokenizer
        self._end = append_end_token
        self.characters = 0
        self.is_fast = tokenizer.is_fast

    def __call__(self, text: str | list[str], add_special_tokens: bool = True, **kwargs: Any) -> dict[str, Any]:
        texts = [text] if isinstance(text, str) else text
        self.characters += sum(len(t) for t in texts)
        encoded = self._tokenizer(texts, add_special_tokens=add_special_tokens, **kwargs)
        if self._end is not None and add_special_tokens:
            # Like tokenizers that close every text with an end token: splicing two texts breaks.
            encoded = {
                key: [row + ([self._end] if key == "input_ids" else [(0, 0)]) for row in rows]
                for key, rows in encoded.items()
                if key in ("input_ids", "offset_mapping")
            }
        return {key: rows[0] for key, rows in encoded.items()} if isinstance(text, str) else encoded


def _reference(tokenizer: Any, prompt: str, completions: list[str]) -> list[SplitCompletion]:
    """The policy spelled out: tokenize each joined text in full; completion tokens are those reaching past
    the prompt."""
    splits = []
    for completion in completions:
        encoded = tokenizer(prompt + completion, return_offsets_mapping=True)
        inside = [i for i, (_, end) in enumerate(encoded["offset_mapping"]) if end > len(prompt)]
        ids = encoded["input_ids"]
        splits.append(SplitCompletion(tuple(ids[: inside[0]]), tuple(ids[inside[0] : inside[-1] + 1])))
    return splits


PROMPT = SayCanPrompt.from_yaml(resolve_config("", "saycan_prompt.yaml"))
CASES = [
    ("How would you bring me a coke can?", []),
    ("I spilled my coke, can you bring me something to clean it up?", ["find a sponge"]),
    ("throw away the apple", ["find an apple", "pick up the apple", "go to the trash can"]),
    ("Bring me 2 apples\tand 1 7up", ["find an apple"]),
]


@pytest.mark.parametrize(("instruction", "done"), CASES)
def test_spliced_tokenization_equals_the_joint_one_for_every_kitchen_skill(
    smollm2: LoadedModel, instruction: str, done: list[str]
) -> None:
    prompt = PROMPT.render(instruction, done)
    completions = [PROMPT.completion(skill) for skill in domain_skill_texts()]
    counting = _CountingTokenizer(smollm2.tokenizer)
    assert split_completions(counting, prompt, completions) == _reference(smollm2.tokenizer, prompt, completions)
    # The head was tokenized once or twice (the check), not once per candidate.
    assert counting.characters < 3 * len(prompt) + sum(len(c) for c in completions) * 2


def test_a_tokenizer_that_cannot_be_spliced_gets_the_full_joint_tokenization(smollm2: LoadedModel) -> None:
    prompt = PROMPT.render("bring me the sponge", ["find a sponge"])
    completions = [PROMPT.completion(skill) for skill in domain_skill_texts()]
    closing = _CountingTokenizer(smollm2.tokenizer, append_end_token=smollm2.tokenizer.eos_token_id)
    splits = split_completions(closing, prompt, completions)
    assert splits == _reference(
        _CountingTokenizer(smollm2.tokenizer, smollm2.tokenizer.eos_token_id), prompt, completions
    )
    assert closing.characters > len(prompt) * len(completions)
