"""VirtualHome as a planning domain: the Embodied Agent Interface's action-sequencing tasks (``eai-eval``).

``vocabulary`` turns a task's objects and VirtualHome's action space into the skills a planner scores
("grab the soap", "put the soap in the washing machine") and back into VirtualHome actions;
``instruction`` words a task's name and symbolic goals as the request every method gets;
``examples`` reads VirtualHome programs that are not evaluated tasks into prompt examples. The
simulator behind the plan loop is ``llm_planner_ros.planning.virtualhome_environment``.
"""
