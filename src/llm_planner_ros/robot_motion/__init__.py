"""What the robot executors do, ROS-free: where each place is, which skills drive the base and where to,
the arm and gripper motions of pick, put down and the drawer skills, and what a Nav2 or MoveIt 2 error
code means.

``place_map``: the robot's map of named places (base pose, surface, drawer); ``navigation``: the base
target of a navigation skill; ``manipulation``: pick and place motion sequences and the grasp check;
``drawer``: opening and closing a drawer by its handle, putting an object in it;
``error_codes``: Nav2 NavigateToPose and MoveIt ``MoveItErrorCodes`` values as skill failure messages.
The ROS adapters that send these to Nav2 and MoveIt live in ``skill_executors``.
"""
