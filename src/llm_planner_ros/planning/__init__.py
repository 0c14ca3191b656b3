"""The planning core: the planning methods of the papers and what they share, all ROS-free.

Each method lives in its own module (``saycan``, ``zero_shot``, ``llm_planner``, ``progprompt``);
``saycan_prompt`` renders the SayCan dialog prompt. Nothing is imported here, so importing one
method does not load the others.
"""
