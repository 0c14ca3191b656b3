"""``llm-planner demo | up | run``: bring up the simulated graph, and talk to a running one.

``demo`` starts every node of the sim graph (llm_planner_ros.bringup.graphs.SIM_GRAPH, the same nodes and
parameter files as launch/sim.launch.py), sends one instruction, shows each step's candidate table,
prints the final world state and the verdict, optionally writes the decision chart, and stops the
graph. ``up`` starts the graph and waits so other nodes can call the action (``up --robot``: the robot
graph, ROBOT_GRAPH, as launch/robot.launch.py starts it); ``--sim physics`` runs the PyBullet kitchen
graph with perception (PHYSICS_PERCEPTION_GRAPH: the executors drive physics_sim through NavigateToPose,
MoveGroup and GripperCommand, and perception publishes the scene from its head camera after the robot
looked around once, ``ros.survey``; ``--scene truth``: PHYSICS_GRAPH, the simulator's ground truth), and
``demo --record DIR`` keeps its head camera's frames; ``run`` sends an instruction to a graph that is already up.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

from rich.console import Console

from llm_planner_interfaces.srv import LoadEpisode
from llm_planner_ros.bringup.graphs import PHYSICS_GRAPH, PHYSICS_PERCEPTION_GRAPH, ROBOT_GRAPH, SIM_GRAPH
from llm_planner_ros.bringup.options import GraphOptions
from llm_planner_ros.bringup.parameters import check_domain_files, planner_domain_files
from llm_planner_ros.cli.frame_recorder import FrameRecorder
from llm_planner_ros.cli.graph_arguments import DEFAULT_INSTRUCTION
from llm_planner_ros.cli.instruction_client import InstructionClient, InstructionOutcome
from llm_planner_ros.cli.interrupts import interrupts_deferred
from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.domain.episodes import Episode, load_episodes
from llm_planner_ros.domain.world import World
from llm_planner_ros.llm.factory import method_llm_config
from llm_planner_ros.options import parse_key_values
from llm_planner_ros.paths import repo_path
from llm_planner_ros.processes import NodeProcess, start_graph, stop_all
from llm_planner_ros.ros.stop_request import StopRequest
from llm_planner_ros.ros.survey import Survey, SurveyError

# The first start de-quantizes the embedded model (about 20 s on 2 cores) before the graph is ready.
READY_TIMEOUT_S = 300.0
# The head camera of physics_sim (its head_camera_ns), relative to the graph's namespace.
HEAD_CAMERA_TOPIC = "camera/color/image_raw"
# How long --record waits for the camera's first frame before the instruction is sent (the camera
# renders while the simulation idles at real time: at camera_rate_hz frames per wall second).
FIRST_FRAME_WAIT_S = 30.0


def run_demo(args: argparse.Namespace) -> int:
    console = Console()
    kitchen = _domain(args)
    episode = _episode(args, kitchen)
    instruction = args.instruction or (episode.instruction if episode else DEFAULT_INSTRUCTION)
    if args.record is not None and args.sim != "physics":
        raise SystemExit("--record saves the physics simulation's camera frames: add --sim physics")
    with _graph(args, console, kitchen, episode) as client:
        recorder = FrameRecorder(client.node, HEAD_CAMERA_TOPIC) if args.record is not None else None
        if recorder is not None and not recorder.wait_for_frame(FIRST_FRAME_WAIT_S):
            console.print(
                f"[yellow]no frame on {recorder.topic} within {FIRST_FRAME_WAIT_S:.0f} s[/yellow]: "
                "recording what arrives"
            )
        outcome = _send(client, console, instruction, args)
    if recorder is not None:
        strip = recorder.write(args.record)
        console.print(
            f"{recorder.count} frames of {recorder.topic} and {strip} written"
            if strip is not None
            else f"[red]no frame arrived on {recorder.topic}[/red]: is physics_sim's camera_rate_hz 0?"
        )
    _report(console, outcome, episode, args.plot, instruction)
    if args.json:
        _write_json(args.json, instruction, outcome)
    return (
        0
        if outcome.served and (episode is None or (outcome.world is not None and episode.goal_holds(outcome.world)))
        else 1
    )


# A closed terminal or a dropped SSH session sends SIGHUP: the graph must go down with `up`, never stay
# behind under PID 1 serving goals.
UP_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# How often `up` looks whether a node of its graph ended.
UP_WATCH_PERIOD_S = 1.0


def run_up(args: argparse.Namespace) -> int:
    console = Console()
    stop = StopRequest()
    stop.install(UP_STOP_SIGNALS)
    kitchen = _domain(args)
    graph = _graph(args, console, kitchen, _episode(args, kitchen))
    with graph:
        graph.close_client()
        run = f"llm-planner run --namespace {args.namespace} " if args.namespace else "llm-planner run "
        console.print(
            f"[green]graph up[/green]: send goals to {args.namespace}/llm_planner/execute_instruction "
            f'(e.g. {run}"bring me an apple"); Ctrl-C stops it'
        )
        while not stop.wait(UP_WATCH_PERIOD_S):
            for ended in graph.newly_ended():
                console.print(
                    f"[red]{ended.log_path.stem} exited with status {ended.returncode}[/red] "
                    f"(log: {ended.log_path}); the rest of the graph keeps running: stop it and start again"
                )
    return 0


def run_instruction(args: argparse.Namespace) -> int:
    console = Console()
    client = InstructionClient(load_domain_files(), console, args.namespace)
    try:
        if not client.wait_ready(20.0):
            up = f"llm-planner up --namespace {args.namespace}" if args.namespace else "llm-planner up"
            console.print(f"[red]no planner at {client.action}[/red]: start the graph with `{up}`")
            return 2
        outcome = _send(client, console, args.instruction, args)
    finally:
        client.close()
    _report(console, outcome, None, args.plot, args.instruction)
    if args.json:
        _write_json(args.json, args.instruction, outcome)
    # A request that needed nothing done was served as asked: not an error for a calling script.
    return 0 if outcome.served else 1


def _graph_options(args: argparse.Namespace) -> GraphOptions:
    """The bringup options of ``demo``/``up``, as the launch arguments of the same names give them."""
    return GraphOptions.parse(
        args.params_file, args.namespace, args.use_sim_time, args.without, args.domain, args.bag, args.console
    )


def _domain(args: argparse.Namespace) -> Domain:
    """The domain the graph's planner reads: its ``world_file`` and ``skills_file`` from ``--domain`` and
    ``--params-file`` (or the packaged kitchen's); the client reads the graph's state and episodes in it."""
    options = _graph_options(args)
    check_domain_files(SIM_GRAPH, options)  # every problem of every node's files, before anything starts
    return load_domain_files(*planner_domain_files(SIM_GRAPH, options))


def _episode(args: argparse.Namespace, kitchen: Domain) -> Episode | None:
    """The episode of ``--episode`` and ``--id``; with ``--domain`` and ``--id`` alone, the domain folder's
    episodes.yaml is the file (``args.episode`` is set to it, which the simulator then loads too)."""
    if args.episode is None and args.episode_id and args.domain is not None:
        args.episode = _graph_options(args).domain.episodes
    if args.episode is None:
        if args.episode_id:
            raise SystemExit("--id needs --episode FILE (or a --domain folder with episodes.yaml)")
        return None
    episodes = load_episodes(args.episode, kitchen)
    if not args.episode_id:
        raise SystemExit(f"--episode needs --id; ids in {args.episode}: {', '.join(e.id for e in episodes)}")
    return episodes.episode(args.episode_id)


class _graph:
    """Context manager: the sim (or robot) graph as processes plus a connected client; stops everything on exit
    and points at the node logs when the graph did not come up."""

    def __init__(self, args: argparse.Namespace, console: Console, kitchen: Domain, episode: Episode | None) -> None:
        self._console = console
        self._kitchen = kitchen
        robot, sim = getattr(args, "robot", False), getattr(args, "sim", "symbolic")
        if robot and sim == "physics":
            raise SystemExit("--robot runs no simulator: drop --robot or --sim physics")
        scene = getattr(args, "scene", None)
        if scene is not None and sim != "physics":
            raise SystemExit("--scene chooses where the physics graph's scene comes from: add --sim physics")
        self._perceived = sim == "physics" and scene != "truth"
        self._specs = (
            ROBOT_GRAPH
            if robot
            else PHYSICS_PERCEPTION_GRAPH
            if self._perceived
            else PHYSICS_GRAPH
            if sim == "physics"
            else SIM_GRAPH
        )
        self._episode = episode
        self._episode_file = str(repo_path(args.episode)) if episode is not None else ""
        if self._specs is ROBOT_GRAPH and episode is not None:
            raise SystemExit("--episode loads the simulator, which the robot graph has not: drop --robot or --episode")
        self._log_dir = args.log_dir or Path(
            os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")
        ) / "llm_planner_ros" / "logs" / time.strftime("%Y%m%d-%H%M%S")
        # The physics simulation runs on its own clock (real_time_factor), not time_scale; `up` keeps
        # physics_sim.yaml's real time.
        simulator: dict[str, object] = {"time_scale": args.time_scale}
        if sim == "physics":
            simulator = {"real_time_factor": args.real_time_factor} if hasattr(args, "real_time_factor") else {}
        if episode is not None:
            simulator.update(episode_file=str(repo_path(args.episode)), episode_id=episode.id)
        self._overrides = {
            "physics_sim" if sim == "physics" else "sim_world": simulator,
            # A demo's one goal names its method: the model service gets that method's adapter.
            "llm_service": method_llm_config(parse_key_values(args.llm), getattr(args, "planner", ""), kitchen),
        }
        self._options = _graph_options(args)
        self._processes: list[NodeProcess] = []
        self._reported: list[NodeProcess] = []
        self._client: InstructionClient | None = None

    def __enter__(self) -> InstructionClient:
        from llm_planner_ros.ros.graph_probe import running_nodes

        running = running_nodes([spec.name for spec in self._specs], self._options.namespace)
        if running:
            # Two copies of a graph in one domain send every skill to both (docs/reliability.md).
            domain = os.environ.get("ROS_DOMAIN_ID", "0")
            raise SystemExit(
                f"another graph already runs in ROS_DOMAIN_ID={domain}: {', '.join(running)}. Stop it (Ctrl-C "
                "its llm-planner up or ros2 launch), or start this one with --namespace robot2 or another "
                "ROS_DOMAIN_ID"
            )
        # The user's params file and the domain files it names are checked before any node starts
        # (GraphOptionError, an InputError: status 2 and the problems, no traceback).
        try:
            # An interrupt between a node's start and start_graph's return would leave that node unknown
            # to __exit__, running on under PID 1: it is raised once every started node is listed.
            with interrupts_deferred():
                self._processes = start_graph(
                    self._specs, self._log_dir, overrides=self._overrides, options=self._options
                )
            # Counted from what started: a domain's executors, the recorder and the console join the graph's
            # own nodes, and --without leaves some out.
            names = ", ".join(process.log_path.stem for process in self._processes)
            self._console.print(f"started {len(self._processes)} nodes: {names} (logs in {self._log_dir})")
            return self._connect()
        except BaseException:
            # A with-statement runs __exit__ only once __enter__ returned: an interrupt (or any error) while
            # the graph comes up must stop the nodes here, or they stay behind under PID 1.
            self.__exit__(None, None, None)
            raise

    def _connect(self) -> InstructionClient:
        """The client of the started graph once its planner and language model are ready."""
        kitchen = self._kitchen
        self._client = InstructionClient(kitchen, self._console, self._options.namespace)
        with self._console.status("waiting for the planner (the first start converts the embedded model)"):
            deadline = time.monotonic() + READY_TIMEOUT_S
            while not self._client.wait_ready(1.0):
                dead = [p for p in self._processes if p.returncode is not None]
                if dead or time.monotonic() > deadline:
                    culprit = dead[0].log_path if dead else self._log_dir
                    raise SystemExit(f"the graph did not come up; see {culprit}")
        if self._perceived:
            self._look_around(kitchen.world() if self._episode is None else self._episode.world(kitchen))
        # A goal sent before the model is loaded and warmed up would wait for it in its first step.
        with self._console.status("waiting for the language model to load and warm up"):
            while not self._client.wait_llm_ready(1.0):
                dead = [p for p in self._processes if p.returncode is not None]
                if dead or time.monotonic() > deadline:
                    culprit = dead[0].log_path if dead else self._log_dir
                    raise SystemExit(f"the language model did not become ready; see {culprit}")
        return self._client

    def _look_around(self, world: World) -> None:
        """Let perception see every place before the first goal (``ros.survey``); the language model
        loads meanwhile."""
        assert self._client is not None
        started = time.monotonic()
        survey = Survey(self._client.node, lambda line: self._console.print(f"  {line}"))
        reload = LoadEpisode.Request(
            episode_file=self._episode_file, episode_id=self._episode.id if self._episode else ""
        )
        with self._console.status("looking around so that perception sees every place"):
            try:
                missed = survey.run(world, reload)
            except SurveyError as error:
                raise SystemExit(f"the look around failed: {error}; node logs in {self._log_dir}") from error
        unseen = f"; not seen: {', '.join(missed)}" if missed else ""
        self._console.print(f"looked around in {time.monotonic() - started:.0f} s, simulator reset{unseen}")

    def newly_ended(self) -> list[NodeProcess]:
        """Nodes that ended since the last call (each reaped, so none stays a zombie), in start order."""
        ended = [p for p in self._processes if p not in self._reported and p.returncode is not None]
        self._reported.extend(ended)
        return ended

    def close_client(self) -> None:
        """Drop the client once it is not needed: an idle client listening on the action's feedback topic
        when a goal starts keeps the planner from noticing that the goal's own client was killed (it
        cancels such goals after client_grace_s, goal_control.ClientWatch)."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def __exit__(self, *_exc: object) -> None:
        self.close_client()
        stop_all(self._processes)
        self._processes = []


def _send(
    client: InstructionClient, console: Console, instruction: str, args: argparse.Namespace
) -> InstructionOutcome:
    console.rule(f"[bold]{instruction}")
    return client.send(instruction, planner=args.planner, plan_only=args.plan_only, max_steps=args.max_steps)


def _report(
    console: Console, outcome: InstructionOutcome, episode: Episode | None, plot: Path | None, instruction: str
) -> None:
    executed = [step.skill.text for step in outcome.steps if step.succeeded]
    console.rule("result")
    console.print(f"plan ({len(executed)} skills): {', '.join(executed) or '(none)'}")
    console.print(f"final world state:\n{outcome.world.summary() if outcome.world else '(no state received)'}")
    if outcome.success:
        console.print(f"[green]{outcome.status_name}[/green]: {outcome.message}")
    elif outcome.served:
        console.print(f"[yellow]nothing to do[/yellow] ({outcome.status_name}, no skill run): {outcome.message}")
    else:
        console.print(f"[red]{outcome.status_name}[/red]: {outcome.message}")
    planning = [step.planning_s for step in outcome.steps]
    if planning:
        console.print(
            f"wall time {outcome.wall_s:.1f} s for {len(outcome.steps)} steps "
            f"({outcome.wall_s / len(outcome.steps):.2f} s "
            f"per step); choosing a step (LLM + affordances) took {sum(planning) / len(planning):.2f} s on "
            f"average, {max(planning):.2f} s at most"
        )
    if episode is not None and outcome.world is not None:
        holds = episode.goal_holds(outcome.world)
        console.print(
            f"episode {episode.id} goal {'[green]holds' if holds else '[red]does not hold'}[/]: {episode.goal}"
        )
    if plot is not None:
        from llm_planner_ros.visualization.decision_chart import write_decision_chart

        path = write_decision_chart(outcome.steps, plot, instruction)
        console.print(f"decision chart written to {path}")


def _write_json(path: Path, instruction: str, outcome: InstructionOutcome) -> None:
    steps = [
        {
            "index": step.index,
            "skill": step.skill.text,
            "status": step.status.name.lower(),
            "message": step.message,
            "planning_s": step.planning_s,
            "candidates": [
                {"skill": c.skill.text, "llm": c.llm, "affordance": c.affordance, "combined": c.combined}
                for c in step.candidates
            ],
        }
        for step in outcome.steps
    ]
    record = json.dumps(
        {
            "instruction": instruction,
            "success": outcome.success,
            "status": outcome.status_name,
            "ending": outcome.ending,
            "message": outcome.message,
            "wall_s": outcome.wall_s,
            "steps": steps,
            "final_state": {**outcome.world.to_initial(), "visited": list(outcome.world.visited)}
            if outcome.world is not None
            else None,
        },
        indent=2,
    )
    # The paths were checked before the plan (cli.output_paths); a disk that fills meanwhile must still
    # not lose the record of what the robot did.
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(record)
    except OSError as error:
        print(f"could not write --json {path} ({error.strerror or error}); the record follows", file=sys.stderr)
        print(record)
