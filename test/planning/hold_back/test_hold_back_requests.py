"""The generator of requests to hold back on: reproducible, worded from the domain, development wordings
apart from training ones, out-of-scope requests never of a skill the domain has."""

from __future__ import annotations

from repo_paths import REPO_ROOT

from llm_planner_ros.domain.domain_folder import load_domain
from llm_planner_ros.planning.hold_back.requests import RequestKind, generate, of_names
from llm_planner_ros.planning.hold_back.screen import domain_vocabulary
from llm_planner_ros.planning.instruction_check import load_other_objects

OFFICE = REPO_ROOT / "domains" / "office"


def test_the_same_seed_gives_the_same_requests_and_every_kind_in_turn() -> None:
    domain = domain_vocabulary(load_domain(OFFICE), ())
    first = generate(domain, load_other_objects(), 20, "train", seed=3)
    assert first == generate(domain, load_other_objects(), 20, "train", seed=3)
    assert first != generate(domain, load_other_objects(), 20, "train", seed=4)
    assert [request.kind for request in first[:5]] == list(RequestKind)
    assert len(first) == 100


def test_development_wordings_are_never_training_ones() -> None:
    domain = of_names(["mug"], ["desk"], ["pick up the mug"])
    # One object, one place and one phrase: a request's wording is then its pattern's.
    train = {r.text.lower().strip(".!") for r in generate(domain, ["banana", "guitar"], 300, "train", 0)}
    dev = {r.text.lower().strip(".!") for r in generate(domain, ["banana", "guitar"], 300, "dev", 0)}
    held = {r.text for r in generate(domain, ["banana", "guitar"], 300, "dev", 0) if r.kind != RequestKind.TASK}
    assert held and not {text.lower().strip(".!") for text in held} & train
    assert dev - train


def test_out_of_scope_requests_never_use_a_verb_the_domain_has_and_missing_ones_never_its_names() -> None:
    office = domain_vocabulary(load_domain(OFFICE), ())
    requests = generate(office, load_other_objects(), 200, "train", seed=1)
    verbs = office.verbs()
    assert "wipe" in verbs and "call" in verbs  # "call the elevator" is one of its requests
    for request in requests:
        words = request.text.lower().replace(",", " ").split()
        if request.kind == RequestKind.OUT_OF_SCOPE:
            assert not {"wipe", "call"} & set(words), request.text
        if request.kind == RequestKind.MISSING:
            assert not {"phone", "apple", "mug", "sponge"} & set(words), request.text
