"""RequestBatcher (llm.request_batcher): score requests that wait together are served as one batch,
with the same answers as one request at a time; other calls run alone, in arrival order."""

from __future__ import annotations

import math
import threading
import time

import pytest

from llm_planner_ros.llm.base import InvalidRequestError, RankRequest
from llm_planner_ros.llm.hf import HFLanguageModel
from llm_planner_ros.llm.ranking import ranked_indices
from llm_planner_ros.llm.request_batcher import RequestBatcher, ScoreJob

SKILLS = ["find a coke", "pick up the coke", "go to the table", "bring it to you", "put down the coke", "done"]
OBJECTS = ["coke", "apple", "sponge", "tea", "pepsi"]


def wait_until(condition, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.01)


def test_waiting_requests_are_batched_and_answered_as_alone(tiny_lm: HFLanguageModel) -> None:
    batcher = RequestBatcher(tiny_lm, max_batch=8)
    gate = threading.Event()
    blocker = threading.Thread(target=batcher.run, args=(gate.wait,))
    blocker.start()  # holds the worker so the requests below queue up together
    prompts = [f"Human: How would you bring me a {name}?\nRobot: 1. " for name in OBJECTS]
    jobs = [ScoreJob(RankRequest(p, SKILLS, [1.0] * len(SKILLS), len(SKILLS)), ranked=False) for p in prompts]
    jobs.append(ScoreJob(RankRequest(prompts[0], SKILLS, [0.9, 0.8, 0.1, 0.1, 0.0, 0.1], 1), ranked=True))
    jobs.append(ScoreJob(RankRequest(prompts[1], [""], [1.0], 1), ranked=False))  # a bad one in the batch
    answers: dict[int, object] = {}

    def ask(index: int) -> None:
        try:
            answers[index] = batcher.score(jobs[index])
        except InvalidRequestError as error:
            answers[index] = error

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(jobs))]
    for thread in threads:
        thread.start()
    wait_until(lambda: batcher.pending == len(jobs))
    gate.set()
    for thread in [blocker, *threads]:
        thread.join(timeout=60)
    batcher.close()

    assert batcher.batches == [len(jobs)]
    for index, prompt in enumerate(prompts):
        alone = tiny_lm.score(prompt, SKILLS)
        assert answers[index].log_probs == pytest.approx(alone.log_probs, abs=1e-4)  # type: ignore[attr-defined]
    ranked = answers[len(prompts)]
    weights = jobs[len(prompts)].request.weights
    full = tiny_lm.score(prompts[0], SKILLS).log_probs
    exhaustive = sorted(range(len(SKILLS)), key=lambda i: (-math.exp(full[i]) * weights[i], i))[0]
    assert ranked_indices(ranked.log_probs, weights)[0] == exhaustive  # type: ignore[attr-defined]
    assert isinstance(answers[len(jobs) - 1], InvalidRequestError)


def test_other_calls_run_alone_in_arrival_order(tiny_lm: HFLanguageModel) -> None:
    batcher = RequestBatcher(tiny_lm, max_batch=4)
    order: list[str] = []
    assert batcher.run(lambda: order.append("first") or 1) == 1
    answer = batcher.score(ScoreJob(RankRequest("Human: hi\nRobot: 1. ", SKILLS, [1.0] * 6, 6), ranked=False))
    assert answer.scored == len(SKILLS)
    with pytest.raises(ZeroDivisionError):
        batcher.run(lambda: 1 / 0)
    assert batcher.run(lambda: order.append("second") or 2) == 2
    assert order == ["first", "second"]
    batcher.close()
