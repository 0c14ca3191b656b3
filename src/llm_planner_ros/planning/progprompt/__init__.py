"""ProgPrompt (arXiv 2209.11302): plans written as programs, checked, then interpreted, never executed.

One module per step of the method:

- ``vocabulary``: the robot's skills as functions (from the skill library) and the scene's names;
- ``examples`` / ``prompt``: domains/saycan_kitchen/examples/progprompt.yaml and the program prompt built from it;
- ``desugar``: ProgPrompt's ``assert <check> else: <recovery>`` rewritten into parsable syntax;
- ``validator``: the whitelist every program must pass (``parse_program``), ``errors`` its reasons;
- ``program``: the validated statements, the only thing the interpreter runs;
- ``interpreter``: one skill call at a time, asserts decided on the way (``checks``: rules or the model);
- ``planner``: the ``Planner`` for run_plan and ``build`` for the registry.
"""
