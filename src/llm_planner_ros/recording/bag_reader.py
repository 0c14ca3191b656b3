"""Reads the messages of a rosbag2 bag with MCAP storage (``recording.bag``'s, or ``ros2 bag record -s mcap``'s)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml
from mcap.reader import make_reader

from llm_planner_ros.kitchen_domain.validation import InputError
from llm_planner_ros.recording.bag import METADATA_FILE


class BagReadError(InputError, ValueError):
    """A path that is no readable bag; the message says what is missing."""


@dataclass(frozen=True)
class BagMessage:
    """One recorded message: its topic, type (``pkg/msg/Type``), receive time (ns since the epoch) and CDR bytes."""

    topic: str
    type_name: str
    log_time_ns: int
    data: bytes


def bag_files(bag: Path) -> list[Path]:
    """The MCAP files of ``bag``: a bag folder's (its metadata.yaml lists them) or one ``.mcap`` file."""
    if bag.is_file():
        return [bag]
    metadata = bag / METADATA_FILE
    if not metadata.is_file():
        raise BagReadError(f"{bag} is neither an .mcap file nor a bag folder with {METADATA_FILE}")
    info = (yaml.safe_load(metadata.read_text()) or {}).get("rosbag2_bagfile_information", {})
    if info.get("storage_identifier") != "mcap":
        raise BagReadError(f"{metadata}: storage {info.get('storage_identifier')!r} is not mcap; record with -s mcap")
    return [bag / name for name in info.get("relative_file_paths", [])]


def read_messages(bag: Path, topics: list[str] | None = None) -> Iterator[BagMessage]:
    """Every message of ``bag`` (only ``topics`` when given), in receive order per file."""
    for path in bag_files(bag):
        with path.open("rb") as stream:
            for schema, channel, message in make_reader(stream).iter_messages(topics=topics, log_time_order=True):
                type_name = schema.name if schema is not None else ""
                yield BagMessage(channel.topic, type_name, message.log_time, message.data)
