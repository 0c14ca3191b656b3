"""The node graphs of this stack, declared once for both ``ros2 launch`` and ``llm-planner up``.

``launch/*.launch.py`` turn them into launch_ros Nodes on a machine with a ROS 2 install (``launch_glue``);
``llm-planner up``/``demo`` start the same executables with the same parameter files as processes (launch
is not on PyPI). Keeping one description makes the two bring-ups impossible to drift apart.

- ``graphs``: the graphs as data (each node's executable, name and packaged parameter files; optional
  nodes; the launch arguments);
- ``options``: what a user sets for a whole graph (``GraphOptions``);
- ``parameters``: how the parameter layers apply to each node, and the checks before anything starts;
- ``starts``: ``node_starts``, the one translation of a graph and its options into how each node starts;
- ``launch_glue``: the launch files' ``LaunchDescription``.
"""
