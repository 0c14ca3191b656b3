"""Open-vocabulary perception, ROS-free: detections in RGB-D lifted to 3D objects in the map frame,
assigned to the kitchen's places and tracked across frames (``perception`` is the ROS adapter).

``docs/perception.md`` describes the pipeline, the detector backends and the node's ROS names.
"""
