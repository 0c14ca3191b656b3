"""Reads the messages of a rosbag2 bag with MCAP storage (``recording.bag``'s, or ``ros2 bag record -s mcap``'s),
with the format's checks on, keeping what is intact of a damaged file.

An MCAP file is a run of records (opcode, length, body): schemas, channels, and chunks that hold the
messages compressed, with the CRC of their uncompressed bytes; then a DataEnd with the data section's CRC,
and a summary (the chunks' offsets) with its own CRC in the footer. The file is read record by record: a
chunk that fails to decompress or its CRC check is skipped and named, and reading goes on at the next one.
Where the records' framing itself is broken (a cut-off file, a damaged length), reading resumes at the next
chunk the summary lists, if the summary is intact. ``mcap.reader`` instead raised on the first damaged byte
(or, with its CRC checks off, as they are by default, returned garbage without a word).
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

import yaml
import zstandard
from mcap.data_stream import ReadDataStream
from mcap.exceptions import McapError
from mcap.opcode import Opcode
from mcap.records import Channel, Chunk, ChunkIndex, DataEnd, Footer, Message, Schema
from mcap.stream_reader import CRCValidationError, StreamReader, breakup_chunk

from llm_planner_ros.domain.validation import InputError
from llm_planner_ros.recording.bag import METADATA_FILE

MCAP_MAGIC = b"\x89MCAP0\r\n"
_HEAD = struct.Struct("<BQ")  # a record's opcode and body length
_FOOTER_BODY = 8 + 8 + 4  # summary_start, summary_offset_start, summary_crc
_FOOTER_SIZE = _HEAD.size + _FOOTER_BODY
_OPCODES = frozenset(int(opcode) for opcode in Opcode)
# What parsing a damaged record can raise: mcap's own errors, a short read, bad UTF-8, zstd's and lz4's.
_PARSE_ERRORS = (McapError, ValueError, struct.error, EOFError, RuntimeError, zstandard.ZstdError)


class BagReadError(InputError, ValueError):
    """A path that is no readable bag, or a damaged one; the message says what is missing or damaged."""


@dataclass(frozen=True)
class BagMessage:
    """One recorded message: its topic, type (``pkg/msg/Type``), receive time (ns since the epoch) and CDR bytes."""

    topic: str
    type_name: str
    log_time_ns: int
    data: bytes


@dataclass(frozen=True)
class Damage:
    """A part of a bag's file that could not be read: where it begins (byte offset; None: no one place) and
    what is wrong."""

    file: Path
    offset: int | None
    what: str

    def __str__(self) -> str:
        return f"{self.file}{'' if self.offset is None else f' at byte {self.offset}'}: {self.what}"


def bag_files(bag: Path) -> list[Path]:
    """The MCAP files of ``bag``: a bag folder's (its metadata.yaml lists them) or one ``.mcap`` file."""
    if bag.is_file():
        return [bag]
    metadata = bag / METADATA_FILE
    if not metadata.is_file():
        raise BagReadError(f"{bag} is neither an .mcap file nor a bag folder with {METADATA_FILE}")
    try:
        info = yaml.safe_load(metadata.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise BagReadError(
            f"{metadata} is not YAML ({error}); it is damaged: `ros2 bag reindex` rewrites it"
        ) from error
    info = info.get("rosbag2_bagfile_information") if isinstance(info, dict) else None
    if not isinstance(info, dict):
        raise BagReadError(f"{metadata} has no rosbag2_bagfile_information mapping; it is no rosbag2 metadata file")
    if info.get("storage_identifier") != "mcap":
        raise BagReadError(f"{metadata}: storage {info.get('storage_identifier')!r} is not mcap; record with -s mcap")
    files = [bag / str(name) for name in info.get("relative_file_paths") or []]
    if missing := [str(path) for path in files if not path.is_file()]:
        raise BagReadError(f"{metadata} lists {', '.join(missing)}, which is not there: give the whole bag folder")
    return files


def read_messages(
    bag: Path, topics: list[str] | None = None, damage: list[Damage] | None = None
) -> Iterator[BagMessage]:
    """Every intact message of ``bag`` (only ``topics`` when given), in the order each file holds them (the
    order they were received, for a recording). Each damaged part is appended to ``damage`` and skipped;
    without a ``damage`` list, the first one raises BagReadError."""

    def report(part: Damage) -> None:
        if damage is None:
            raise BagReadError(f"{part}; the bag is damaged")
        damage.append(part)

    for path in bag_files(bag):
        with path.open("rb") as stream:
            yield from _FileScan(path, stream, report).messages(topics)


@dataclass
class _Summary:
    """What an intact summary section gives: the definitions, and where each chunk begins."""

    schemas: dict[int, Schema] = field(default_factory=dict)
    channels: dict[int, Channel] = field(default_factory=dict)
    chunk_offsets: list[int] = field(default_factory=list)


class _FileScan:
    """Reads one MCAP file record by record, reporting each damaged part to ``report`` and skipping it."""

    def __init__(self, path: Path, stream: BinaryIO, report: Callable[[Damage], None]) -> None:
        self.path = path
        self.stream = stream
        self.size = stream.seek(0, io.SEEK_END)
        self.report = report
        self.schemas: dict[int, Schema] = {}
        self.channels: dict[int, Channel] = {}
        self.undefined: dict[int, int] = {}  # messages of a channel no intact record defines, by channel id
        self.damaged_parts = 0

    def messages(self, topics: list[str] | None) -> Iterator[BagMessage]:
        self.stream.seek(0)
        if self.stream.read(len(MCAP_MAGIC)) != MCAP_MAGIC:
            self._damaged(0, "not an MCAP file: it does not begin with the MCAP magic bytes")
            return
        summary, summary_fault = self._summary()
        if summary is not None:
            self.schemas.update(summary.schemas)
            self.channels.update(summary.channels)
        offset = len(MCAP_MAGIC)
        data_crc = zlib.crc32(MCAP_MAGIC)
        while True:
            head = self._read_at(offset, _HEAD.size)
            opcode, length = _HEAD.unpack(head) if len(head) == _HEAD.size else (None, 0)
            if opcode not in _OPCODES or offset + _HEAD.size + length > self.size:
                resume = next((o for o in summary.chunk_offsets if o > offset), None) if summary else None
                self._damaged(offset, self._framing_fault(offset, opcode, length, resume))
                if resume is None:
                    break
                offset = resume
                continue
            body = self.stream.read(length)
            if opcode == Opcode.DATA_END:
                # Checked only when nothing was found damaged: a damaged part explains the mismatch already.
                self._check_data_crc(offset, body, data_crc if not self.damaged_parts else None)
                if summary_fault:
                    self._damaged(offset + _HEAD.size + length, summary_fault)
                break
            if opcode == Opcode.FOOTER:
                break  # a file without DataEnd (an older writer): its data section ends here
            data_crc = zlib.crc32(body, zlib.crc32(head, data_crc))
            for message in self._messages_of(offset, opcode, body):
                channel = self.channels.get(message.channel_id)
                if channel is None:
                    self.undefined[message.channel_id] = self.undefined.get(message.channel_id, 0) + 1
                elif topics is None or channel.topic in topics:
                    schema = self.schemas.get(channel.schema_id)
                    yield BagMessage(channel.topic, schema.name if schema else "", message.log_time, message.data)
            offset += _HEAD.size + length
        for channel_id, count in self.undefined.items():
            self._damaged(
                None, f"{count} messages of channel {channel_id} skipped: its definition is in a damaged part"
            )

    def _messages_of(self, offset: int, opcode: int, body: bytes) -> list[Message]:
        """The messages one record holds (a chunk's, or a message outside chunks), taking in the schemas and
        channels it defines; a record that fails to parse, decompress or its CRC check is reported."""
        try:
            if opcode == Opcode.CHUNK:
                chunk = Chunk.read(ReadDataStream(io.BytesIO(body)))
                records = breakup_chunk(chunk, validate_crc=True)
            elif opcode == Opcode.SCHEMA:
                records = [Schema.read(ReadDataStream(io.BytesIO(body)))]
            elif opcode == Opcode.CHANNEL:
                records = [Channel.read(ReadDataStream(io.BytesIO(body)))]
            elif opcode == Opcode.MESSAGE:
                records = [Message.read(ReadDataStream(io.BytesIO(body)), len(body))]
            else:
                return []
        except _PARSE_ERRORS as error:
            self._damaged(offset, self._record_fault(opcode, body, error))
            return []
        messages: list[Message] = []
        for record in records:
            if isinstance(record, Schema):
                self.schemas[record.id] = record
            elif isinstance(record, Channel):
                self.channels[record.id] = record
            elif isinstance(record, Message):
                messages.append(record)
        return messages

    def _summary(self) -> tuple[_Summary | None, str | None]:
        """The summary section, when the footer and the summary's CRC are intact; else None and what is wrong
        (None too for a file written without one)."""
        if self.size < 2 * len(MCAP_MAGIC) + _FOOTER_SIZE or self._read_at(self.size - 8, 8) != MCAP_MAGIC:
            return None, "the file does not end with the MCAP magic bytes"
        footer_at = self.size - len(MCAP_MAGIC) - _FOOTER_SIZE
        footer_bytes = self._read_at(footer_at, _FOOTER_SIZE)
        if _HEAD.unpack(footer_bytes[: _HEAD.size]) != (Opcode.FOOTER, _FOOTER_BODY):
            return None, "the footer is damaged"
        footer = Footer.read(ReadDataStream(io.BytesIO(footer_bytes[_HEAD.size :])))
        if footer.summary_start == 0:
            return None, None
        if not len(MCAP_MAGIC) <= footer.summary_start <= footer_at:
            return None, f"the footer's summary offset {footer.summary_start} lies outside the file"
        tail = self._read_at(footer.summary_start, self.size - footer.summary_start)  # to the closing magic
        summary_bytes = tail[: footer_at - footer.summary_start]
        crc = zlib.crc32(footer_bytes[: _FOOTER_SIZE - 4], zlib.crc32(summary_bytes))
        if footer.summary_crc not in (0, crc):
            return (
                None,
                f"the summary section fails its CRC check (stored {footer.summary_crc:#010x}, read {crc:#010x})",
            )
        summary = _Summary()
        try:
            for record in StreamReader(io.BytesIO(tail), skip_magic=True).records:
                if isinstance(record, Schema):
                    summary.schemas[record.id] = record
                elif isinstance(record, Channel):
                    summary.channels[record.id] = record
                elif isinstance(record, ChunkIndex):
                    summary.chunk_offsets.append(record.chunk_start_offset)
        except _PARSE_ERRORS as error:
            return None, f"the summary section cannot be parsed ({error})"
        summary.chunk_offsets.sort()
        return summary, None

    def _check_data_crc(self, offset: int, body: bytes, computed: int | None) -> None:
        """The DataEnd's CRC of the data section, when it has one and every record before it was read."""
        try:
            stored = DataEnd.read(ReadDataStream(io.BytesIO(body))).data_section_crc
        except _PARSE_ERRORS as error:
            self._damaged(offset, f"the DataEnd record is damaged ({error})")
            return
        if computed is not None and stored not in (0, computed):
            self._damaged(
                offset,
                f"the data section fails its CRC check (stored {stored:#010x}, read {computed:#010x}): "
                "a record outside the chunks is damaged",
            )

    def _framing_fault(self, offset: int, opcode: int | None, length: int, resume: int | None) -> str:
        rest = f"reading resumed at the next chunk, byte {resume}" if resume is not None else "the rest is lost"
        if opcode is None or (opcode in _OPCODES and offset + _HEAD.size + length > self.size):
            return f"the file is cut off ({self.size} bytes) inside a record; {rest}"
        return f"no MCAP record begins here (opcode {opcode:#04x}); {rest}"

    def _record_fault(self, opcode: int, body: bytes, error: Exception) -> str:
        if opcode != Opcode.CHUNK:
            return f"{Opcode(opcode).name} record is damaged ({error})"
        try:
            start, end = struct.unpack_from("<QQ", body)
            span = f" (messages logged {clock_time(start)} to {clock_time(end)})"
        except struct.error:
            span = ""
        if isinstance(error, CRCValidationError):
            why = f"its data fails the CRC check (stored {error.expected:#010x}, read {error.actual:#010x})"
        elif isinstance(error, zstandard.ZstdError):
            why = f"its zstd data cannot be decompressed ({error})"
        else:
            why = f"it cannot be parsed ({error})"
        return f"chunk{span}: {why}; its messages are skipped"

    def _read_at(self, offset: int, length: int) -> bytes:
        self.stream.seek(offset)
        return self.stream.read(length)

    def _damaged(self, offset: int | None, what: str) -> None:
        self.damaged_parts += 1
        self.report(Damage(self.path, offset, what))


def clock_time(ns: int) -> str:
    """A log time (ns since the epoch) as a UTC clock time to the ms, or the number when it is no time."""
    try:
        return datetime.fromtimestamp(ns / 1e9, UTC).strftime("%H:%M:%S.%f")[:-3]
    except (OverflowError, OSError, ValueError):
        return str(ns)
