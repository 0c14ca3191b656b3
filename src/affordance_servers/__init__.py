"""Affordance models and their servers: p(success | state, skill) per skill family (SayCan's "Can").

``model.AffordanceModel`` holds the calibrated functions of SayCan, arXiv 2204.01691, appendix D.2 (ROS-free);
``state_provider`` says where the state comes from; ``affordance_server_node`` serves
``/affordance/<family>`` (EvaluateAffordance) for each configured family.
"""
