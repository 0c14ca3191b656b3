"""Launch arguments (params_file, namespace, use_sim_time, without): what every node gets, from the launch files and
from `llm-planner up`/`demo`, and the relative ROS names that make a namespace work.

The graph test (test_namespaced_graph.py) brings the sim graph up under a namespace; these check the one
translation of the options (llm_planner_ros.bringup.starts.node_starts) and the two ways it reaches a node.
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest
import rclpy
import yaml
from launch_stub import LAUNCH_DIR, launch_nodes
from rclpy.context import Context
from repo_paths import REPO_ROOT, TEST_DATA

from llm_planner_ros.bringup.graphs import GRAPHS, LAUNCH_ARGUMENTS, OPTIONAL_NODES, SIM_GRAPH
from llm_planner_ros.bringup.options import GraphOptionError, GraphOptions, normalize_namespace
from llm_planner_ros.bringup.parameters import packaged_parameters, planner_domain_files
from llm_planner_ros.bringup.starts import node_starts
from llm_planner_ros.domain.domain_folder import general_adapter_file
from llm_planner_ros.paths import config_file, default_domain_file
from llm_planner_ros.processes import entry_point, ros_argv, start_graph
from llm_planner_ros.ros import topics
from llm_planner_ros.ros.llm_client import llm_service_name
from llm_planner_ros.ros.parameter_files import declared_parameters
from llm_planner_ros.ros.topics import LLM_GENERATE_SERVICE, LLM_SCORE_SERVICE

GENERAL_SAYCAN = general_adapter_file("saycan")
USER_PARAMS = {"planner": {"ros__parameters": {"max_steps": 7}}, "/**": {"ros__parameters": {"frame_id": "odom"}}}


@pytest.fixture
def user_params(tmp_path: Path) -> Path:
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(USER_PARAMS))
    return path


def test_no_options_start_every_node_exactly_as_before(tmp_path: Path) -> None:
    for start, spec in zip(node_starts(SIM_GRAPH, GraphOptions(), tmp_path), SIM_GRAPH, strict=True):
        assert (start.executable, start.name, start.namespace) == (spec.executable, spec.name, "")
        assert list(start.param_files) == spec.param_paths() and not start.params
        argv = ros_argv(start.executable, start.name, list(start.param_files), start.params, namespace=start.namespace)
        assert argv == ros_argv(spec.executable, spec.name, spec.param_paths())
        assert not any(arg.startswith("__ns") for arg in argv)
    assert not list(tmp_path.iterdir()), "no namespace: the packaged files are used as they are"


def test_params_file_applies_after_the_packaged_files_of_every_node(tmp_path: Path, user_params: Path) -> None:
    for start, spec in zip(node_starts(SIM_GRAPH, GraphOptions.parse(user_params), tmp_path), SIM_GRAPH, strict=True):
        assert list(start.param_files) == [*spec.param_paths(), user_params]
        argv = ros_argv(start.executable, start.name, list(start.param_files))
        files = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--params-file"]
        assert files[-1] == str(user_params), "the user's file is last, so its values win"


def test_namespace_pushes_every_node_and_keeps_its_parameter_sections(tmp_path: Path, user_params: Path) -> None:
    starts = node_starts(SIM_GRAPH, GraphOptions.parse(user_params, "robot1"), tmp_path / "scratch")
    for start, spec in zip(starts, SIM_GRAPH, strict=True):
        assert start.namespace == "/robot1"
        argv = ros_argv(start.executable, start.name, list(start.param_files), namespace=start.namespace)
        assert argv[-4:] == ["-r", f"__node:={spec.name}", "-r", "__ns:=/robot1"]
        packaged = yaml.safe_load(spec.param_paths()[0].read_text())
        rewritten = yaml.safe_load(start.param_files[0].read_text())
        # rcl matches `planner:` to /planner only: the node /robot1/planner needs `/robot1/planner:`.
        assert rewritten == {f"/robot1/{key}": value for key, value in packaged.items()}
        mine = yaml.safe_load(start.param_files[-1].read_text())
        assert mine == {"/robot1/planner": USER_PARAMS["planner"], "/**": USER_PARAMS["/**"]}


def test_use_sim_time_is_set_on_every_node_after_the_files(tmp_path: Path, user_params: Path) -> None:
    for start in node_starts(SIM_GRAPH, GraphOptions.parse(user_params, "", "true"), tmp_path):
        assert start.params == {"use_sim_time": True}
        argv = ros_argv(start.executable, start.name, list(start.param_files), start.params)
        assert argv.index("use_sim_time:=true") > max(i for i, arg in enumerate(argv) if arg == "--params-file")
    assert all(not start.params for start in node_starts(SIM_GRAPH, GraphOptions.parse(None, "", "false"), tmp_path))


@pytest.mark.parametrize(
    ("given", "expected"),
    [("", ""), ("/", ""), ("robot1", "/robot1"), ("/robot1/", "/robot1"), ("fleet/robot_2", "/fleet/robot_2")],
)
def test_namespaces_are_normalized(given: str, expected: str) -> None:
    assert normalize_namespace(given) == expected


@pytest.mark.parametrize("bad", ["1robot", "robot-1", "robot 1", "a//b"])
def test_invalid_namespaces_are_refused_with_the_rule(bad: str) -> None:
    with pytest.raises(GraphOptionError, match="not a ROS namespace"):
        normalize_namespace(bad)


def test_bad_option_values_say_what_to_fix(tmp_path: Path) -> None:
    with pytest.raises(GraphOptionError, match="not found"):
        GraphOptions.parse(tmp_path / "missing.yaml")
    with pytest.raises(GraphOptionError, match="true or false"):
        GraphOptions.parse(None, "", "yes")


def test_start_graph_writes_namespaced_files_beside_the_logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[list[str]] = []
    monkeypatch.setattr("llm_planner_ros.processes.NodeProcess.start", lambda self: started.append(self.argv) or self)
    start_graph(
        SIM_GRAPH,
        tmp_path,
        env={},
        overrides={"planner": {"max_steps": 3}},
        options=GraphOptions.parse(None, "robot1", True),
    )
    planner = next(argv for argv in started if "__node:=planner" in argv)
    assert "__ns:=/robot1" in planner and "use_sim_time:=true" in planner and "max_steps:=3" in planner
    assert all(
        Path(argv[i + 1]).parent == tmp_path / "params"
        for argv in started
        for i, arg in enumerate(argv)
        if arg == "--params-file"
    )


@pytest.mark.parametrize("graph", sorted(GRAPHS))
def test_launch_files_declare_the_arguments_and_build_nodes_with_bringup(
    graph: str, tmp_path: Path, user_params: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    launch_file = LAUNCH_DIR / f"{graph}.launch.py"
    calls = [
        node.func.id
        for node in ast.walk(ast.parse(launch_file.read_text()))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    ]
    assert "launch_description" in calls, f"{launch_file} does not build its graph with bringup.launch_description"
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(tmp_path))
    nodes = launch_nodes(
        launch_file, monkeypatch, {"params_file": str(user_params), "namespace": "robot1", "use_sim_time": "true"}
    )
    expected = node_starts(GRAPHS[graph], GraphOptions.parse(user_params, "robot1", True), tmp_path / "expected")
    assert [node["name"] for node in nodes] == [start.name for start in expected]
    for node, start in zip(nodes, expected, strict=True):
        assert node["namespace"] == "/robot1"
        assert node["parameters"][-1] == {"use_sim_time": True}
        files = [yaml.safe_load(Path(path).read_text()) for path in node["parameters"][:-1]]
        assert files == [yaml.safe_load(path.read_text()) for path in start.param_files]
    defaults = launch_nodes(launch_file, monkeypatch)
    assert all(node["namespace"] == "" and all(isinstance(p, str) for p in node["parameters"]) for node in defaults)
    assert set(LAUNCH_ARGUMENTS) == {
        "params_file",
        "namespace",
        "use_sim_time",
        "domain",
        "without",
        "record",
        "console",
    }
    left_out = launch_nodes(launch_file, monkeypatch, {"without": "affordance_server, llm_service"})
    assert [node["name"] for node in left_out] == [
        start.name for start in expected if start.name not in ("affordance_server", "llm_service")
    ]


def test_without_leaves_nodes_out_and_refuses_a_name_that_is_no_node(tmp_path: Path) -> None:
    starts = node_starts(SIM_GRAPH, GraphOptions.parse(without=["affordance_server"]), tmp_path)
    assert [start.name for start in starts] == [spec.name for spec in SIM_GRAPH if spec.name != "affordance_server"]
    with pytest.raises(GraphOptionError, match="affordance_sever is no node of this graph; its nodes are sim_world"):
        node_starts(SIM_GRAPH, GraphOptions.parse(without="affordance_sever"), tmp_path)


@pytest.mark.parametrize("graph", ["sim", "robot"])
def test_record_adds_the_plan_recorder_reading_the_graphs_robot_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, graph: str
) -> None:
    launch_file = REPO_ROOT / "launch" / f"{graph}.launch.py"
    nodes = launch_nodes(launch_file, monkeypatch, {"record": "true", "console": "false"})
    assert [node["name"] for node in nodes] == [*(spec.name for spec in GRAPHS[graph]), "plan_recorder"]
    files = [yaml.safe_load(Path(path).read_text()) for path in nodes[-1]["parameters"]]
    topics_of = [f["plan_recorder"]["ros__parameters"].get("robot_state_topic") for f in files if "plan_recorder" in f]
    planner = packaged_parameters(next(spec for spec in GRAPHS[graph] if spec.name == "planner"))
    assert topics_of[-1] == planner["robot_state_topic"]  # the record the planner itself reads
    assert "plan_recorder" not in [node["name"] for node in launch_nodes(launch_file, monkeypatch)]
    with pytest.raises(GraphOptionError, match="record must be true or false, got 'yes'"):
        GraphOptions.parse(record="yes")


def test_the_console_comes_up_where_each_step_waits_for_approval_unless_turned_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def names(graph: str, arguments: dict[str, str]) -> list[str]:
        return [
            node["name"] for node in launch_nodes(REPO_ROOT / "launch" / f"{graph}.launch.py", monkeypatch, arguments)
        ]

    robot = [spec.name for spec in GRAPHS["robot"]]
    assert names("robot", {}) == [*robot, "operator_console"]  # robot_graph.yaml: require_confirmation
    assert names("robot", {"console": "false"}) == robot
    assert names("sim", {}) == [spec.name for spec in GRAPHS["sim"]]
    assert names("sim", {"console": "true"})[-1] == "operator_console"
    # A user's file that makes the planner wait for approval brings the console too.
    confirming = tmp_path / "confirm.yaml"
    confirming.write_text(yaml.safe_dump({"planner": {"ros__parameters": {"require_confirmation": True}}}))
    assert names("sim", {"params_file": str(confirming)})[-1] == "operator_console"
    # On the robot it reads the robot's state record, as the planner does.
    (console,) = [
        n
        for n in launch_nodes(REPO_ROOT / "launch" / "robot.launch.py", monkeypatch)
        if n["name"] == "operator_console"
    ]
    files = [yaml.safe_load(Path(path).read_text()) for path in console["parameters"]]
    state_topics = [
        f["operator_console"]["ros__parameters"].get("robot_state_topic") for f in files if "operator_console" in f
    ]
    assert state_topics[-1] == "robot/state"
    with pytest.raises(GraphOptionError, match="console must be true, false or auto, got 'yes'"):
        GraphOptions.parse(console="yes")


NAMES = [
    topics.SCENE_TOPIC,
    topics.ROBOT_STATE_TOPIC,
    topics.APPLY_SKILL_ACTION,
    topics.LOAD_EPISODE_SERVICE,
    topics.EXECUTE_INSTRUCTION_ACTION,
    topics.affordance_action("pick"),
    topics.executor_action("manipulator"),
    LLM_SCORE_SERVICE,
    LLM_GENERATE_SERVICE,
]


def test_names_resolve_to_the_public_names_without_a_namespace_and_inside_one() -> None:
    context = Context()
    rclpy.init(context=context)
    try:
        root = rclpy.create_node("names_root", context=context)
        robot = rclpy.create_node("names_robot", namespace="/robot1", context=context)
        for name in NAMES:
            assert topics.full_name(root, name) == f"/{name}"
            assert topics.full_name(robot, name) == f"/robot1/{name}"
        assert topics.full_name(robot, llm_service_name(LLM_SCORE_SERVICE, "/")) == "/llm/score"
        assert topics.full_name(robot, llm_service_name(LLM_SCORE_SERVICE, "/shared/")) == "/shared/llm/score"
        assert topics.full_name(robot, llm_service_name(LLM_SCORE_SERVICE, "")) == "/robot1/llm/score"
    finally:
        rclpy.shutdown(context=context)


@pytest.mark.parametrize(
    "file",
    [
        "planner.yaml",
        "affordance_server.yaml",
        "manipulator_executor.yaml",
        "mobile_base_executor.yaml",
        "robot_graph.yaml",
    ],
)
def test_topic_parameters_in_config_are_relative(file: str) -> None:
    for section in yaml.safe_load(config_file(file).read_text()).values():
        for key, value in section["ros__parameters"].items():
            if key.endswith(("_topic", "_action")):
                assert not str(value).startswith("/"), f"{file}: {key}: {value} ignores the graph's namespace"


def write_params(path: Path, document: dict) -> Path:
    path.write_text(yaml.safe_dump(document))
    return path


def test_a_params_file_value_of_another_type_is_refused_instead_of_dropped(tmp_path: Path) -> None:
    # rcl keeps the packaged value when a later file gives another type: the graph ran with max_steps 30
    # and without a person's approval.
    bad = write_params(
        tmp_path / "bad.yaml",
        {"planner": {"ros__parameters": {"max_steps": "thirty", "require_confirmation": "yes", "max_steps_limit": 50}}},
    )
    with pytest.raises(GraphOptionError) as refused:
        node_starts(SIM_GRAPH, GraphOptions.parse(bad), tmp_path)
    message = str(refused.value)
    assert str(bad) in message and "2 problem(s)" in message, message
    assert "planner.max_steps: 'thirty' is str, the parameter is int (packaged value 30)" in message
    assert "planner.require_confirmation: 'yes' is str, the parameter is bool (packaged value False)" in message


def test_a_params_file_with_a_mistyped_node_or_parameter_name_is_refused_with_the_likely_name(tmp_path: Path) -> None:
    bad = write_params(
        tmp_path / "typos.yaml",
        {
            "planer": {"ros__parameters": {"max_steps": 12}},
            "sim_world_node": {"ros__parameters": {"time_scale": 0.0}},
            "planner": {"ros__parameters": {"require_confirmaton": True, "confirm_timout_s": 5.0}},
            "/**": {"ros__parameters": {"use_sim_time": False}},
        },
    )
    with pytest.raises(GraphOptionError) as refused:
        node_starts(SIM_GRAPH, GraphOptions.parse(bad), tmp_path)
    message = str(refused.value)
    assert "4 problem(s)" in message, message
    assert "planer: not a node of this graph (did you mean 'planner'?)" in message
    assert "sim_world_node: not a node of this graph (named 'sim_world' since 0.4.0)" in message
    assert "planner.require_confirmaton: not a parameter of planner (did you mean 'require_confirmation'?)" in message
    assert "planner.confirm_timout_s: not a parameter of planner (did you mean 'confirm_timeout_s'?)" in message


def test_a_float_parameter_takes_an_integer_and_an_unpackaged_parameter_is_left_to_the_node(tmp_path: Path) -> None:
    good = write_params(
        tmp_path / "good.yaml",
        {"planner": {"ros__parameters": {"confirm_timeout_s": 60, "max_scene_age_s": 2.0}}},
    )
    assert len(node_starts(SIM_GRAPH, GraphOptions.parse(good), tmp_path)) == len(SIM_GRAPH)


def test_llm_planner_up_refuses_a_bad_params_file_before_starting_any_node(tmp_path: Path) -> None:
    bad = write_params(tmp_path / "bad.yaml", {"planer": {"ros__parameters": {"max_steps": 12}}})
    done = subprocess.run(
        [entry_point("llm-planner"), "up", "--params-file", str(bad), "--log-dir", str(tmp_path / "logs")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "planer: not a node of this graph (did you mean 'planner'?)" in done.stderr, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert not list((tmp_path / "logs").rglob("*.log")), "a node was started"


def test_a_skills_file_the_nodes_would_refuse_is_refused_before_any_node_starts(tmp_path: Path) -> None:
    skills = tmp_path / "office_skills.yaml"
    skills.write_text("skills:\n  - family: wipe\n    text: wipe the table\n    executor: wiper\n")
    params = write_params(tmp_path / "office.yaml", {"/**": {"ros__parameters": {"skills_file": str(skills)}}})
    with pytest.raises(GraphOptionError) as refused:
        node_starts(SIM_GRAPH, GraphOptions.parse(params), tmp_path)
    message = str(refused.value)
    # Every node that reads the skills file is named, once, with the file's problems.
    assert re.search(r"the domain files of (\w+, )+planner cannot be used", message) and str(skills) in message, message
    assert "line 2, field skills[0].family: unknown family 'wipe'; known families: 'find'," in message
    assert "line 4, field skills[0].executor: unknown executor 'wiper'" in message


def test_llm_planner_up_shows_the_domain_files_problems_and_starts_no_node(tmp_path: Path) -> None:
    world = tmp_path / "office_world.yaml"
    world.write_text("world: office\nframe_id: map\nlocations:\n  desk: {x: 1.0}\n")
    params = write_params(tmp_path / "office.yaml", {"planner": {"ros__parameters": {"world_file": str(world)}}})
    done = subprocess.run(
        [entry_point("llm-planner"), "up", "--params-file", str(params), "--log-dir", str(tmp_path / "logs")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "the domain files of planner cannot be used" in done.stderr, done.stderr
    assert "line 4, field locations.desk.y: missing (required)" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not list((tmp_path / "logs").rglob("*.log")), "a node was started"


def test_every_executor_the_domain_declares_beyond_the_graphs_gets_a_skill_executor(tmp_path: Path) -> None:
    office = TEST_DATA / "office_corner"
    domain = {"world_file": str(office / "world.yaml"), "skills_file": str(office / "skills.yaml")}
    mine = write_params(
        tmp_path / "office.yaml",
        {"/**": {"ros__parameters": domain}, "wiper_executor": {"ros__parameters": {"server_timeout_s": 5.0}}},
    )
    starts = node_starts(SIM_GRAPH, GraphOptions.parse(mine), tmp_path)
    assert [(s.executable, s.name) for s in starts[len(SIM_GRAPH) :]] == [("skill_executor", "wiper_executor")]
    assert starts[-1].param_files[-1] == mine, "the user's file reaches the added executor, its section included"
    # The kitchen declares only the graph's own executors; a part of a graph without executors gets none.
    assert len(node_starts(SIM_GRAPH, GraphOptions(), tmp_path)) == len(SIM_GRAPH)
    llm_only = tuple(spec for spec in SIM_GRAPH if spec.executable == "llm_service")
    assert len(node_starts(llm_only, GraphOptions.parse(mine), tmp_path, graph=SIM_GRAPH)) == 1


def test_a_domain_folder_applies_its_params_and_files_before_the_users_file(tmp_path: Path, user_params: Path) -> None:
    lobby = TEST_DATA / "elevator_lobby"
    starts = node_starts(SIM_GRAPH, GraphOptions.parse(user_params, domain=lobby), tmp_path)
    assert [start.name for start in starts] == [*(spec.name for spec in SIM_GRAPH), "presser_executor"]
    planner = next(start for start in starts if start.name == "planner")
    *packaged, domain_params, generated, user = planner.param_files
    assert domain_params == lobby / "params.yaml" and user == user_params
    assert yaml.safe_load(generated.read_text()) == {
        "/**": {
            "ros__parameters": {"world_file": str(lobby / "world.yaml"), "skills_file": str(lobby / "skills.yaml")}
        },
        # The kitchen's adapters learned the kitchen: the lobby's model service merges the general one.
        "llm_service": {"ros__parameters": {"adapter": str(GENERAL_SAYCAN)}},
    }
    assert planner_domain_files(SIM_GRAPH, GraphOptions.parse(domain=lobby)) == (
        str(lobby / "world.yaml"),
        str(lobby / "skills.yaml"),
    )
    with pytest.raises(GraphOptionError, match=r"has no world.yaml and no skills.yaml: a domain folder holds"):
        GraphOptions.parse(domain=tmp_path)


def test_the_model_service_merges_the_adapter_of_the_domain_folder_and_no_other(tmp_path: Path) -> None:
    office = tmp_path / "office"
    office.mkdir()
    for name in ("world.yaml", "skills.yaml"):
        (office / name).write_text((REPO_ROOT / "domains" / "office" / name).read_text())
    general = {"adapter": str(GENERAL_SAYCAN)}
    assert GraphOptions.parse(domain=office).domain_parameters()["llm_service"] == general
    (office / "adapters").mkdir()
    (office / "adapters" / "saycan.safetensors").write_bytes(b"")
    own = str(office / "adapters" / "saycan.safetensors")
    assert GraphOptions.parse(domain=office).domain_parameters()["llm_service"] == {"adapter": own}
    # The domain's own params.yaml may choose, and then it wins.
    (office / "params.yaml").write_text("llm_service:\n  ros__parameters:\n    adapter: auto\n")
    assert "llm_service" not in GraphOptions.parse(domain=office).domain_parameters()
    # No folder is special: the kitchen's own folder serves its adapter, a copy of its files without
    # adapters/ serves the general one.
    packaged = GraphOptions.parse(domain=default_domain_file("world.yaml").parent).domain_parameters()
    assert packaged["llm_service"] == {"adapter": str(default_domain_file("adapters/saycan.safetensors"))}
    kitchen = tmp_path / "kitchen"
    kitchen.mkdir()
    (kitchen / "world.yaml").write_text(default_domain_file("world.yaml").read_text())
    (kitchen / "skills.yaml").write_text(default_domain_file("skills.yaml").read_text())
    assert GraphOptions.parse(domain=kitchen).domain_parameters()["llm_service"] == general


def test_the_domain_launch_argument_starts_the_domains_executors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(tmp_path))
    nodes = launch_nodes(LAUNCH_DIR / "sim.launch.py", monkeypatch, {"domain": str(TEST_DATA / "elevator_lobby")})
    presser = next(node for node in nodes if node["name"] == "presser_executor")
    assert presser["executable"] == "skill_executor"
    assert str(TEST_DATA / "elevator_lobby" / "params.yaml") in presser["parameters"]


# Every form of a node key rcl reads (checked against rclpy in test/ros/test_params_file_keys.py), each
# with the mistyped name that, before, left the planner running without a person's approval.
KEY_FORMS = [
    ("", {"/planner": {"ros__parameters": {"require_confirmaton": True}}}, "/planner"),
    ("", {"/**/planner": {"ros__parameters": {"require_confirmaton": True}}}, "/**/planner"),
    ("robot1", {"/robot1/planner": {"ros__parameters": {"require_confirmaton": True}}}, "/robot1/planner"),
    ("robot1", {"/robot1": {"planner": {"ros__parameters": {"require_confirmaton": True}}}}, "/robot1/planner"),
    ("robot1", {"/robot1/*": {"ros__parameters": {"require_confirmaton": True}}}, "/robot1/*"),
    ("", {"/**": {"ros__parameters": {"require_confirmaton": True}}}, "/**"),
]


@pytest.mark.parametrize(("namespace", "document", "key"), KEY_FORMS)
def test_every_key_form_rcl_reads_is_checked_like_a_plain_node_name(
    tmp_path: Path, namespace: str, document: dict, key: str
) -> None:
    bad = write_params(tmp_path / "forms.yaml", document)
    with pytest.raises(GraphOptionError) as refused:
        node_starts(SIM_GRAPH, GraphOptions.parse(bad, namespace), tmp_path / "scratch")
    message = str(refused.value)
    assert "1 problem(s)" in message, message
    assert f"{key}.require_confirmaton: not a parameter of " in message, message
    assert "(did you mean 'require_confirmation'?)" in message, message


def test_a_key_the_node_does_not_declare_is_refused_with_the_nodes_parameters(tmp_path: Path) -> None:
    bad = write_params(tmp_path / "unknown.yaml", {"planner": {"ros__parameters": {"confirm_each_step": True}}})
    with pytest.raises(GraphOptionError) as refused:
        node_starts(SIM_GRAPH, GraphOptions.parse(bad), tmp_path)
    (problem,) = str(refused.value).splitlines()[1:]
    assert problem.startswith("  planner.confirm_each_step: not a parameter of planner; its parameters: "), problem
    listed = problem.split("its parameters: ")[1].split(", ")
    assert {"require_confirmation", "max_steps", "llm.backend", "use_sim_time"} <= set(listed), listed


def test_a_wildcard_key_needs_one_node_it_reaches_to_declare_it(tmp_path: Path) -> None:
    # frame_id is the planner's and the simulator's; no node has confirm_each_step.
    mixed = write_params(
        tmp_path / "all.yaml", {"/**": {"ros__parameters": {"frame_id": "odom", "confirm_each_step": 1}}}
    )
    with pytest.raises(GraphOptionError) as refused:
        node_starts(SIM_GRAPH, GraphOptions.parse(mixed), tmp_path)
    assert str(refused.value).splitlines()[1:] == [
        "  /**.confirm_each_step: not a parameter of any node it applies to (sim_world, affordance_server, "
        "manipulator_executor, mobile_base_executor, llm_service, planner)"
    ]


def test_a_nested_namespace_key_that_reaches_no_node_is_refused(tmp_path: Path) -> None:
    # Without --namespace robot1 there is no /robot1/planner: rcl would apply the key to nothing.
    nested = write_params(tmp_path / "nested.yaml", {"robot1": {"planner": {"ros__parameters": {"max_steps": 5}}}})
    with pytest.raises(GraphOptionError, match=r"robot1/planner: not a node of this graph; its nodes: sim_world"):
        node_starts(SIM_GRAPH, GraphOptions.parse(nested), tmp_path)


@pytest.mark.parametrize("graph", sorted(GRAPHS))
def test_every_packaged_parameter_is_one_its_node_declares(graph: str) -> None:
    for spec in (*GRAPHS[graph], *OPTIONAL_NODES.values()):
        undeclared = set(packaged_parameters(spec)) - declared_parameters(spec.executable)
        assert not undeclared, f"{spec.param_files} give {spec.name} {undeclared}, which it does not declare"


def test_llm_planner_up_refuses_a_slash_key_the_planner_does_not_declare(tmp_path: Path) -> None:
    bad = write_params(tmp_path / "bad.yaml", {"/planner": {"ros__parameters": {"confirm_each_step": True}}})
    done = subprocess.run(
        [entry_point("llm-planner"), "up", "--params-file", str(bad), "--log-dir", str(tmp_path / "logs")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "/planner.confirm_each_step: not a parameter of planner; its parameters: " in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not list((tmp_path / "logs").rglob("*.log")), "a node was started"
