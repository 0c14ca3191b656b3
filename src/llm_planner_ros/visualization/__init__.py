"""Ways to look at a plan: score tables in the terminal, decision charts as PNG, RViz markers."""
