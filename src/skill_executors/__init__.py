"""Skill executors: ExecuteSkill action servers for the manipulator and the mobile base.

``backend.SkillBackend`` is what runs a skill (``sim_backend.SimBackend`` forwards to sim_world;
MoveIt 2 and Nav2 backends plug in behind the same interface); ``executor_node`` is the ROS adapter.
"""
