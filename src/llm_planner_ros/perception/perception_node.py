"""perception: RGB-D frames in, the perceived scene out (the robot's /scene/objects).

Subscribes (names relative, topic parameters):
  camera/color/image_raw      sensor_msgs/Image        rgb8, bgr8, rgba8, bgra8 or mono8
  camera/depth/image_raw      sensor_msgs/Image        32FC1 metres or 16UC1 millimetres, registered to colour
  camera/color/camera_info    sensor_msgs/CameraInfo   intrinsics (K)
  camera_pose_topic           geometry_msgs/PoseStamped  the optical camera frame in the map (when set;
                              else the fixed ``camera_pose`` parameter), one per frame with the frame's
                              stamp: a frame is lifted with the pose within ``sync_slop_s`` of its stamp
  perception/queries          std_msgs/String          JSON list of extra text queries (the planner's
                              object names); each message replaces the previous extra set
  robot_state_topic           std_msgs/String          the robot-state record (when set): an object the
                              robot picks up leaves the scene, what it holds starts no track, and
                              what it puts down gets the record's id back
Serves:
  perception/clear_scene      llm_planner_interfaces/ClearScene: forget every object (a world reset: a
                              new simulated episode, another room); frames from before the call are dropped
Publishes:
  scene/objects               SceneObjectArray (latched): tracked objects, confidence, place as `location`
  perception/debug_image      sensor_msgs/Image rgb8: the frame with boxes and labels
  perception/markers          visualization_msgs/MarkerArray: a box and label per object
  perception/status           std_msgs/String JSON (latched): state waiting|ok|stale, frame age, objects,
                              backend, last latency; `stale` when no frame came for ``stale_after_s``

Frames are processed at most ``rate_hz`` times a second, always the newest colour/depth pair whose
stamps are within ``sync_slop_s``; frames arriving meanwhile are skipped, never queued. With a pose topic,
a frame waits for its pose (it may arrive after the images) and is never lifted with another frame's.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable

from geometry_msgs.msg import PoseStamped
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from rclpy.qos import qos_profile_sensor_data
from sensor_msgs.msg import CameraInfo, Image
from std_msgs.msg import String
from visualization_msgs.msg import MarkerArray

from llm_planner_interfaces.msg import SceneObjectArray
from llm_planner_interfaces.srv import ClearScene
from llm_planner_ros.domain.config import ConfigError, DomainConfig, load_domain_config
from llm_planner_ros.domain.robot_state import RobotState
from llm_planner_ros.perception.backends import BACKENDS, BackendOptions, make_detector
from llm_planner_ros.perception.detection import DetectorError, View
from llm_planner_ros.perception.geometry import Transform
from llm_planner_ros.perception.pipeline import PerceptionConfig, ScenePerception
from llm_planner_ros.perception.places import DEFAULT_PLACE_RADIUS_M, PlaceAssigner
from llm_planner_ros.perception.pose_history import PoseHistory
from llm_planner_ros.perception.ros_messages import (
    ImageFormatError,
    depth_from_msg,
    draw_detections,
    intrinsics_from_msg,
    rgb_from_msg,
    rgb_to_msg,
    scene_markers,
    scene_msg,
)
from llm_planner_ros.perception.tracking import Observation, TrackerConfig
from llm_planner_ros.ros.node_startup import StartupError, run_node
from llm_planner_ros.ros.parameters import Parameter, declare_parameters
from llm_planner_ros.ros.topics import CLEAR_SCENE_SERVICE, SCENE_TOPIC, STATE_QOS, full_name

QUERIES_TOPIC = "perception/queries"
DEBUG_IMAGE_TOPIC = "perception/debug_image"
MARKERS_TOPIC = "perception/markers"
STATUS_TOPIC = "perception/status"

PARAMETERS = {
    "backend": Parameter("embedded", "detector backend", choices=BACKENDS),
    "model_dir": Parameter("", "OWL-ViT/OWLv2 model folder (transformers save) for backends owlvit, owlv2"),
    "encoder_path": Parameter(
        "",
        "region encoder of the embedded backend (empty: the domain folder's region_encoder.safetensors, else "
        "data/perception/region_encoder.safetensors)",
    ),
    "embedder_dir": Parameter(
        "", "sentence-transformers folder for the text queries (empty: embedded all-MiniLM-L6-v2)"
    ),
    "box_threshold": Parameter(0.1, "OWL box score floor before non-maximum suppression", minimum=0.0, maximum=1.0),
    "min_score": Parameter(0.3, "detections scoring less are dropped", minimum=0.0, maximum=1.0),
    "vocabulary": Parameter("", "comma-separated text queries (empty: the world file's labels and their synonyms)"),
    "world_file": Parameter(
        "", "world YAML for places, labels and the map frame (empty: the default domain's, config/domains.yaml)"
    ),
    "place_radius_m": Parameter(
        DEFAULT_PLACE_RADIUS_M, "objects farther from every place get location ''", minimum=0.0
    ),
    "rgb_topic": Parameter("camera/color/image_raw", "colour image topic"),
    "depth_topic": Parameter("camera/depth/image_raw", "depth image topic (registered to the colour camera)"),
    "camera_info_topic": Parameter("camera/color/camera_info", "CameraInfo of the colour camera"),
    "camera_pose_topic": Parameter("", "PoseStamped of the optical camera frame in the map (empty: camera_pose)"),
    "camera_pose": Parameter(
        [0.0, 0.0, 1.5, -0.5, 0.5, -0.5, 0.5], "fixed camera pose in the map: x, y, z, qx, qy, qz, qw (optical frame)"
    ),
    "rate_hz": Parameter(5.0, "most frames processed per second", minimum=0.01),
    "sync_slop_s": Parameter(
        0.05, "largest stamp difference of a colour/depth pair and of a frame and its camera pose", minimum=0.0
    ),
    "stale_after_s": Parameter(2.0, "no frame for this long: status stale, error logged", minimum=0.01),
    "forget_after_s": Parameter(60.0, "objects not seen for this long leave the scene", minimum=0.0),
    "robot_state_topic": Parameter(
        "",
        "robot-state record (JSON, llm_planner_ros.domain.robot_state): picked-up objects leave the scene (empty: off)",
    ),
    "reach_m": Parameter(1.2, "farthest an object the robot picks up stands from its base (m)", minimum=0.0),
}


class PerceptionNode(Node):
    """ROS adapter around ``ScenePerception``: message conversion, frame pairing, publishing."""

    def __init__(self) -> None:
        super().__init__("perception")
        p = declare_parameters(self, PARAMETERS)
        try:
            world = load_domain_config(p["world_file"] or None)
        except (ConfigError, OSError) as error:
            raise StartupError(f"cannot load the world file: {error}") from error
        if len(p["camera_pose"]) != 7:
            raise StartupError("parameter camera_pose needs 7 numbers: x, y, z, qx, qy, qz, qw")
        try:
            pose = Transform.from_pose(tuple(p["camera_pose"][:3]), tuple(p["camera_pose"][3:7]))
            detector = make_detector(
                p["backend"],
                BackendOptions(p["model_dir"], p["encoder_path"], p["embedder_dir"], p["box_threshold"], world.source),
            )
        except (DetectorError, ValueError) as error:
            raise StartupError(f"cannot start perception: {error}") from error
        config = PerceptionConfig(min_score=p["min_score"], tracker=TrackerConfig(forget_after_s=p["forget_after_s"]))
        places = PlaceAssigner.of_world(world, p["place_radius_m"])
        self._perception = ScenePerception(detector, places, config)
        self._frame_id = world.frame_id
        self._vocabulary = [q.strip() for q in p["vocabulary"].split(",") if q.strip()] or _queries(world)
        # A synonym's detections are reported under the label the planner knows.
        self._aliases = {word: label for label in world.labels for word in world.names(label)}
        self._extra: list[str] = []
        self._camera = pose
        self._poses = PoseHistory()
        self._pose_topic = bool(p["camera_pose_topic"])
        self._slop = p["sync_slop_s"]
        self._stale_after = p["stale_after_s"]
        self._lock = threading.Lock()
        self._rgb: Image | None = None
        self._depth: Image | None = None
        self._info: CameraInfo | None = None
        self._last_pair: tuple[int, int] | None = None
        self._last_frame_time: float | None = None
        self._started = time.monotonic()
        self._state = "waiting"
        self._latency_ms = 0.0
        self._reported: set[str] = set()
        self._reach = p["reach_m"]
        self._holding: tuple[str, str, tuple[float, float]] | None = None  # id, label held, where the robot is
        self._picked: tuple[str, tuple[float, float]] | None = None  # a pick not yet taken out of the tracks
        self._released: tuple[str, str, tuple[float, float]] | None = None  # put down, its track not named yet
        self._known: set[str] | None = None  # track ids at the first frame after the put down

        self._scene_pub = self.create_publisher(SceneObjectArray, SCENE_TOPIC, STATE_QOS)
        self._status_pub = self.create_publisher(String, STATUS_TOPIC, STATE_QOS)
        self._debug_pub = self.create_publisher(Image, DEBUG_IMAGE_TOPIC, 1)
        self._markers_pub = self.create_publisher(MarkerArray, MARKERS_TOPIC, 1)
        topic_keys = ("rgb_topic", "depth_topic", "camera_info_topic", "camera_pose_topic")
        self._topics = {key: full_name(self, p[key]) for key in topic_keys if p[key]}
        self.create_subscription(Image, p["rgb_topic"], lambda m: self._keep("_rgb", m), qos_profile_sensor_data)
        self.create_subscription(Image, p["depth_topic"], lambda m: self._keep("_depth", m), qos_profile_sensor_data)
        self.create_subscription(
            CameraInfo, p["camera_info_topic"], lambda m: self._keep("_info", m), qos_profile_sensor_data
        )
        self.create_subscription(String, QUERIES_TOPIC, self._on_queries, STATE_QOS)
        if p["camera_pose_topic"]:
            self.create_subscription(PoseStamped, p["camera_pose_topic"], self._on_pose, 10)
        if p["robot_state_topic"]:
            self.create_subscription(String, p["robot_state_topic"], self._on_robot_state, STATE_QOS)
        # One group for frames and clears: a clear never lands in the middle of a frame's tracking.
        frames = MutuallyExclusiveCallbackGroup()
        self._timer = self.create_timer(1.0 / p["rate_hz"], self._tick, callback_group=frames)
        self.create_service(ClearScene, CLEAR_SCENE_SERVICE, self._on_clear, callback_group=frames)
        self._publish_status()
        self.get_logger().info(
            f"perception with the {detector.name} detector, {len(self._vocabulary)} queries, frames from "
            f"{self._topics['rgb_topic']} + {self._topics['depth_topic']}; scene on {full_name(self, SCENE_TOPIC)}"
        )

    def _keep(self, slot: str, msg: Image | CameraInfo) -> None:
        with self._lock:
            setattr(self, slot, msg)

    def _on_pose(self, msg: PoseStamped) -> None:
        position, q = msg.pose.position, msg.pose.orientation
        try:
            pose = Transform.from_pose((position.x, position.y, position.z), (q.x, q.y, q.z, q.w))
        except ValueError as error:
            self._report_once(f"ignoring camera pose: {error}")
            return
        with self._lock:
            self._poses.add(_seconds(msg.header.stamp), pose)

    def _on_robot_state(self, msg: String) -> None:
        try:
            state = RobotState.from_json(msg.data)
        except ValueError as error:
            self._report_once(f"ignoring robot-state record: {error}")
            return
        here = (state.position.x, state.position.y)
        with self._lock:
            before = self._holding
            held = None if state.holding is None or state.holding_label is None else state.holding
            self._holding = None if held is None else (held, str(state.holding_label), here)
            if before is not None and before[0] != held:
                self._released, self._known = (before[0], before[1], here), None
            if self._holding is not None and (before is None or before[0] != held):
                self._picked = (self._holding[1], here)

    def _on_queries(self, msg: String) -> None:
        try:
            queries = json.loads(msg.data)
            if not isinstance(queries, list) or not all(isinstance(q, str) and q.strip() for q in queries):
                raise ValueError("not a JSON list of non-empty strings")
        except ValueError as error:
            self.get_logger().error(f'ignoring {full_name(self, QUERIES_TOPIC)} message: {error}; send e.g. ["mug"]')
            return
        with self._lock:
            self._extra = [q.strip() for q in queries if q.strip() not in self._vocabulary]
        self.get_logger().info(f"extra queries: {self._extra}")

    def _on_clear(self, _request: ClearScene.Request, response: ClearScene.Response) -> ClearScene.Response:
        with self._lock:
            # A frame already received may show the world before the reset.
            self._rgb = self._depth = None
            self._picked = self._released = self._known = None
        response.forgotten = self._perception.clear()
        response.success = True
        response.message = f"forgot {response.forgotten} object(s); the scene refills from frames after this call"
        self.get_logger().info(response.message)
        stamp = self.get_clock().now().to_msg()
        self._scene_pub.publish(scene_msg([], stamp, self._frame_id))
        self._markers_pub.publish(scene_markers([], stamp, self._frame_id))
        self._publish_status()
        return response

    def _tick(self) -> None:
        with self._lock:
            rgb, depth, info = self._rgb, self._depth, self._info
            camera = self._frame_pose(rgb)
            queries = [*self._vocabulary, *self._extra]
            holding, picked, self._picked = self._holding, self._picked, None
            released = self._released
            if released is not None and self._known is None:
                self._known = {t.id for t in self._perception.tracks()}
            known = self._known or set()
        if picked is not None and (track := self._perception.picked_up(*picked, self._reach)) is not None:
            self.get_logger().info(f"{track.id} ({track.label}) picked up by the robot: out of the scene")
        pair = None if rgb is None or depth is None else (rgb.header.stamp.sec, rgb.header.stamp.nanosec)
        if pair is None or info is None or camera is None or pair == self._last_pair:
            self._check_stale()
            return
        if abs(_seconds(rgb.header.stamp) - _seconds(depth.header.stamp)) > self._slop:
            self._check_stale()
            return
        self._last_pair = pair
        try:
            view = View(rgb_from_msg(rgb), depth_from_msg(depth), intrinsics_from_msg(info), camera)
            if view.rgb.shape[:2] != view.depth.shape or view.depth.shape != (info.height, info.width):
                raise ImageFormatError(
                    f"colour {view.rgb.shape[1]}x{view.rgb.shape[0]}, "
                    f"depth {view.depth.shape[1]}x{view.depth.shape[0]} and "
                    f"camera_info {info.width}x{info.height} differ: "
                    "register depth to the colour camera"
                )
        except ImageFormatError as error:
            self._report_once(str(error))
            return
        not_held = _not_held(None if holding is None else holding[1:], self._reach)
        result = self._perception.process(view, queries, _seconds(rgb.header.stamp), not_held, self._aliases)
        if released is not None and self._perception.put_down(*released, self._reach, known):
            self.get_logger().info(f"{released[0]} ({released[1]}) put down by the robot: seen again")
            with self._lock:
                if self._released == released:
                    self._released = None
        self._last_frame_time = time.monotonic()
        self._latency_ms = result.total_s * 1000.0
        self._state = "ok"
        stamp = rgb.header.stamp
        self._scene_pub.publish(scene_msg(result.tracks, stamp, self._frame_id))
        self._markers_pub.publish(scene_markers(result.tracks, stamp, self._frame_id))
        self._debug_pub.publish(rgb_to_msg(draw_detections(view.rgb, result.detections), stamp, rgb.header.frame_id))
        self._publish_status()

    def _frame_pose(self, rgb: Image | None) -> Transform | None:
        """The camera pose of the frame ``rgb`` (the fixed one without a pose topic); None while it has
        not arrived. Called under the lock."""
        if not self._pose_topic:
            return self._camera
        return None if rgb is None else self._poses.at(_seconds(rgb.header.stamp), self._slop)

    def _check_stale(self) -> None:
        since = self._last_frame_time if self._last_frame_time is not None else self._started
        age = time.monotonic() - since
        if age <= self._stale_after or self._state == "stale":
            return
        self._state = "stale"
        what = "no RGB-D frame yet" if self._last_frame_time is None else f"no RGB-D frame for {age:.1f} s"
        topics = f"{self._topics['rgb_topic']}, {self._topics['depth_topic']} and {self._topics['camera_info_topic']}"
        if self._pose_topic:
            topics = (
                f"{topics} with a pose on {self._topics['camera_pose_topic']} "
                f"(newest pose stamp {self._poses.newest_stamp()}; publish one per frame, with the frame's stamp)"
            )
        self.get_logger().error(
            f"{what} on {topics} (stamps within {self._slop} s): is the camera publishing? "
            f"{full_name(self, SCENE_TOPIC)} keeps the last perceived scene, marked stale on "
            f"{full_name(self, STATUS_TOPIC)}"
        )
        self._publish_status()

    def _publish_status(self) -> None:
        since = self._last_frame_time
        status = {
            "state": self._state,
            "frame_age_s": None if since is None else round(time.monotonic() - since, 3),
            "objects": len(self._perception.tracks()),
            "backend": self._perception.detector.name,
            "latency_ms": round(self._latency_ms, 1),
        }
        self._status_pub.publish(String(data=json.dumps(status)))

    def _report_once(self, message: str) -> None:
        if message not in self._reported:
            self._reported.add(message)
            self.get_logger().error(message)


def _not_held(holding: tuple[str, tuple[float, float]] | None, reach: float) -> Callable[[Observation], bool] | None:
    """Which observations may start a track while the robot holds an object: not one of the held label
    within its reach (the held object seen in the gripper)."""
    if holding is None:
        return None
    label, (x, y) = holding
    return lambda obs: obs.label != label or math.hypot(obs.centre[0] - x, obs.centre[1] - y) > reach


def _queries(world: DomainConfig) -> list[str]:
    """The world's object labels, each followed by its synonyms."""
    return [text for label in world.labels for text in world.names(label)]


def _seconds(stamp: object) -> float:
    return stamp.sec + stamp.nanosec * 1e-9  # type: ignore[attr-defined]


def main(args: list[str] | None = None) -> None:
    raise SystemExit(run_node(PerceptionNode, threads=4, args=args))
