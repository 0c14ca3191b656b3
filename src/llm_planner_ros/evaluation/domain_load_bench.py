"""``llm-planner bench domain-load --skills N,...``: how long a domain of N skills takes to validate and load
from its files, as every node does at start (``load_domain_files`` on a world and a skills file).

For each N a domain is written to a temporary folder: the generated kitchen of N skills
(``generated_kitchen``: find, pick up, put down per object, go to per place) whose world file also
declares a fact over places (``table_clean``) and whose skills file adds a family with written rules
("wipe the <place>": robot there, holding a sponge, the table not clean; sets it clean) for a tenth of
the places, so that conditions and fact changes are parsed and checked too. Reported per N, median of
``--repeats`` runs: ``load_s`` (read, validate and expand both files), ``world_s`` (the default scene
built and its vocabulary listed), the file sizes, and the same for the SayCan kitchen's own files
(``kitchen``) as the baseline.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from llm_planner_ros.evaluation.bench_report import add_json_argument, write_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_json_argument(parser, "the results")
    parser.add_argument("--skills", default="1000", help="comma-separated skill counts, each >= 51 (default 1000)")
    parser.add_argument("--repeats", type=int, default=5, help="timed loads per domain (default 5)")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    console = Console(stderr=True)
    try:
        counts = [int(n) for n in args.skills.split(",") if n]
    except ValueError:
        console.print(f"[red]--skills {args.skills!r}: give comma-separated integers, e.g. 1000,2000")
        return 2
    if args.repeats < 1 or not counts or min(counts) < 51:
        console.print("[red]--repeats must be >= 1 and every --skills count >= 51 (the kitchen's own)")
        return 2
    from llm_planner_ros.paths import default_domain_file

    folder = Path(tempfile.mkdtemp(prefix="domain-load-"))
    results: dict[str, Any] = {
        "kitchen": _timed(default_domain_file("world.yaml"), default_domain_file("skills.yaml"), args.repeats)
    }
    for count in counts:
        try:
            world_file, skills_file = _write_domain(count, folder / str(count))
        except ValueError as error:  # more skills than the generated vocabulary has names for
            console.print(f"[red]--skills {count}: {error}")
            return 2
        results[str(count)] = _timed(world_file, skills_file, args.repeats)
        row = results[str(count)]
        console.print(
            f"{row['skills']} skills: load {row['load_s']:.3f} s, world {row['world_s']:.4f} s "
            f"({row['files_kb']:.0f} kB of YAML)"
        )
    write_json(args.json, results, console.print)
    return 0


def _timed(world_file: Path, skills_file: Path, repeats: int) -> dict[str, Any]:
    from llm_planner_ros.domain.definition import load_domain_files

    loads, worlds, skills = [], [], 0
    for _ in range(repeats):
        started = time.perf_counter()
        kitchen = load_domain_files(world_file, skills_file)
        loaded = time.perf_counter()
        skills = len(kitchen.world().admissible_skills())
        worlds.append(time.perf_counter() - loaded)
        loads.append(loaded - started)
    size = (world_file.stat().st_size + skills_file.stat().st_size) / 1e3
    load_s, world_s = statistics.median(loads), statistics.median(worlds)
    return {"skills": skills, "load_s": load_s, "world_s": world_s, "files_kb": size}


def _write_domain(skills: int, folder: Path) -> tuple[Path, Path]:
    """World and skills files of about ``skills`` skills (the generated kitchen's, plus the wipe family)."""
    from llm_planner_ros.evaluation.generated_kitchen import generated_kitchen
    from llm_planner_ros.paths import default_domain_file

    wiped_share = 10  # one place in ten can be wiped
    generated = generated_kitchen(skills)
    config = generated.kitchen.config
    places = list(config.locations)
    wiped = places[::wiped_share]
    world = {
        "world": "generated",
        "locations": {name: {"x": p.x, "y": p.y} for name, p in config.locations.items()},
        "objects": {label: {"article": article} for label, article in config.articles.items()},
        "facts": {"table_clean": {"over": "location"}},
        "default_scene": dict(config.default_scene),
    }
    if config.drawer is not None:
        drawer = config.drawer
        position = {"x": drawer.position.x, "y": drawer.position.y}
        world["drawer"] = {"location": drawer.location, "position": position, "contents_at": drawer.contents_at}
    templates = yaml.safe_load(default_domain_file("skills.yaml").read_text())
    templates["families"].append("wipe")
    for template in templates["skills"]:
        if template.get("locations") == ["close counter", "far counter", "table", "trash can"]:
            template["locations"] = [place for place in places if place != "user"]
    templates["skills"].append(
        {
            "family": "wipe",
            "text": "wipe the {location}",
            "for_each": "location",
            "locations": wiped,
            "executor": "manipulator",
            "preconditions": [
                {"robot_at": "{location}"},
                {"holding": "sponge"},
                {"not": {"fact": "table_clean({location})"}},
            ],
            "effects": [{"set": "table_clean({location})"}],
        }
    )
    folder.mkdir(parents=True, exist_ok=True)
    world_file, skills_file = folder / "world.yaml", folder / "skills.yaml"
    world_file.write_text(yaml.safe_dump(world, sort_keys=False))
    skills_file.write_text(yaml.safe_dump(templates, sort_keys=False))
    return world_file, skills_file
