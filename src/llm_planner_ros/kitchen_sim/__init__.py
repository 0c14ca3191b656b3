"""Simulators of the kitchen: ``sim_world_node`` (symbolic) speaks the ROS names a robot would."""
