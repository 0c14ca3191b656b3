"""LLM task planning grounded in what the robot can do: planners, nodes, benchmarks and the CLI."""
