"""The openai backend against HTTP servers: a stub with a real model behind it, and `transformers serve`."""

from __future__ import annotations

import math
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from openai_stub import StubServer
from tiny_llm import KITCHEN_TEXT

from llm_planner_ros.llm.base import BackendUnavailableError, UnsupportedRequestError
from llm_planner_ros.llm.hf import HFLanguageModel
from llm_planner_ros.llm.openai_compat import OpenAICompatibleModel
from llm_planner_ros.llm.tokenization import bias_token_ids

PROMPT = "".join(f"{line}\n" for line in KITCHEN_TEXT[:2]) + "Human: Throw away the tea.\nRobot: 1. find a tea, 2. "
CANDIDATES = ["pick up the tea", "pick up the coke", " go to the trash can", "done", "Café 🍵"]


@pytest.fixture
def stub(tiny_model: Any, tiny_tokenizer: Any) -> Iterator[StubServer]:
    server = StubServer(tiny_model, tiny_tokenizer).start()
    yield server
    server.stop()


def client(base_url: str, **options: Any) -> OpenAICompatibleModel:
    settings = {"timeout_s": 10.0, "connect_timeout_s": 2.0, "max_retries": 2, "backoff_s": 0.01, **options}
    return OpenAICompatibleModel(base_url, "stub-model", **settings)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_scores_match_the_local_backend(stub: StubServer, tiny_lm: HFLanguageModel) -> None:
    remote = client(stub.base_url).score(PROMPT, CANDIDATES, per_token=True)
    local = tiny_lm.score(PROMPT, CANDIDATES, per_token=True)

    assert remote.token_counts == local.token_counts
    assert remote.log_probs == pytest.approx(local.log_probs, abs=1e-4)
    assert len(stub.bodies) == 1, "all candidates go in one request"
    assert stub.bodies[0]["prompt"] == [PROMPT + c for c in CANDIDATES]


def test_generation_matches_the_local_backend(stub: StubServer, tiny_lm: HFLanguageModel) -> None:
    prompt = PROMPT.rstrip(" ")
    remote = client(stub.base_url).generate(prompt, max_tokens=8)
    assert remote.texts == tiny_lm.generate(prompt, max_tokens=8).texts
    assert math.isfinite(remote.mean_log_probs[0])


def test_a_server_that_ignores_n_is_asked_again(stub: StubServer) -> None:
    stub.one_choice = True
    result = client(stub.base_url).generate(PROMPT, n=3, max_tokens=4)
    assert len(result.texts) == 3
    assert [body["n"] for body in stub.bodies] == [3, 2, 1]


def test_transient_failures_are_retried(stub: StubServer) -> None:
    stub.fail_first = 2
    assert len(client(stub.base_url).score(PROMPT, ["done"]).log_probs) == 1
    assert len(stub.bodies) == 3


def test_a_dead_server_fails_fast_with_the_fix(tiny_model: Any) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    started = time.monotonic()
    with pytest.raises(BackendUnavailableError, match=r"failed 2 attempts \(last: cannot connect.*start it"):
        client(url, max_retries=1).score(PROMPT, ["done"])
    assert time.monotonic() - started < 10


def test_a_slow_server_times_out(stub: StubServer) -> None:
    stub.delay_s = 3.0
    started = time.monotonic()
    with pytest.raises(BackendUnavailableError, match=r"no answer within 0.3 s.*raise timeout_s"):
        client(stub.base_url, timeout_s=0.3, max_retries=1).score(PROMPT, ["done"])
    assert time.monotonic() - started < 3.0


def test_a_server_without_prompt_log_probs_cannot_score(stub: StubServer) -> None:
    stub.omit_logprobs = True
    with pytest.raises(UnsupportedRequestError, match="prompt log-probs.*vLLM.*hf backend"):
        client(stub.base_url).score(PROMPT, ["done"])
    generated = client(stub.base_url).generate(PROMPT, max_tokens=3)
    assert len(generated.texts) == 1 and math.isnan(generated.mean_log_probs[0])


def test_a_rejected_request_is_not_retried(stub: StubServer) -> None:
    stub.reject = True
    with pytest.raises(UnsupportedRequestError, match="HTTP 400.*scoring needs"):
        client(stub.base_url).score(PROMPT, ["done"])
    assert len(stub.bodies) == 1


def test_logit_bias_words_become_token_ids(stub: StubServer, tiny_model_dir: Path, tiny_tokenizer: Any) -> None:
    with pytest.raises(UnsupportedRequestError, match="set `tokenizer`"):
        client(stub.base_url).generate(PROMPT, max_tokens=2, logit_bias={"zebra": 2.0})
    client(stub.base_url, tokenizer=str(tiny_model_dir)).generate(PROMPT, max_tokens=2, logit_bias={"zebra": 2.0})
    expected = {str(token): value for token, value in bias_token_ids(tiny_tokenizer, {"zebra": 2.0}).items()}
    assert stub.bodies[-1]["logit_bias"] == expected


# ----- a real `transformers serve` with the embedded model -----------------------------------------


@pytest.fixture(scope="module")
def transformers_serve(smollm2_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from transformers.utils.import_utils import is_serve_available

    if not is_serve_available():
        pytest.skip("`transformers serve` needs fastapi, uvicorn and openai (see the LLM layer docs)")
    port = free_port()
    log = (tmp_path_factory.mktemp("serve") / "serve.log").open("wb")
    command = [str(Path(sys.executable).parent / "transformers"), "serve", str(smollm2_dir), "--host", "127.0.0.1"]
    command += ["--port", str(port), "--device", "cpu", "--dtype", "float32"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 180
        while True:
            assert server.poll() is None, f"transformers serve exited: see {log.name}"
            try:
                if requests.get(f"http://127.0.0.1:{port}/health", timeout=2).ok:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, f"transformers serve not up after 180 s: see {log.name}"
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


@pytest.mark.model
def test_generation_through_transformers_serve(
    transformers_serve: str, smollm2_dir: Path, smollm2_lm: HFLanguageModel, repo_root: Path
) -> None:
    from llm_planner_ros.planning.saycan.prompt import SayCanPrompt

    prompt = SayCanPrompt.from_yaml(repo_root / "config" / "saycan_prompt.yaml").render("Bring me a pepsi.").rstrip(" ")
    remote = OpenAICompatibleModel(transformers_serve, str(smollm2_dir), timeout_s=120.0)
    result = remote.generate(prompt, max_tokens=8, stop=[","])

    assert result.texts == smollm2_lm.generate(prompt, max_tokens=8, stop=[","]).texts
    assert math.isnan(result.mean_log_probs[0]), "transformers serve sends no token log-probs"


@pytest.mark.model
def test_scoring_through_transformers_serve_says_why_it_cannot(transformers_serve: str, smollm2_dir: Path) -> None:
    remote = OpenAICompatibleModel(transformers_serve, str(smollm2_dir), timeout_s=120.0)
    with pytest.raises(UnsupportedRequestError, match="scoring needs a server that returns the log-probs"):
        remote.score("Human: Bring me a pepsi.\nRobot: 1. ", ["find a pepsi", "done"])
