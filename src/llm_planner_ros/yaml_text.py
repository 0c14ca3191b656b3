"""YAML text as every file of the project is read: a mapping key given twice is an error, not the last one.

PyYAML keeps the last of two equal keys without a word, so a place, skill, node name or example listed
twice silently replaced the first. ``load_yaml`` refuses it with ``DuplicateKeyError``, which is a
``yaml.YAMLError`` (readers that report broken YAML report it too) and a ``ValueError`` (readers that
report malformed content do), and names the key and both lines.
"""

from __future__ import annotations

from typing import Any

import yaml


class DuplicateKeyError(yaml.constructor.ConstructorError, ValueError):
    """A mapping key given twice in one YAML mapping; ``str()`` names the key and both lines."""


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses a mapping key given twice."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)  # type: ignore[no-untyped-call]
            try:
                first = seen.setdefault(key, key_node.start_mark.line + 1)
            except TypeError:  # an unhashable key: the base class reports it
                continue
            if first != key_node.start_mark.line + 1:
                raise DuplicateKeyError(
                    None, None, f"{key!r} is given twice (first on line {first}): keep one", key_node.start_mark
                )
        return super().construct_mapping(node, deep=deep)


def load_yaml(text: str, source: str = "<text>") -> Any:
    """The document of YAML ``text`` (read from ``source``, which the errors name with the line), safely
    loaded; DuplicateKeyError for a key given twice in a mapping, another yaml.YAMLError for broken YAML."""
    loader = _UniqueKeyLoader(text)
    loader.name = source  # the name every error's mark quotes: "in '<source>', line 5, column 3"
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()  # type: ignore[no-untyped-call]
