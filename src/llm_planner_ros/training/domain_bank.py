"""A domain's example bank, from its training episodes and the oracle (``llm-planner domain build DIR``,
``cli.domain_command``).

Each episode of the folder's ``train.yaml`` (or ``--train``) is solved by the A* oracle in the domain's
own rules (``domain.oracle.shortest_plan``), and the request, its scene line and the plan become
one example of ``DIR/bank.jsonl``, the file every method takes its prompt examples from in that domain
(``planning.domain_examples``) and the adapter trainer reads (``training.saycan_adapter --domain DIR``).

Held out: the folder's ``episodes.yaml`` (and each ``--exclude`` file) is evaluation data. A training
episode whose instruction equals one of them (case and punctuation aside) is left out of the bank and
named in the output, so a bank never holds an evaluated request; the summary gives the overlap found.
An episode the oracle cannot solve within its ``max_steps`` is reported and left out too.

Hold back: ``hold_back_examples`` adds requests the robot must not act on ("never mind", "call my
mother", "throw the mug at me"), generated from the domain's own names, each with the plan ``done``, so
the domain's adapters and retrieved prompt examples learn to end them at once without a user writing any.
"""

from __future__ import annotations

from typing import Any

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.episodes import Episode
from llm_planner_ros.domain.oracle import shortest_plan
from llm_planner_ros.planning.hold_back.requests import RequestKind, generate
from llm_planner_ros.planning.hold_back.screen import domain_vocabulary
from llm_planner_ros.planning.instruction_check import load_other_objects
from llm_planner_ros.planning.saycan.bank import PlanExample
from llm_planner_ros.planning.saycan.scene import describe_scene

HOLD_BACK_KIND = "hold_back"


def bank_example(episode: Episode, raw: dict[str, Any], kitchen: Domain) -> PlanExample | None:
    """The bank example of one training episode (``raw``: its mapping in the file), None when the oracle
    finds no plan within its ``max_steps``."""
    world = episode.world(kitchen)
    plan = shortest_plan(episode, kitchen=kitchen)
    if plan is None:
        return None
    return PlanExample(
        episode.id,
        "episode",
        episode.family,
        episode.instruction,
        describe_scene(world, unsaid=True),
        tuple(skill.text for skill in plan),
        episode.initial.to_initial(),
        raw["goal"],
    )


def hold_back_examples(kitchen: Domain, count: int, seed: int) -> list[PlanExample]:
    """``count`` bank examples of requests the robot holds back on (stop, out of scope, unsafe, in turn),
    generated from the domain's own names and skills (planning.hold_back.requests, training patterns),
    each in the domain's default scene with the plan ``done``: what an adapter trained on the bank, and a
    prompt that retrieves from it, should answer. Requests naming an absent object are left to the scene
    check and not included."""
    world = kitchen.world()
    initial = world.to_initial()
    held = [
        request
        for request in generate(domain_vocabulary(kitchen, ()), load_other_objects(), count, "train", seed)
        if request.kind in (RequestKind.STOP, RequestKind.OUT_OF_SCOPE, RequestKind.UNSAFE)
    ][:count]
    return [
        PlanExample(
            f"hold-{request.kind.value.replace('_', '-')}-{index:05d}",
            HOLD_BACK_KIND,
            f"hold_back_{request.kind.value}",
            request.text,
            describe_scene(world, unsaid=True),
            ("done",),
            initial,
            {"all": []},
        )
        for index, request in enumerate(held)
    ]
