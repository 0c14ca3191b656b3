"""A rosbag2 bag written as messages arrive: a folder holding one MCAP file and ``metadata.yaml``.

The layout is what ``ros2 bag record -s mcap`` writes (metadata version 8, ROS 2 Jazzy), so ``ros2 bag
info``, ``ros2 bag play`` and Foxglove open it: each topic is an MCAP channel with ``cdr`` messages and a
``ros2msg`` schema (``recording.message_definitions``), and each message is kept as the CDR bytes the
subscription received, never re-serialized.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import yaml
from mcap.writer import CompressionType, Writer

from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.recording.message_definitions import schema_text

METADATA_FILE = "metadata.yaml"
METADATA_VERSION = 8
ROS_DISTRO = "jazzy"


class BagExistsError(InputError, FileExistsError):
    """The bag folder already holds files: a recording never overwrites one."""


@dataclass
class _Topic:
    type_name: str
    channel: int
    count: int = 0


class BagWriter:
    """Writes one bag into ``folder`` (created; refused when it holds files). ``add_topic`` before a
    topic's first ``write``; ``close`` ends the MCAP file and writes ``metadata.yaml`` (a bag without it
    was not closed: its MCAP file is still readable up to the last chunk written)."""

    def __init__(self, folder: Path) -> None:
        if folder.exists() and any(folder.iterdir()):
            raise BagExistsError(f"{folder} already holds files: give a new folder for the bag")
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.file = folder / f"{folder.name}_0.mcap"
        self._stream: BinaryIO = self.file.open("wb")
        # Data CRCs on: the DataEnd record then checks the records outside the chunks too (the chunks carry
        # their own CRC), so a reader can tell an intact bag from a damaged one (recording.bag_reader).
        self._writer = Writer(self._stream, compression=CompressionType.ZSTD, enable_data_crcs=True)
        self._writer.start(profile="ros2", library="llm_planner_ros")
        self._topics: dict[str, _Topic] = {}
        self._schemas: dict[str, int] = {}
        self._first_ns: int | None = None
        self._last_ns = 0
        self._lock = threading.Lock()
        self._closed = False

    def add_topic(self, topic: str, type_name: str) -> None:
        """Record ``topic`` of ``pkg/msg/Type``; DefinitionError when the type's definition is missing."""
        with self._lock:
            if topic in self._topics:
                return
            schema = self._schemas.get(type_name)
            if schema is None:
                data = schema_text(type_name).encode("utf-8")
                schema = self._writer.register_schema(name=type_name, encoding="ros2msg", data=data)
                self._schemas[type_name] = schema
            channel = self._writer.register_channel(topic=topic, message_encoding="cdr", schema_id=schema)
            self._topics[topic] = _Topic(type_name, channel)

    def write(self, topic: str, data: bytes, stamp_ns: int) -> None:
        """One message of ``topic`` (its CDR bytes) received at ``stamp_ns`` (nanoseconds since the epoch)."""
        with self._lock:
            if self._closed:
                return  # a callback that raced the close: the bag is already complete
            entry = self._topics[topic]
            entry.count += 1
            self._writer.add_message(
                channel_id=entry.channel, log_time=stamp_ns, data=data, publish_time=stamp_ns, sequence=entry.count
            )
            self._first_ns = stamp_ns if self._first_ns is None else min(self._first_ns, stamp_ns)
            self._last_ns = max(self._last_ns, stamp_ns)

    @property
    def message_count(self) -> int:
        return sum(entry.count for entry in self._topics.values())

    def close(self) -> Path:
        """Finish the MCAP file and write ``metadata.yaml``; returns the bag folder."""
        with self._lock:
            if self._closed:
                return self.folder
            self._closed = True
            self._writer.finish()
            self._stream.close()
            (self.folder / METADATA_FILE).write_text(yaml.safe_dump(self._metadata(), sort_keys=False))
        return self.folder

    def _metadata(self) -> dict[str, object]:
        start = self._first_ns or 0
        nanoseconds = self._last_ns - start if self._first_ns is not None else 0
        count = self.message_count
        return {
            "rosbag2_bagfile_information": {
                "version": METADATA_VERSION,
                "storage_identifier": "mcap",
                "duration": {"nanoseconds": nanoseconds},
                "starting_time": {"nanoseconds_since_epoch": start},
                "message_count": count,
                "topics_with_message_count": [
                    {
                        "topic_metadata": {
                            "name": topic,
                            "type": entry.type_name,
                            "serialization_format": "cdr",
                            "offered_qos_profiles": "",
                            "type_description_hash": "",
                        },
                        "message_count": entry.count,
                    }
                    for topic, entry in self._topics.items()
                ],
                "compression_format": "",
                "compression_mode": "",
                "relative_file_paths": [self.file.name],
                "files": [
                    {
                        "path": self.file.name,
                        "starting_time": {"nanoseconds_since_epoch": start},
                        "duration": {"nanoseconds": nanoseconds},
                        "message_count": count,
                    }
                ],
                "custom_data": {},
                "ros_distro": ROS_DISTRO,
            }
        }
