"""llm_planner_ros"""
