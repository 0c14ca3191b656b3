"""A scripted stand-in for the language model in ProgPrompt's tests (a test double of the model only)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from llm_planner_ros.llm.base import GenerationResult, LanguageModel, ScoreResult


class ScriptedModel(LanguageModel):
    """``generate`` returns ``completion`` (the program body) for any prompt, whatever its grammar;
    ``score`` of the assert question's two answers prefers " Yes" when ``answer(prompt)`` is True.
    Every prompt and grammar is kept."""

    def __init__(self, completion: str, answer: Callable[[str], bool] = lambda _prompt: True) -> None:
        self.completion = completion
        self.answer = answer
        self.generate_prompts: list[str] = []
        self.grammars: list[str | None] = []
        self.score_prompts: list[str] = []

    def generate(
        self,
        prompt: str,
        n: int = 1,
        max_tokens: int = 64,
        temperature: float = 0.0,
        top_p: float = 1.0,
        stop: Sequence[str] = (),
        logit_bias: Mapping[str, float] | None = None,
        grammar: str | None = None,
    ) -> GenerationResult:
        self.generate_prompts.append(prompt)
        self.grammars.append(grammar)
        return GenerationResult((self.completion,) * n, (-0.25,) * n)

    def score(self, prompt: str, completions: Sequence[str], per_token: bool = False) -> ScoreResult:
        self.score_prompts.append(prompt)
        assert list(completions) == [" Yes", " No"], completions
        yes = self.answer(prompt)
        return ScoreResult((-0.1, -3.0) if yes else (-3.0, -0.1), (1, 1))
