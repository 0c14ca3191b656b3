"""What the robot executors do, ROS-free: where each place is, which skills drive the base and where to,
the arm and gripper motions of pick and put down, and what a Nav2 or MoveIt 2 error code means.

``place_map``: the robot's map of named places (base pose, surface); ``navigation``: the base target of
a navigation skill; ``manipulation``: pick and place motion sequences and the grasp check;
``error_codes``: Nav2 NavigateToPose and MoveIt ``MoveItErrorCodes`` values as skill failure messages.
The ROS adapters that send these to Nav2 and MoveIt live in ``skill_executors``.
"""
