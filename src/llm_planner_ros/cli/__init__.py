"""The ``llm-planner`` command-line tool."""
