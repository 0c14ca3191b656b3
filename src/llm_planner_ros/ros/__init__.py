"""ROS adapters of the planning core: message conversions, blocking waits, clients as core interfaces."""
