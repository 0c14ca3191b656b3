"""Learned value functions for SayCan's "Can": p(skill succeeds | what the robot perceives now).

``observation`` is what a robot has before a skill (perceived objects with noise, its own state);
``collector`` gathers physics rollouts of skills from randomised kitchen scenes (PyBullet, ROS-free);
``features`` turns an observation and a skill into a per-family feature vector; ``boosted_trees`` holds the
small MLPs and their weight files; ``training`` fits them with a held-out split; ``analytic`` scores the
same observations with today's analytic affordance model for comparison (docs/value_functions.md).
"""
