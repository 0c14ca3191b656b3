"""skill_executors"""
