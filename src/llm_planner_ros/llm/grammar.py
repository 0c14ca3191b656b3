"""Grammar-constrained decoding with llguidance: which tokens may come next so the text stays in a grammar.

A grammar is text in llguidance's Lark syntax (rules ``name: a | b``, string literals ``"find("``,
``/regex/`` tokens, ``start`` the start rule). The ``hf`` backend compiles it once per request
(:class:`GrammarCompiler`, about 3 ms for a kitchen program grammar) and keeps one
:class:`GrammarMatcher` per sample: before each sampled token it asks the matcher for the allowed
tokens (about 0.1 ms on SmolLM2's 49k vocabulary), sets every other logit to minus infinity, and
feeds the chosen token back. Once the grammar is complete and nothing more may follow, only the
end-of-sequence token is allowed, so a continuation ends exactly where its grammar does; when
``max_tokens`` runs out first, the text is a prefix of a sentence of the grammar (never anything
else).

Why llguidance (docs/llm.md, "Constrained generation"): no dependency beyond itself (xgrammar pulls
triton, hundreds of MB, with this project's CPU torch), Lark grammars with regex tokens, and compile
and mask times below xgrammar's on this model.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from llm_planner_ros.llm.base import InvalidRequestError, check_text


def grammar_error(grammar: str) -> str:
    """Why ``grammar`` is not a usable Lark grammar ("" when it is); checks syntax only, no tokenizer."""
    import llguidance

    check_text(grammar, "grammar")
    if not grammar.strip():
        return "the grammar is blank"
    try:
        is_error, messages = llguidance.LLMatcher.validate_grammar_with_warnings(_lark(grammar))
    except (ValueError, RuntimeError) as error:
        return str(error)
    return messages[0] if is_error else ""


def check_grammar(grammar: str | None) -> None:
    """InvalidRequestError naming the problem unless ``grammar`` is None or a valid Lark grammar."""
    if grammar is None:
        return
    problem = grammar_error(grammar)
    if problem:
        raise InvalidRequestError(
            f"the grammar is not a valid Lark grammar: {problem[:300]}; write rules as `name: alternative | "
            'alternative` with a `start` rule and quoted literals, e.g. start: "find(" name ")"'
        )


class GrammarCompiler:
    """Compiles grammars against one tokenizer; the tokenizer's table (about 0.6 s for SmolLM2) is built
    on first use and kept."""

    def __init__(self, tokenizer: Any, vocab_size: int, eos_ids: set[int]) -> None:
        self._tokenizer = tokenizer
        self._vocab_size = vocab_size
        self._eos_ids = sorted(eos_ids)
        self._table: Any = None

    def matchers(self, grammar: str, count: int) -> list[GrammarMatcher]:
        """``count`` fresh matchers of ``grammar``; InvalidRequestError when the grammar does not compile."""
        import llguidance
        import llguidance.hf

        check_grammar(grammar)
        if self._table is None:
            self._table = llguidance.hf.from_tokenizer(
                self._tokenizer, n_vocab=self._vocab_size, eos_token=self._eos_ids or None
            )
        first = llguidance.LLMatcher(self._table, _lark(grammar), log_level=0)
        if first.is_error():
            raise InvalidRequestError(f"the grammar does not compile for this tokenizer: {first.get_error()[:300]}")
        copies = [first, *(first.deep_copy() for _ in range(count - 1))]
        return [GrammarMatcher(matcher, self._vocab_size) for matcher in copies]


class GrammarMatcher:
    """Where one sample stands in its grammar: the tokens allowed next, and the token taken."""

    def __init__(self, matcher: Any, vocab_size: int) -> None:
        self._matcher = matcher
        self._vocab_size = vocab_size

    def allowed(self) -> torch.Tensor:
        """A bool vector over the vocabulary: True where the token keeps the text in the grammar."""
        # Bit k of the little-endian mask is token k. Unpacked by numpy: the same in torch spreads a
        # tiny op over OpenMP threads, 80 ms per token on the loaded 2-core machine against 0.1 ms.
        packed = np.frombuffer(self._matcher.compute_bitmask(), dtype=np.uint8)
        return torch.from_numpy(np.unpackbits(packed, bitorder="little")[: self._vocab_size].astype(bool))

    def take(self, token: int) -> None:
        """Advance past ``token``, which ``allowed`` permitted."""
        if not self._matcher.consume_token(token):
            raise RuntimeError(f"the grammar refused token {token} it allowed: {self._matcher.get_error()}")


def _lark(grammar: str) -> str:
    """The grammar as llguidance's JSON wrapper of one Lark grammar (what LLMatcher takes)."""
    import llguidance

    return llguidance.LLMatcher.grammar_from_lark(grammar)
