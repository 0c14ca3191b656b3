"""Size limits of one request to a shared language model (what ``llm_service`` accepts).

Why: the model serves one request at a time, so one oversized request (1,000 candidates to score,
2,000 samples) holds every other client for minutes and can take gigabytes. Each limit is a node
parameter of the same name; the defaults leave room above what the project's planners send (SayCan
scores up to ~70 candidates, zero-shot samples 10 continuations of 12 tokens, ProgPrompt asks for
one of 256 tokens).

Outcomes: ``check_score``/``check_generate`` return None for a request within every limit, or raise
``InvalidRequestError`` naming the request's value, the limit and the parameter that sets it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from llm_planner_ros.llm.base import InvalidRequestError


def _limit(default: int, help: str) -> int:
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class RequestLimits:
    """The largest request that is served; each field is an ``llm_service`` parameter."""

    max_prompt_chars: int = _limit(200_000, "characters of a prompt (score and generate)")
    max_completions: int = _limit(256, "candidates of one /llm/score request")
    max_completion_chars: int = _limit(2_000, "characters of one candidate of /llm/score")
    max_samples: int = _limit(32, "num_samples of one /llm/generate request")
    max_generate_tokens: int = _limit(512, "max_tokens of one /llm/generate request (after default_max_tokens applies)")
    max_sampled_tokens: int = _limit(1_024, "num_samples times max_tokens of one /llm/generate request (its time)")
    max_stop_strings: int = _limit(64, "stop strings of one /llm/generate request")
    max_bias_words: int = _limit(2_000, "logit_bias_words of one /llm/generate request")

    def check_score(self, prompt: str, completions: Sequence[str]) -> None:
        self._check("max_prompt_chars", len(prompt), "the prompt has {asked} characters")
        self._check("max_completions", len(completions), "the request has {asked} completions")
        longest = max((len(text) for text in completions), default=0)
        self._check("max_completion_chars", longest, "a completion has {asked} characters")

    def check_generate(
        self, prompt: str, num_samples: int, max_tokens: int, stop: Sequence[str], bias_words: Sequence[str]
    ) -> None:
        self._check("max_prompt_chars", len(prompt), "the prompt has {asked} characters")
        self._check("max_samples", num_samples, "num_samples is {asked}")
        self._check("max_generate_tokens", max_tokens, "max_tokens is {asked}")
        # Decoding time grows with the tokens of all samples together, whichever of the two is large.
        self._check("max_sampled_tokens", num_samples * max_tokens, "num_samples x max_tokens is {asked}")
        self._check("max_stop_strings", len(stop), "the request has {asked} stop strings")
        self._check("max_bias_words", len(bias_words), "the request has {asked} logit_bias_words")

    def _check(self, name: str, asked: int, what: str) -> None:
        limit = getattr(self, name)
        if asked > limit:
            raise InvalidRequestError(
                f"{what.format(asked=asked)}, over the limit of {limit} ({name}): split the request, "
                f"or raise the llm_service parameter {name}"
            )
