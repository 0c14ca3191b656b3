"""Conversions between perception's arrays and ROS messages (sensor_msgs, the scene, markers), numpy only
(cv_bridge is not available from wheels)."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from builtin_interfaces.msg import Time
from geometry_msgs.msg import PoseStamped, Vector3
from sensor_msgs.msg import CameraInfo, Image
from visualization_msgs.msg import Marker, MarkerArray

from llm_planner_interfaces.msg import SceneObject, SceneObjectArray
from llm_planner_ros.perception.detection import Detection
from llm_planner_ros.perception.geometry import Intrinsics
from llm_planner_ros.perception.tracking import Track

_COLOUR_CHANNELS = {"rgb8": (3, False), "bgr8": (3, True), "rgba8": (4, False), "bgra8": (4, True)}
MARKER_NAMESPACE = "perception"


class ImageFormatError(ValueError):
    """An Image whose encoding or size perception cannot read; the message names what it accepts."""


def _pixels(msg: Image, dtype: np.dtype, channels: int) -> np.ndarray:
    item = np.dtype(dtype).itemsize * channels
    if msg.step < msg.width * item or len(msg.data) < msg.step * msg.height:
        raise ImageFormatError(
            f"{msg.encoding} image of {msg.width}x{msg.height} has too little data ({len(msg.data)} bytes)"
        )
    dtype = np.dtype(dtype).newbyteorder(">" if msg.is_bigendian else "<")
    rows = np.frombuffer(bytes(msg.data), dtype=np.uint8).reshape(msg.height, msg.step)[:, : msg.width * item]
    return rows.copy().view(dtype).reshape(msg.height, msg.width, channels)


def rgb_from_msg(msg: Image) -> np.ndarray:
    """(H, W, 3) uint8 RGB from an rgb8, bgr8, rgba8, bgra8 or mono8 Image."""
    if msg.encoding == "mono8":
        return np.repeat(_pixels(msg, np.uint8, 1), 3, axis=2)
    if msg.encoding not in _COLOUR_CHANNELS:
        raise ImageFormatError(
            f"colour image encoding {msg.encoding!r} not supported: publish rgb8, bgr8, rgba8, bgra8 or mono8"
        )
    channels, bgr = _COLOUR_CHANNELS[msg.encoding]
    pixels = _pixels(msg, np.uint8, channels)[:, :, :3]
    return np.ascontiguousarray(pixels[:, :, ::-1] if bgr else pixels)


def depth_from_msg(msg: Image) -> np.ndarray:
    """(H, W) float32 metres from a 32FC1 (metres) or 16UC1 (millimetres) Image; 0 where unknown."""
    if msg.encoding == "32FC1":
        depth = _pixels(msg, np.float32, 1)[:, :, 0].astype(np.float32)
    elif msg.encoding in ("16UC1", "mono16"):
        depth = _pixels(msg, np.uint16, 1)[:, :, 0].astype(np.float32) / 1000.0
    else:
        raise ImageFormatError(f"depth image encoding {msg.encoding!r} not supported: publish 32FC1 (m) or 16UC1 (mm)")
    return np.where(np.isfinite(depth), depth, 0.0).astype(np.float32)


def rgb_to_msg(rgb: np.ndarray, stamp: Time, frame_id: str) -> Image:
    """An rgb8 Image of (H, W, 3) uint8."""
    msg = Image(height=int(rgb.shape[0]), width=int(rgb.shape[1]), encoding="rgb8", is_bigendian=0)
    msg.step = msg.width * 3
    msg.data = np.ascontiguousarray(rgb, dtype=np.uint8).tobytes()
    msg.header.stamp, msg.header.frame_id = stamp, frame_id
    return msg


def depth_to_msg(depth: np.ndarray, stamp: Time, frame_id: str) -> Image:
    """A 32FC1 Image (metres) of (H, W) float32."""
    msg = Image(height=int(depth.shape[0]), width=int(depth.shape[1]), encoding="32FC1", is_bigendian=0)
    msg.step = msg.width * 4
    msg.data = np.ascontiguousarray(depth, dtype="<f4").tobytes()
    msg.header.stamp, msg.header.frame_id = stamp, frame_id
    return msg


def intrinsics_from_msg(msg: CameraInfo) -> Intrinsics:
    """The pinhole of a CameraInfo; ImageFormatError for an unset (all-zero) K."""
    if msg.k[0] <= 0 or msg.k[4] <= 0:
        raise ImageFormatError("CameraInfo has no focal length (k[0], k[4] are 0): publish a calibrated camera_info")
    return Intrinsics.from_k(list(msg.k), msg.width, msg.height)


def intrinsics_to_msg(intrinsics: Intrinsics, stamp: Time, frame_id: str) -> CameraInfo:
    msg = CameraInfo(width=intrinsics.width, height=intrinsics.height, distortion_model="plumb_bob")
    msg.k = [intrinsics.fx, 0.0, intrinsics.cx, 0.0, intrinsics.fy, intrinsics.cy, 0.0, 0.0, 1.0]
    msg.p = [intrinsics.fx, 0.0, intrinsics.cx, 0.0, 0.0, intrinsics.fy, intrinsics.cy, 0.0, 0.0, 0.0, 1.0, 0.0]
    msg.r = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    msg.d = [0.0] * 5
    msg.header.stamp, msg.header.frame_id = stamp, frame_id
    return msg


def scene_msg(tracks: Sequence[Track], stamp: Time, frame_id: str) -> SceneObjectArray:
    """The tracked objects as /scene/objects: pose at the object's centre, size its extent, location its place."""
    array = SceneObjectArray()
    array.header.stamp, array.header.frame_id = stamp, frame_id
    for track in tracks:
        pose = PoseStamped()
        pose.header = array.header
        pose.pose.position.x, pose.pose.position.y, pose.pose.position.z = (float(v) for v in track.centre)
        pose.pose.orientation.w = 1.0
        size = Vector3(x=float(track.extent[0]), y=float(track.extent[1]), z=float(track.extent[2]))
        array.objects.append(
            SceneObject(
                id=track.id,
                label=track.label,
                confidence=float(track.confidence),
                pose=pose,
                size=size,
                location=track.place,
            )
        )
    return array


def scene_markers(tracks: Sequence[Track], stamp: Time, frame_id: str) -> MarkerArray:
    """A box and a label per tracked object, after a DELETEALL so objects that went disappear."""
    markers = [Marker(ns=MARKER_NAMESPACE, action=Marker.DELETEALL)]
    for index, track in enumerate(tracks):
        for offset, kind in ((0, Marker.CUBE), (1, Marker.TEXT_VIEW_FACING)):
            marker = Marker(ns=MARKER_NAMESPACE, id=2 * index + offset, type=kind, action=Marker.ADD)
            marker.header.stamp, marker.header.frame_id = stamp, frame_id
            marker.pose.position.x, marker.pose.position.y, marker.pose.position.z = (float(v) for v in track.centre)
            marker.pose.orientation.w = 1.0
            marker.color.r, marker.color.g, marker.color.b, marker.color.a = 0.1, 0.8, 0.3, 0.5 if offset == 0 else 1.0
            if kind == Marker.CUBE:
                marker.scale.x, marker.scale.y, marker.scale.z = (max(float(v), 0.01) for v in track.extent)
            else:
                marker.pose.position.z += float(track.extent[2]) / 2.0 + 0.05
                marker.scale.z = 0.05
                marker.text = f"{track.id} {track.label} {track.confidence:.2f}"
            markers.append(marker)
    return MarkerArray(markers=markers)


def draw_detections(rgb: np.ndarray, detections: Sequence[Detection]) -> np.ndarray:
    """A copy of ``rgb`` with each detection's box and ``label score``."""
    canvas = np.ascontiguousarray(rgb.copy())
    for detection in detections:
        x0, y0, x1, y1 = detection.box
        cv2.rectangle(canvas, (x0, y0), (x1 - 1, y1 - 1), (0, 255, 0), 1)
        cv2.putText(
            canvas,
            f"{detection.label} {detection.score:.2f}",
            (x0, max(y0 - 3, 8)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.3,
            (0, 255, 0),
            1,
        )
    return canvas
