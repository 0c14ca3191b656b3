"""Plans recorded as rosbag2 bags (MCAP storage) and read back: ``llm-planner record`` and ``replay``."""
