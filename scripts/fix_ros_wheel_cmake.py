"""Rewrite the build machine's Python paths baked into the ROS wheels' exported CMake files.

The ros-jazzy-* wheels were built under /opt/python/cp311-cp311; their
``*__rosidl_generator_pyExport.cmake`` files name that interpreter's include directory and
numpy's include directory, which do not exist here, so any package that generates Python
bindings against them fails to configure. Idempotent: a second run finds nothing to change.
"""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

import numpy

BUILD_MACHINE_PYTHON = "/opt/python/cp311-cp311"


def rewrite(prefix: Path) -> int:
    """Rewrite every exported CMake file under ``prefix/share``; returns how many changed."""
    replacements = {
        f"{BUILD_MACHINE_PYTHON}/include/python3.11": sysconfig.get_paths()["include"],
        f"{BUILD_MACHINE_PYTHON}/lib/python3.11/site-packages/numpy/_core/include": numpy.get_include(),
    }
    changed = 0
    for path in (prefix / "share").glob("*/cmake/*.cmake"):
        text = path.read_text()
        if BUILD_MACHINE_PYTHON not in text:
            continue
        for old, new in replacements.items():
            text = text.replace(old, new)
        path.write_text(text)
        changed += 1
    return changed


if __name__ == "__main__":
    prefix = Path(sys.argv[1] if len(sys.argv) > 1 else sys.prefix)
    print(f"fix_ros_wheel_cmake: rewrote {rewrite(prefix)} CMake file(s) under {prefix}/share")
