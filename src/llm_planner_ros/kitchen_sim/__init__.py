"""Simulators of the kitchen: ``sim_world`` (symbolic) speaks the ROS names a robot would."""
