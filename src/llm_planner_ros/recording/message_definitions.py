"""The ``ros2msg`` schema text of a message type, as rosbag2 stores it in an MCAP file.

The text is the type's own ``.msg`` definition, then, for every type it nests (depth first, each once), a
line of 80 ``=``, ``MSG: pkg/Type`` and that type's definition: what Foxglove, ``ros2 bag`` and the
MCAP ROS 2 decoders parse to read the CDR bytes without the type installed. The ``.msg`` files are read
from the packages' ``share`` folders (``AMENT_PREFIX_PATH``, else this Python's prefix, where the ROS
wheels put them); which types a type nests comes from its generated Python class.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from pathlib import Path
from typing import Any

SEPARATOR = "=" * 80
_NESTED = re.compile(r"([A-Za-z0-9_]+)/([A-Za-z0-9_]+)")


class DefinitionError(LookupError):
    """A message type whose class or ``.msg`` file cannot be found; the message names what to install."""


def message_class(type_name: str) -> Any:
    """The generated class of ``pkg/msg/Type`` (or ``pkg/Type``)."""
    package, _, name = _split(type_name)
    try:
        return getattr(importlib.import_module(f"{package}.msg"), name)
    except (ImportError, AttributeError) as error:
        raise DefinitionError(
            f"message type {type_name} is not installed: build or install its interface package"
        ) from error


def schema_text(type_name: str) -> str:
    """The ``ros2msg`` schema of ``pkg/msg/Type``: its definition and every nested type's."""
    package, _, name = _split(type_name)
    parts = [_definition(package, name)]
    for nested in _nested_types(f"{package}/{name}", set()):
        nested_package, _, nested_name = _split(nested)
        parts.append(f"{SEPARATOR}\nMSG: {nested_package}/{nested_name}\n{_definition(nested_package, nested_name)}")
    return "\n".join(parts)


def _nested_types(type_name: str, seen: set[str]) -> list[str]:
    """Every message type ``type_name`` nests, depth first, each once (``seen`` collects them)."""
    found: list[str] = []
    for field_type in message_class(type_name).get_fields_and_field_types().values():
        for package, name in _NESTED.findall(field_type):
            nested = f"{package}/{name}"
            if nested not in seen:
                seen.add(nested)
                found.append(nested)
                found += _nested_types(nested, seen)
    return found


def _definition(package: str, name: str) -> str:
    for share in _share_folders():
        path = share / package / "msg" / f"{name}.msg"
        if path.is_file():
            return path.read_text(encoding="utf-8").rstrip("\n")
    raise DefinitionError(
        f"no {package}/msg/{name}.msg in any share folder ({', '.join(str(s) for s in _share_folders())}): "
        "install the interface package with its share files (make setup)"
    )


def _share_folders() -> list[Path]:
    prefixes = [p for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p] + [sys.prefix]
    return [Path(prefix) / "share" for prefix in dict.fromkeys(prefixes)]


def _split(type_name: str) -> tuple[str, str, str]:
    """(package, interface kind, name) of ``pkg/msg/Type`` or ``pkg/Type``."""
    parts = type_name.split("/")
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    if len(parts) == 2:
        return parts[0], "msg", parts[1]
    raise DefinitionError(f"message type {type_name!r} is not of the form pkg/msg/Type")
