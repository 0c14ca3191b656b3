"""Warm a freshly loaded model for SayCan: one planning step before the first goal arrives.

Why: the first forward of a process pays for kernel initialisation and memory allocation, and the
first SayCan step computes the whole prompt (preamble, scene line). Run at load time, before the
model service reports ready, this leaves the configured prompt's preamble (and the default scene's
line) in the backend's cache, so the first goal is served as fast as the later ones.

``warm_up(model)`` plans one step of a fixed request in the kitchen's default scene with the SayCan
method of config/planners.yaml (the same call path as a goal: ranked scoring over every skill) and
returns a one-line report. Where SayCan's prompt retrieves examples (a model without the domain's SayCan
adapter), which needs the sentence embedder the service does not load, one scoring call initialises
the kernels instead. A model that fails is reported, never raised: warming is an optimisation, the
service works without it.
"""

from __future__ import annotations

import time

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.llm.base import Embedder, LanguageModel
from llm_planner_ros.planning.registry import PlannerResources, build_planner, load_planner_options
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment

WARM_UP_REQUEST = "How would you bring me a coke?"


def warm_up(model: LanguageModel) -> str:
    """One SayCan step on ``model`` (module docstring); a report of what it did or why it did not."""
    started = time.perf_counter()
    try:
        kitchen = load_domain_files()
        resources = PlannerResources(model, kitchen, _no_embedder, load_planner_options())
        planner = build_planner("saycan", resources)
        world = kitchen.world()
        planner.reset(WARM_UP_REQUEST)
        decision = planner.next_step(SimulatedEnvironment(world), [])
    except EmbedderNeeded:
        # The prompt this model gets retrieves examples per request (it runs no adapter that knows the
        # format): nothing to cache ahead, but one forward still initialises the kernels.
        try:
            model.score(WARM_UP_REQUEST, ["done"])
        except Exception as error:
            return f"skipped ({type(error).__name__}: {error}); the first goal initialises the model"
        return (
            f"one scoring call in {time.perf_counter() - started:.1f} s: the kernels are initialised; SayCan's "
            "prompt retrieves examples per request for this model, so none is cached ahead"
        )
    except Exception as error:
        return f"skipped ({type(error).__name__}: {error}); the first goal computes the prompt itself"
    chosen = decision.skill.text if decision.skill else "nothing"
    return (
        f"one SayCan step ({len(world.admissible_skills())} skills, chose {chosen!r}) in "
        f"{time.perf_counter() - started:.1f} s: the prompt's preamble and the default scene are cached"
    )


class EmbedderNeeded(RuntimeError):
    """The configured SayCan method retrieves examples, which needs the sentence embedder."""


def _no_embedder() -> Embedder:
    raise EmbedderNeeded(
        "the configured SayCan method needs the sentence embedder, which the model service does not load"
    )
