"""``llm-planner bench physics``: speed of the physics simulation of the kitchen (physics_sim).

    llm-planner bench physics [--width 320] [--height 240] [--camera-hz 5] [--runs A,B] [--json PATH] [--record DIR]

Runs one five-skill instruction ("find a coke", "pick up the coke", "bring it to you", "put down the
coke", "done": the default scene's coke fetched to the user) with the scripted skills in a fresh world
per run: ``physics_only`` (no cameras) and ``cameras_sim_clock`` (the head and wrist cameras, RGB, depth
and segmentation, rendered at ``--camera-hz`` of simulated time, as physics_sim renders them).
Reports for each run the real-time factor (simulated seconds per wall second, and per CPU second of
this process), physics steps per wall second, the wall and CPU time of the whole instruction and
whether the coke ended at the user (the goal checked on the physics state); for the camera run also
the render time per frame (wall median and p95, CPU median). Exit status 1 when a
skill failed or the goal does not hold.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from llm_planner_ros.evaluation.bench_report import add_json_argument, write_json
from llm_planner_ros.options import finite_float
from llm_planner_ros.physics_sim.scripted import ScriptedSkills
from llm_planner_ros.physics_sim.simulation import PhysicsKitchen

INSTRUCTION = ("find a coke", "pick up the coke", "bring it to you", "put down the coke", "done")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--width", type=int, default=320, help="camera image width (pixels)")
    parser.add_argument("--height", type=int, default=240, help="camera image height (pixels)")
    parser.add_argument("--camera-hz", type=finite_float, default=5.0, help="frames per simulated second, each camera")
    parser.add_argument("--runs", default="physics_only,cameras_sim_clock", help="comma-separated runs to do")
    add_json_argument(parser, "the numbers")
    parser.add_argument(
        "--record",
        type=Path,
        default=None,
        metavar="DIR",
        help="write DIR/strip.png: the head (top) and wrist (bottom) camera after each skill of the first run",
    )


def run(args: argparse.Namespace) -> int:
    report: dict[str, Any] = {
        "instruction": list(INSTRUCTION),
        "image": [args.width, args.height],
        "camera_hz": args.camera_hz,
        "machine": platform.processor() or platform.machine(),
        "runs": {},
    }
    ok = True
    runs = {
        "physics_only": 0.0,
        "cameras_sim_clock": args.camera_hz,
    }
    chosen = [name.strip() for name in args.runs.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(runs))
    if unknown:
        print(f"unknown run(s) {unknown}: choose from {', '.join(runs)}")
        return 2
    for name in chosen:
        camera_hz = runs[name]
        record = args.record if name == chosen[0] else None
        result = _run_once((args.width, args.height), camera_hz, record)
        report["runs"][name] = result
        ok = ok and result["goal_holds"] and all(step["success"] for step in result["skills"])
        line = (
            f"{name:18s} real-time x{result['real_time_factor']:.1f} "
            f"(per CPU second x{result['real_time_factor_cpu']:.1f})  "
            f"{result['steps_per_s']:.0f} steps/s  "
            f"instruction {result['wall_s']:.1f} s wall ({result['cpu_s']:.1f} s CPU) / "
            f"{result['sim_s']:.1f} s simulated  "
            f"goal {'holds' if result['goal_holds'] else 'FAILS'}"
        )
        if camera_hz:
            line += (
                f"  {result['frames']} frames, render {result['render_ms_median']:.0f} ms/frame "
                f"(p95 {result['render_ms_p95']:.0f}, CPU {result['render_cpu_ms_median']:.0f})"
            )
        print(line)
        for step in result["skills"]:
            status = "ok" if step["success"] else "FAILED"
            print(f"    {step['skill']:20s} {status}  {step['wall_s']:.2f} s  {step['message']}")
    write_json(args.json, report, print)
    return 0 if ok else 1


def _run_once(image_size: tuple[int, int], camera_hz: float, record: Path | None) -> dict[str, Any]:
    started = time.perf_counter()
    sim = PhysicsKitchen.from_files(image_size=image_size)
    build_s = time.perf_counter() - started
    render_s: list[float] = []
    render_cpu_s: list[float] = []
    try:
        if camera_hz > 0:
            period = 1.0 / camera_hz
            next_frame = {"t": 0.0}

            def cameras(world: PhysicsKitchen) -> None:
                if world.time + 1e-9 < next_frame["t"]:
                    return
                next_frame["t"] += period
                for camera in world.cameras:
                    tick, cpu = time.perf_counter(), time.process_time()
                    world.render(camera)
                    render_s.append(time.perf_counter() - tick)
                    render_cpu_s.append(time.process_time() - cpu)

            sim.step_listeners.append(cameras)
        skills = ScriptedSkills(sim)
        steps: list[dict[str, Any]] = []
        strip: list[np.ndarray] = []
        wall_start, cpu_start, sim_start, step_start = time.perf_counter(), time.process_time(), sim.time, sim.steps
        for text in INSTRUCTION:
            tick = time.perf_counter()
            outcome = skills.run_text(text)
            steps.append(
                {
                    "skill": text,
                    "success": outcome.success,
                    "message": outcome.message,
                    "wall_s": time.perf_counter() - tick,
                }
            )
            if record is not None:  # not counted in the times
                tick_wall, tick_cpu = time.perf_counter(), time.process_time()
                strip.append(np.vstack([sim.render("head").rgb, sim.render("wrist").rgb]))
                wall_start += time.perf_counter() - tick_wall
                cpu_start += time.process_time() - tick_cpu
            if not outcome.success:
                break
        wall_s = time.perf_counter() - wall_start
        cpu_s = time.process_time() - cpu_start
        if record is not None:
            record.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(record / "strip.png"), cv2.cvtColor(np.hstack(strip), cv2.COLOR_RGB2BGR))
            print(f"wrote {record / 'strip.png'} (head over wrist camera after each skill)")
        sim_s = sim.time - sim_start
        world = sim.truth().world(sim.kitchen)
        goal_holds = any(obj.label == "coke" and obj.at == "user" for obj in world.objects)
        result: dict[str, Any] = {
            "build_s": round(build_s, 3),
            "wall_s": round(wall_s, 3),
            "cpu_s": round(cpu_s, 3),
            "sim_s": round(sim_s, 3),
            "real_time_factor": round(sim_s / wall_s, 2),
            # Simulated seconds per CPU second of this process: the factor on an unshared core.
            "real_time_factor_cpu": round(sim_s / cpu_s, 2),
            "steps_per_s": round((sim.steps - step_start) / wall_s, 1),
            "time_step_s": sim.time_step,
            "frames": len(render_s),
            "goal_holds": goal_holds,
            "skills": steps,
        }
        if render_s:
            ordered = sorted(render_s)
            result["render_ms_median"] = round(statistics.median(ordered) * 1000, 1)
            result["render_ms_p95"] = round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 1)
            result["render_cpu_ms_median"] = round(statistics.median(render_cpu_s) * 1000, 1)
        return result
    finally:
        sim.close()
