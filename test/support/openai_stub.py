"""A small OpenAI-compatible ``/v1/completions`` server on localhost with a real model behind it.

It answers like vLLM: ``echo`` + ``logprobs`` return each prompt token's log-prob (from one full
forward pass of the model) with its character offset; generation returns the model's greedy or
sampled text (through the ``hf`` backend). Knobs make it misbehave the ways real servers do:
``fail_first`` (HTTP 503 answers before a good one), ``delay_s`` (a slow server), ``omit_logprobs``
(a server without log-probs), ``one_choice`` (a server that ignores ``n``), ``reject`` (HTTP 400).
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import torch

from llm_planner_ros.llm.hf import HFLanguageModel


class StubServer:
    """Lifecycle: ``start()`` serves on a free port in a thread; ``stop()`` shuts it down.
    ``bodies`` records every request body; ``base_url`` is the API base (``.../v1``)."""

    def __init__(self, model: Any, tokenizer: Any) -> None:
        self.model, self.tokenizer = model, tokenizer
        self.backend = HFLanguageModel(model, tokenizer, "stub-model")
        self.fail_first = 0
        self.delay_s = 0.0
        self.omit_logprobs = False
        self.one_choice = False
        self.reject = False
        self.bodies: list[dict[str, Any]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> StubServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.bodies.append(body)
        time.sleep(self.delay_s)
        if self.fail_first > 0:
            self.fail_first -= 1
            return 503, {"error": "warming up"}
        if self.reject:
            return 400, {"error": "prompt must be a string"}
        prompts = body["prompt"] if isinstance(body["prompt"], list) else [body["prompt"]]
        if body.get("echo"):
            choices = [self._echo(i, p) for i, p in enumerate(prompts)]
        else:
            count = 1 if self.one_choice else int(body.get("n", 1))
            result = self.backend.generate(
                prompts[0],
                n=count,
                max_tokens=int(body["max_tokens"]),
                temperature=float(body.get("temperature", 0)),
                stop=body.get("stop", []),
            )
            choices = [
                {"index": i, "text": text, "logprobs": {"token_logprobs": [mean]}}
                for i, (text, mean) in enumerate(zip(result.texts, result.mean_log_probs, strict=False))
            ]
        if self.omit_logprobs:
            for choice in choices:
                choice["logprobs"] = None
        return 200, {"object": "text_completion", "choices": choices}

    def _echo(self, index: int, prompt: str) -> dict[str, Any]:
        encoded = self.tokenizer(prompt, return_offsets_mapping=True)
        ids = encoded["input_ids"]
        with torch.inference_mode():
            rows = torch.log_softmax(self.model(input_ids=torch.tensor([ids])).logits[0].float(), dim=-1)
        values: list[float | None] = [None] + [float(rows[k - 1, ids[k]]) for k in range(1, len(ids))]
        offsets = [start for start, _ in encoded["offset_mapping"]]
        generated = int(rows[-1].argmax())
        return {
            "index": index,
            "text": prompt + self.tokenizer.decode([generated]),
            "logprobs": {
                "tokens": [self.tokenizer.decode([t]) for t in [*ids, generated]],
                "token_logprobs": [*values, float(rows[-1, generated])],
                "text_offset": [*offsets, len(prompt)],
            },
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, answer = stub.answer(body)
                payload = json.dumps(answer).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (the slow-server test)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler
