"""The Fast DDS profile file every process of this project starts with (config/fastdds_profiles.xml).

It makes a service server wait up to 5 s for a client's reply path to be discovered before giving up on
the reply, instead of rmw_fastrtps's 100 ms (the file says why). Without it a planner whose
llm_service had just restarted sent a scoring request, the new server answered into a reply path it
had not discovered yet, and the planner waited out its whole LLM timeout (seen in CI under load).

Fast DDS reads the file named by an environment variable when the process creates its first participant,
so ``use_project_profiles`` must run before ``rclpy.init``. A file the user chose is kept, and another RMW
implementation gets nothing.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

from llm_planner_ros.paths import config_file

PROFILES_FILE = "fastdds_profiles.xml"
# Fast DDS 2.x reads the first; 3.x the second. A user's value in either one wins.
PROFILE_VARIABLES = ("FASTRTPS_DEFAULT_PROFILES_FILE", "FASTDDS_DEFAULT_PROFILES_FILE")
FASTDDS_RMW = "rmw_fastrtps_cpp"


def use_project_profiles(environ: MutableMapping[str, str] | None = None) -> str | None:
    """Point Fast DDS at the project's profile file; returns the path set, or None when the user named
    a profile file of their own or chose an RMW implementation other than Fast DDS (the default one)."""
    env = os.environ if environ is None else environ
    if any(env.get(name) for name in PROFILE_VARIABLES):
        return None
    if env.get("RMW_IMPLEMENTATION", FASTDDS_RMW) != FASTDDS_RMW:
        return None
    path = str(config_file(PROFILES_FILE))
    for name in PROFILE_VARIABLES:
        env[name] = path
    return path
