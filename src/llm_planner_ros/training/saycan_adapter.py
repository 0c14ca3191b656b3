r"""Fit a LoRA adapter of the embedded model to SayCan dialogs (or ProgPrompt programs, or LLM-Planner
plans, or a mix of them) from a generated example bank, on a CPU.

``--method progprompt`` trains on each example as the ProgPrompt planner's program prompt followed by
the oracle plan written as a program (``planning.progprompt.training``; ``--program-examples none
--scene-context`` for the planner's ``examples: none``, ``scene_context: true``); ``--method
llm_planner`` on the LLM-Planner planner's plan prompt (no examples, the scene line) followed by the
oracle plan's line, a ``--replan-share`` of them cut after completed steps as a re-plan's prompt
(``planning.llm_planner.training``); ``--method zero_shot`` on the zero-shot planner's step prompts after the
nearest demonstration, each step of the oracle plan written after its ``Step N:``
(``planning.zero_shot.training``). The loss is on the program's, the plan's or the steps' tokens only. Several
methods train one adapter on all of them, ``--examples`` giving each its count. Everything else below
(the split model, stages, ``--max-minutes``) is the same for every method.

Each training sequence is what the planner scores at inference: the grounded prompt's preamble, the
``--neighbours`` bank examples nearest to a bank example's request (itself excluded; most similar last,
as the planner shows retrieved examples; 0 for the shipped adapter, which the planner uses with
``examples: none``), that example's scene line and request, then its plan ("Robot: 1. find a coke, 2.
pick up the coke, ..., N. done."). The loss is the cross-entropy of the plan's skill-text tokens only
(the numbers and commas around them are fixed by the prompt), the same tokens SayCan scores.

Cost is what limits this on a 2-core CPU (training runs ~200 dialog tokens/s there). ``--layers``
below the model's depth adapts only the top layers: the hidden states entering them are computed once
per sequence without gradients and kept in memory. Sequences are drawn evenly over the bank's
instruction families. ``--resume`` continues a saved adapter on new dialogs, so a long training can run
in stages (each a fresh cosine schedule). ``--max-minutes`` bounds a run on a machine slower than
planned: caching stops at 55% of it (training then uses the dialogs cached so far) and training at 95%,
each with a message; on a fast enough machine neither happens and the same arguments give the same
adapter.

The shipped adapter (domains/saycan_kitchen/adapters/saycan.safetensors) is six such stages, of 2,400 dialogs from the
bank of seed 0, then 3,600 each from banks of seeds 1 to 5 (docs/benchmarks.md, "The SayCan adapter"),
e.g. the last:

    llm-planner train saycan-bank --count 12000 --seed 5 --exclude domains/saycan_kitchen/dev.yaml \
        --exclude data/saycan/held_out_instructions.txt --out /tmp/bank5.jsonl
    llm-planner train saycan-adapter --bank /tmp/bank5.jsonl --resume /tmp/stage5.safetensors \
        --seed 5 --lr 4e-4 --out domains/saycan_kitchen/adapters/saycan.safetensors

The adapters of ProgPrompt, LLM-Planner and zero-shot planning (data/progprompt/, data/llm_planner/,
data/zero_shot/) continue the SayCan adapter in such stages (docs/benchmarks.md, "Adapters of the
generative planners", "The zero-shot adapter"). ``--method alfred_hlp`` (alone) trains the ALFRED
benchmark's adapter (data/alfred_hlp/) on LLM-Planner's 100 ALFRED training examples
(``planning.llm_planner.alfred_training``), no evaluation task read.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.domain.domain_folder import domain_bank_file, domain_examples_file, load_domain
from llm_planner_ros.llm.factory import BENCHMARK_ADAPTERS, default_domain_adapter, load_embedder
from llm_planner_ros.llm.hf_loading import load_causal_lm
from llm_planner_ros.llm.lora import MODULE_PATHS, AdapterSpec, attach, load_adapter_into, save_adapter
from llm_planner_ros.llm.training_sequences import TrainingSequence, completion_sequence
from llm_planner_ros.options import finite_float
from llm_planner_ros.paths import repo_path
from llm_planner_ros.planning.domain_examples import domain_bank
from llm_planner_ros.planning.knn_retriever import KnnRetriever
from llm_planner_ros.planning.llm_planner.alfred_training import alfred_sequences
from llm_planner_ros.planning.llm_planner.prompt import LlmPlannerPrompt, load_plan_examples
from llm_planner_ros.planning.llm_planner.training import encode_plan
from llm_planner_ros.planning.progprompt.examples import load_examples
from llm_planner_ros.planning.progprompt.training import encode_program
from llm_planner_ros.planning.saycan.bank import BANK_FILE, PlanExample, load_bank
from llm_planner_ros.planning.saycan.planner import dialog_example
from llm_planner_ros.planning.saycan.prompt import DialogExample, SayCanPrompt
from llm_planner_ros.planning.saycan.retrieval import ExampleRetriever
from llm_planner_ros.planning.saycan.training import encode
from llm_planner_ros.planning.zero_shot.prompt import Demonstration, load_demonstrations
from llm_planner_ros.planning.zero_shot.training import encode_steps

PROMPT_FILE = Path("config/saycan_grounded_prompt.yaml")
SAYCAN, PROGPROMPT, LLM_PLANNER, ZERO_SHOT = "saycan", "progprompt", "llm_planner", "zero_shot"
# Not a kitchen method: LLM-Planner's static plans on ALFRED (llm-planner bench alfred-hlp).
ALFRED = "alfred_hlp"
METHODS = (SAYCAN, PROGPROMPT, LLM_PLANNER, ZERO_SHOT, ALFRED)
ALFRED_EXAMPLES = Path("benchmarks/alfred_hlp/llm_planner_knn_set.json")


def neighbours(retriever: ExampleRetriever, examples: Sequence[PlanExample], count: int) -> list[list[DialogExample]]:
    """For each example, the ``count`` bank examples nearest to its request, itself excluded, most
    similar last (as the planner shows retrieved examples)."""
    found = retriever.nearest_many([example.instruction for example in examples], count + 1)
    shown = []
    for example, nearest in zip(examples, found, strict=True):
        others = [other for other in nearest if other.id != example.id][:count]
        shown.append([dialog_example(other) for other in reversed(others)])
    return shown


def balanced_sample(bank: Sequence[PlanExample], count: int, rng: random.Random) -> list[PlanExample]:
    """``count`` examples drawn round-robin over the bank's families (each family shuffled), so rare
    families are as present as common ones until they run out."""
    by_family: dict[str, list[PlanExample]] = defaultdict(list)
    for example in bank:
        by_family[example.family].append(example)
    queues = [rng.sample(group, len(group)) for _, group in sorted(by_family.items())]
    chosen: list[PlanExample] = []
    while len(chosen) < count and any(queues):
        for queue in queues:
            if queue and len(chosen) < count:
                chosen.append(queue.pop())
    rng.shuffle(chosen)
    return chosen


class TopLayerTrainer:
    """Runs a causal LM split at decoder layer ``split``: the bottom once (cached), the top with grads."""

    def __init__(self, model: Any, split: int) -> None:
        self.model = model
        self.split = split
        self.layers = model.model.layers

    def _mask(self, lengths: Sequence[int], width: int) -> torch.Tensor:
        """Additive (batch, 1, width, width) mask: causal, padding keys hidden."""
        causal = torch.ones(width, width, dtype=torch.bool).tril()
        keys = torch.arange(width)[None, :] < torch.tensor(lengths)[:, None]
        allowed = causal[None, :, :] & keys[:, None, :]
        mask = torch.zeros(len(lengths), 1, width, width)
        return mask.masked_fill_(~allowed[:, None], torch.finfo(torch.float32).min)

    def _run(self, hidden: torch.Tensor, layers: Sequence[Any], mask: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(hidden.shape[1])[None, :].expand(hidden.shape[0], -1)
        rotary = self.model.model.rotary_emb(hidden, positions)
        for layer in layers:
            hidden = layer(hidden, attention_mask=mask, position_ids=positions, position_embeddings=rotary)
        return hidden

    def bottom(self, batch: Sequence[TrainingSequence]) -> torch.Tensor:
        """Hidden states entering the top layers, (batch, width, hidden), right-padded."""
        lengths = [len(seq.ids) for seq in batch]
        width = max(lengths)
        ids = torch.tensor([list(seq.ids) + [0] * (width - len(seq.ids)) for seq in batch])
        with torch.no_grad():
            hidden = self.model.model.embed_tokens(ids)
            return self._run(hidden, self.layers[: self.split], self._mask(lengths, width))

    def loss(self, hidden: torch.Tensor, batch: Sequence[TrainingSequence]) -> torch.Tensor:
        """Mean cross-entropy of every target token of the batch, predicted from the position before it."""
        lengths = [len(seq.ids) for seq in batch]
        out = self._run(hidden, self.layers[self.split :], self._mask(lengths, hidden.shape[1]))
        rows = torch.tensor([b for b, seq in enumerate(batch) for _ in seq.targets])
        columns = torch.tensor([t - 1 for seq in batch for t in seq.targets])
        labels = torch.tensor([seq.ids[t] for seq in batch for t in seq.targets])
        logits = self.model.lm_head(self.model.model.norm(out[rows, columns]))
        return torch.nn.functional.cross_entropy(logits.float(), labels)


def train(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console()
    started = time.monotonic()
    budget = args.max_minutes * 60
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    loaded = load_causal_lm("", "cpu", args.threads, None, console.log)
    model, tokenizer = loaded.model, loaded.tokenizer
    total_layers = len(model.model.layers)
    if not 1 <= args.layers <= total_layers:
        raise SystemExit(f"--layers must be between 1 and {total_layers}")
    if ALFRED in args.method:
        sequences, validation = _alfred_data(args, tokenizer, rng)
    elif args.virtualhome:
        sequences, validation = _virtualhome_data(args, tokenizer, rng)
    else:
        sequences, validation = bank_data(args, tokenizer, rng, console)
    tokens = sum(len(seq.ids) for seq in sequences)
    console.log(
        f"{len(sequences)} training dialogs ({tokens} tokens, "
        f"{sum(len(s.targets) for s in sequences)} scored), {len(validation)} for validation"
    )

    split = total_layers - args.layers
    spec = AdapterSpec(tuple(range(split, total_layers)), tuple(args.modules), args.rank, args.alpha)
    wrapped = attach(model, spec, args.seed)
    if args.resume:
        load_adapter_into(wrapped, repo_path(args.resume), spec)
        console.log(f"continuing the training of {args.resume}")
    model.train()
    trainer = TopLayerTrainer(model, split)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[note]}"),
    )
    with Progress(*columns, console=console) as progress:
        batches = _batches(sequences, args.batch, rng)
        valid = _batches(validation, args.batch, rng)
        task = progress.add_task(f"bottom {split} layers", total=len(batches) + len(valid), note="")
        valid_cache = []
        for batch in valid:
            valid_cache.append((batch, trainer.bottom(batch)))
            progress.advance(task)
        train_cache = []
        for batch in batches:
            if time.monotonic() > started + 0.55 * budget:
                console.log(
                    f"[yellow]--max-minutes {args.max_minutes}: cached {len(train_cache)} of {len(batches)} "
                    "batches in 55% of the time; training on those"
                )
                break
            train_cache.append((batch, trainer.bottom(batch)))
            progress.advance(task)
            if not console.is_terminal and len(train_cache) % max(1, len(batches) // 10) == 0:
                # a log file gets no live bar: a line every 10% of the batches instead
                console.log(f"cached {len(train_cache)}/{len(batches)} batches")
        parameters = [p for module in wrapped.values() for p in (module.A, module.B)]
        optimizer = torch.optim.AdamW(parameters, lr=args.lr, weight_decay=0.0)
        steps = args.epochs * len(train_cache)
        schedule = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda step: 0.5 * (1 + math.cos(math.pi * step / steps))
        )
        console.log(f"validation loss before: {_validate(trainer, valid_cache):.3f}")
        task = progress.add_task(f"top {args.layers} layers", total=steps, note="")
        stopped = False
        for epoch in range(args.epochs):
            for batch, hidden in rng.sample(train_cache, len(train_cache)):
                loss = trainer.loss(hidden, batch)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(parameters, 1.0)
                optimizer.step()
                schedule.step()
                optimizer.zero_grad()
                progress.update(task, advance=1, note=f"epoch {epoch + 1} loss {loss.item():.3f}")
                done = progress.tasks[task].completed
                if not console.is_terminal and done % max(1, steps // 20) == 0:
                    # a log file gets no live bar: a line every 5% of the steps instead
                    console.log(f"step {done:.0f}/{steps} epoch {epoch + 1} loss {loss.item():.3f}")
                if time.monotonic() > started + 0.95 * budget:
                    stopped = True
                    break
            if stopped:
                console.log(
                    f"[yellow]--max-minutes {args.max_minutes} reached in epoch {epoch + 1}: saving what is trained"
                )
                break
    console.log(f"validation loss after: {_validate(trainer, valid_cache):.3f}")
    out = repo_path(args.out)
    save_adapter(out, wrapped, spec, loaded.name)
    console.log(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB) in {(time.monotonic() - started) / 60:.1f} min")
    return 0


def bank_data(
    args: argparse.Namespace, tokenizer: Any, rng: random.Random, console: Any
) -> tuple[list[TrainingSequence], list[TrainingSequence]]:
    """Training and validation sequences of the kitchen methods, drawn from the generated bank, or from
    the banks of ``--domains``, each example in its own domain."""
    if args.domains and (args.domain or args.bank != BANK_FILE or args.neighbours):
        raise SystemExit(
            "--domains takes each folder's bank.jsonl, shown no neighbours: leave out --domain, --bank and --neighbours"
        )
    if (args.domain or args.domains) and PROGPROMPT in args.method and args.program_examples == "file":
        raise SystemExit(
            "--domain and --domains train progprompt with --program-examples none only: its prompt would show "
            "the kitchen's example programs"
        )
    if args.domains:
        kitchens = [load_domain(folder) for folder in args.domains]
        sources = [(kitchen, load_bank(domain_bank_file(kitchen))) for kitchen in kitchens]
    else:
        sources = [(load_domain(args.domain) if args.domain else load_domain_files(), load_bank(args.bank))]
    counts = _method_counts(args.method, args.examples)
    total = sum(counts) + args.validation
    # Each domain gives its share, drawn over its families; several are then put in one order (one bank
    # draws as it always did, so earlier commands give the same adapters).
    share = -(-total // len(sources))
    drawn = [(index, ex) for index, (_, bank) in enumerate(sources) for ex in balanced_sample(bank, share, rng)]
    chosen = drawn if len(sources) == 1 else rng.sample(drawn, len(drawn))[:total]
    held, rest = chosen[: args.validation], chosen[args.validation :]

    def encoded(method: str, picked: Sequence[tuple[int, PlanExample]]) -> list[TrainingSequence]:
        sequences: list[TrainingSequence] = []
        for index, (kitchen, bank) in enumerate(sources):
            mine = [example for source, example in picked if source == index]
            if mine:
                sequences += _method_sequences(args, method, tokenizer, bank, mine, console, kitchen)
        return sequences

    sequences: list[TrainingSequence] = []
    for index, (method, count) in enumerate(zip(args.method, counts, strict=True)):
        start = sum(counts[:index])
        sequences += encoded(method, rest[start : start + count])
    # The validation dialogs go to the methods in turn, so its loss watches each of them.
    validation = [
        sequence
        for index, method in enumerate(args.method)
        for sequence in encoded(method, held[index :: len(args.method)])
    ]
    return sequences, validation


def _alfred_data(
    args: argparse.Namespace, tokenizer: Any, rng: random.Random
) -> tuple[list[TrainingSequence], list[TrainingSequence]]:
    """ALFRED: the training set's examples as plans after their ``--alfred-k`` nearest; ``--validation``
    of them held out of the targets (they stay in the retrieval pool, as training examples are at
    evaluation), at most ``--examples`` of the rest trained on."""
    from llm_planner_ros.planning.llm_planner.alfred_plans import load_examples as load_alfred_examples

    if args.method != [ALFRED]:
        raise SystemExit(f"--method {ALFRED} trains alone: its plans share nothing with the kitchen's")
    pool = load_alfred_examples(repo_path(args.alfred_examples))
    if not 0 <= args.validation < len(pool):
        raise SystemExit(f"--validation must be below the {len(pool)} ALFRED training examples, got {args.validation}")
    order = rng.sample(pool, len(pool))
    retriever = KnnRetriever(pool, lambda example: example.task, load_embedder({}))
    held, rest = order[: args.validation], order[args.validation :][: _method_counts(args.method, args.examples)[0]]
    return (
        alfred_sequences(tokenizer, retriever, rest, args.alfred_k),
        alfred_sequences(tokenizer, retriever, held, args.alfred_k),
    )


def _virtualhome_data(
    args: argparse.Namespace, tokenizer: Any, rng: random.Random
) -> tuple[list[TrainingSequence], list[TrainingSequence]]:
    """VirtualHome: the training examples (``virtualhome_domain.examples.development_split``) as the prompts
    of the VirtualHome planner of ``--method`` (saycan: dialogs after their ``--neighbours`` nearest training
    examples, itself excluded; progprompt: programs after the shown example programs, ``--program-examples``);
    the validation loss is the first ``--validation`` development examples', so every training example
    trains and nothing the bench evaluates is read."""
    from llm_planner_ros.virtualhome_domain.examples import development_split, load_examples

    if args.method not in ([SAYCAN], [PROGPROMPT]):
        raise SystemExit("--virtualhome trains saycan or progprompt, one at a time")
    train, development = development_split(load_examples(args.virtualhome))
    development = development[: args.validation]
    chosen = rng.sample(train, len(train))[: _method_counts(args.method, args.examples)[0]]
    if args.goal_subsets:
        chosen = rng.sample(relabelled := [*chosen, *_goal_subset_examples(chosen, args)], len(relabelled))
    if args.method == [PROGPROMPT]:
        return _virtualhome_programs(args, tokenizer, train, chosen), _virtualhome_programs(
            args, tokenizer, train, development
        )
    return _virtualhome_dialogs(args, tokenizer, train, chosen, development)


def _goal_subset_examples(chosen: Sequence[Any], args: argparse.Namespace) -> list[Any]:
    """``--goal-subsets`` examples per chosen training example: its program asked for part of its goals and
    cut where they first hold (``virtualhome_domain.examples.goal_subset``), seeded by ``--seed`` and the
    program; a subset its program never reaches is left out and counted."""
    from llm_planner_ros.training.virtualhome_examples import task_example
    from llm_planner_ros.virtualhome_domain.examples import goal_subset, program_task

    made, left_out = [], 0
    for number, example in enumerate(chosen, start=1):
        task = program_task(example.id)
        for draw in range(args.goal_subsets):
            result = task_example(goal_subset(task, random.Random(f"{args.seed}/{example.id}/{draw}")), True)
            if isinstance(result, str):
                left_out += 1
            else:
                made.append(result)
        if number % 20 == 0 or number == len(chosen):
            print(f"goal subsets: {number}/{len(chosen)} programs, {len(made)} made, {left_out} left out", flush=True)
    return made


def _virtualhome_dialogs(
    args: argparse.Namespace, tokenizer: Any, train: Sequence[Any], chosen: Sequence[Any], development: Sequence[Any]
) -> tuple[list[TrainingSequence], list[TrainingSequence]]:
    from llm_planner_ros.planning.virtualhome_planners import PREAMBLE, saycan_bank

    retriever = ExampleRetriever(saycan_bank(train), load_embedder({}))
    prompt = SayCanPrompt(PREAMBLE, ())

    def dialogs(examples: Sequence[Any]) -> list[TrainingSequence]:
        # A development example is not in the pool, so its nearest are all shown, as at planning time.
        bank_examples = saycan_bank(examples)
        shown = neighbours(retriever, bank_examples, args.neighbours)
        return [encode(tokenizer, prompt, ex, near) for ex, near in zip(bank_examples, shown, strict=True)]

    return dialogs(chosen), dialogs(development)


def _virtualhome_programs(
    args: argparse.Namespace, tokenizer: Any, train: Sequence[Any], chosen: Sequence[Any]
) -> list[TrainingSequence]:
    """Each chosen example's program after the programs the planner would show (never itself)."""
    from llm_planner_ros.planning.virtualhome_planners import progprompt_examples, progprompt_training_text

    sequences = []
    for example in chosen:
        shown = None
        if args.program_examples == "file":
            shown = progprompt_examples([other for other in train if other.id != example.id], 3)
        sequences.append(completion_sequence(tokenizer, *progprompt_training_text(example, shown)))
    return sequences


def _method_counts(methods: Sequence[str], examples: Sequence[int]) -> list[int]:
    """Training sequences per method: one ``--examples`` count for each ``--method``, or one for all."""
    if len(examples) == 1:
        return list(examples) * len(methods)
    if len(examples) != len(methods):
        raise SystemExit(f"--examples takes one count, or one per --method ({len(methods)}), got {len(examples)}")
    return list(examples)


def _method_sequences(
    args: argparse.Namespace,
    method: str,
    tokenizer: Any,
    bank: Sequence[PlanExample],
    chosen: Sequence[PlanExample],
    console: Any,
    kitchen: Domain,
) -> list[TrainingSequence]:
    """``method``'s training sequences of the ``chosen`` examples of ``bank``, each in ``kitchen``'s domain."""
    if method == PROGPROMPT:
        return program_sequences(tokenizer, chosen, args.program_examples == "file", args.scene_context, kitchen)
    if method == LLM_PLANNER:
        return plan_sequences(tokenizer, chosen, args.replan_share, random.Random(args.seed), kitchen)
    if method == ZERO_SHOT:
        return step_sequences(tokenizer, chosen, args.scene_context, kitchen)
    return _dialog_sequences(args, tokenizer, bank, chosen, console)


def _dialog_sequences(
    args: argparse.Namespace, tokenizer: Any, bank: Sequence[PlanExample], chosen: Sequence[PlanExample], console: Any
) -> list[TrainingSequence]:
    """SayCan: each chosen example as a dialog after its ``--neighbours`` retrieved examples."""
    prompt = SayCanPrompt.from_yaml(repo_path(args.prompt))
    shown: list[list[DialogExample]] = [[] for _ in chosen]
    if args.neighbours:
        bank_path = repo_path(args.bank)
        console.log("retrieving each dialog's neighbours (the bank's vectors are cached next to it)")
        retriever = ExampleRetriever(bank, load_embedder({}), bank_path.with_suffix(".vectors.npz"))
        shown = neighbours(retriever, chosen, args.neighbours)
    return [encode(tokenizer, prompt, example, examples) for example, examples in zip(chosen, shown, strict=True)]


def program_sequences(
    tokenizer: Any,
    chosen: Sequence[PlanExample],
    show_examples: bool = True,
    scene_context: bool = False,
    kitchen: Domain | None = None,
) -> list[TrainingSequence]:
    """ProgPrompt: each chosen example as the planner's program prompt (with or without the example
    programs of the domain's ``examples/progprompt.yaml``, with or without the scene comment) and the oracle
    plan as a program, in ``kitchen``'s domain (default the default domain)."""
    kitchen = kitchen or load_domain_files()
    examples_file = domain_examples_file(kitchen, "progprompt") if show_examples else None
    examples = load_examples(examples_file) if examples_file else None
    return [encode_program(tokenizer, kitchen, examples, example, scene_context) for example in chosen]


def plan_sequences(
    tokenizer: Any,
    chosen: Sequence[PlanExample],
    replan_share: float,
    rng: random.Random,
    kitchen: Domain | None = None,
) -> list[TrainingSequence]:
    """LLM-Planner: each chosen example as the planner's plan prompt (the introduction of its examples
    file, no examples, the scene line) and the rest of the oracle plan; a ``replan_share`` of those with
    three steps or more are cut after a random number of completed steps (a re-plan's prompt). The prompt's
    introduction is that of the domain's LLM-Planner example file (``kitchen``, default the default domain),
    else the default one, as the planner's."""
    kitchen = kitchen or load_domain_files()
    examples_file = domain_examples_file(kitchen, "llm_planner")
    prompt = load_plan_examples(examples_file)[0] if examples_file else LlmPlannerPrompt()
    sequences = []
    for example in chosen:
        cut = 0
        if len(example.steps) >= 3 and rng.random() < replan_share:
            cut = rng.randint(1, len(example.steps) - 2)
        sequences.append(encode_plan(tokenizer, kitchen, prompt, example, cut))
    return sequences


def step_sequences(
    tokenizer: Any, chosen: Sequence[PlanExample], scene_context: bool = False, kitchen: Domain | None = None
) -> list[TrainingSequence]:
    """Zero-shot: each chosen example as the planner's step prompts after its nearest demonstration (with
    the scene line under the task for ``scene_context``), the oracle's steps as the targets. The
    demonstrations are the planner's: the domain's example file, else its bank (``kitchen``, default the
    default domain)."""
    kitchen = kitchen or load_domain_files()
    examples_file = domain_examples_file(kitchen, "zero_shot")
    if examples_file:
        demonstrations = load_demonstrations(examples_file)
    else:
        _, bank = domain_bank(kitchen)
        demonstrations = [Demonstration(example.instruction, example.steps) for example in bank]
    retriever = KnnRetriever(demonstrations, lambda demonstration: demonstration.task, load_embedder({}))
    return encode_steps(tokenizer, retriever, chosen, kitchen if scene_context else None)


def _batches(sequences: Sequence[TrainingSequence], size: int, rng: random.Random) -> list[list[TrainingSequence]]:
    """Batches of similar lengths (little padding), in random order."""
    ordered = sorted(sequences, key=lambda seq: len(seq.ids))
    batches = [ordered[i : i + size] for i in range(0, len(ordered), size)]
    return rng.sample(batches, len(batches))


def _validate(trainer: TopLayerTrainer, cache: Sequence[tuple[list[TrainingSequence], torch.Tensor]]) -> float:
    if not cache:
        return float("nan")
    with torch.no_grad():
        losses = [trainer.loss(hidden, batch).item() for batch, hidden in cache]
    return sum(losses) / len(losses)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``llm-planner train saycan-adapter``."""
    parser.add_argument("--bank", type=Path, default=BANK_FILE, help=f"example bank (default {BANK_FILE})")
    parser.add_argument(
        "--prompt", type=Path, default=PROMPT_FILE, help=f"prompt whose preamble is used (default {PROMPT_FILE})"
    )
    parser.add_argument(
        "--method",
        choices=METHODS,
        nargs="+",
        default=[SAYCAN],
        help="saycan: dialogs scored step by step (the default); progprompt: the program prompt and the oracle "
        "plan as a program; llm_planner: the plan prompt (no examples, the scene line) and the oracle plan's "
        "line; zero_shot: the step prompts after the nearest demonstration and the oracle's steps; several: one "
        "adapter trained on each (--examples per method); alfred_hlp (alone): LLM-Planner's ALFRED training "
        "set, each plan after its --alfred-k nearest",
    )
    parser.add_argument(
        "--program-examples",
        choices=("file", "none"),
        default="file",
        help="progprompt: show the example programs in the prompt (file, the default) or not (none); match the "
        "planner's examples option",
    )
    parser.add_argument(
        "--replan-share",
        type=finite_float,
        default=0.5,
        help="llm_planner: share of the plans (of three steps or more) cut after completed steps, as a re-plan "
        "(default 0.5)",
    )
    parser.add_argument(
        "--scene-context",
        action="store_true",
        help="progprompt: the scene comment after the lists; zero_shot: the scene line under the task; as the "
        "planners' scene_context: true",
    )
    parser.add_argument(
        "--alfred-examples",
        type=Path,
        default=ALFRED_EXAMPLES,
        help=f"alfred_hlp: LLM-Planner's ALFRED training set (default {ALFRED_EXAMPLES}; --examples caps the plans)",
    )
    parser.add_argument(
        "--alfred-k",
        type=int,
        default=9,
        help="alfred_hlp: retrieved examples before each plan (default 9, as the bench)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="adapter file (default: the default domain's adapters/<method>.safetensors of the first --method, "
        "saycan alone: saycan.safetensors; alfred_hlp: data/alfred_hlp/alfred_hlp_adapter.safetensors)",
    )
    parser.add_argument(
        "--resume", type=Path, help="adapter to train further (same --layers, --modules, --rank, --alpha)"
    )
    parser.add_argument(
        "--examples",
        type=int,
        nargs="+",
        default=[3600],
        help="training dialogs (default 3600): one count for every --method, or one per --method",
    )
    parser.add_argument(
        "--neighbours",
        type=int,
        default=0,
        help="retrieved examples shown before each dialog (default 0, for examples: none; "
        "else match the planner's retrieved_examples)",
    )
    parser.add_argument(
        "--domain", type=Path, help="a domain folder whose bank this is (default: the packaged kitchen)"
    )
    parser.add_argument(
        "--domains",
        type=Path,
        nargs="+",
        default=[],
        help="train on the bank.jsonl of each of these domain folders instead (--examples drawn evenly over "
        "them), each example in its own domain: the general adapters (data/general_adapters/README.md)",
    )
    parser.add_argument(
        "--virtualhome",
        type=Path,
        help="train saycan or progprompt on these VirtualHome examples' training split instead of a bank "
        "(validation: the development split; saycan: --neighbours as the planner's retrieved_examples, 3)",
    )
    parser.add_argument(
        "--goal-subsets",
        type=int,
        default=0,
        help="with --virtualhome: also this many examples per training program asking for part of its goals, "
        "its program cut where they first hold (default 0)",
    )
    parser.add_argument("--validation", type=int, default=64, help="held-out dialogs for the validation loss")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument(
        "--layers", type=int, default=30, help="top decoder layers adapted (default 30: all of SmolLM2-135M)"
    )
    parser.add_argument("--modules", nargs="+", default=list(MODULE_PATHS), help="linear modules adapted (default all)")
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--alpha", type=finite_float, default=32.0)
    parser.add_argument("--lr", type=finite_float, default=5e-4)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads, 0 = all this process may use")
    parser.add_argument(
        "--max-minutes", type=finite_float, default=45.0, help="stop training after this long (default 45)"
    )


def run(args: argparse.Namespace) -> int:
    """Train the SayCan adapter (see the module docstring)."""
    if args.goal_subsets < 0 or (args.goal_subsets and not args.virtualhome):
        raise SystemExit(f"--goal-subsets takes a count of 0 or more, with --virtualhome only; got {args.goal_subsets}")
    if args.out is None:
        method = next((m for m in args.method if m != "saycan"), "saycan")
        args.out = BENCHMARK_ADAPTERS.get(method) or default_domain_adapter(method)
    return train(args)
