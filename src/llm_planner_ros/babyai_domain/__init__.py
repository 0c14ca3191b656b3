"""BabyAI "pickup" tasks as text, ROS-free: episodes of the SayCanPay splits and a world that applies
their high-level actions (``pick up <colour> <object>``, ``toggle <colour> door``, ``drop <object> in
void``, ``done picking up``) with the rules the oracle plans follow."""
