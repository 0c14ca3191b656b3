"""The project's Fast DDS profile (config/fastdds_profiles.xml, ``llm_planner_ros.ros.dds_profile``):
a service server waits for a client's reply path instead of dropping the reply after 100 ms.

The CI failure it fixes: llm_service restarted, the planner's next scoring request reached the
new server before the server had discovered the planner's reply reader, rmw_fastrtps dropped the reply
("failed to send response (timeout)") and the plan waited out its LLM timeout. A reply path that is
never discovered makes the server's wait measurable: a client whose reply reader is reliable cannot
match a best-effort reply writer, while its reliable requests do reach a best-effort request reader.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

from ros_harness import allocate_domain_id

from llm_planner_ros.paths import config_file
from llm_planner_ros.ros.dds_profile import PROFILE_VARIABLES, PROFILES_FILE, use_project_profiles

# One server and one client in one process: the client's request arrives, its reply path never matches,
# and the script prints how long the server's executor spent on the callback that sends the reply.
UNMATCHED_REPLY = """
import time, rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rcl_interfaces.srv import GetParameters
rclpy.init()
server, client = Node("server"), Node("client")
answered = []

def answer(request, reply):
    answered.append(time.monotonic())  # the reply is sent after this returns, inside the same spin
    return reply

qos = lambda reliability: QoSProfile(depth=10, reliability=reliability)
server.create_service(GetParameters, "/q", answer, qos_profile=qos(ReliabilityPolicy.BEST_EFFORT))
caller = client.create_client(GetParameters, "/q", qos_profile=qos(ReliabilityPolicy.RELIABLE))
# wait_for_service would never return: it also waits for the reply path. A request sent before the
# request path matched is lost, so send until the server takes one.
deadline = time.monotonic() + 20.0
while not answered and time.monotonic() < deadline:
    caller.call_async(GetParameters.Request())
    rclpy.spin_once(server, timeout_sec=0.2)
if answered:
    print(f"reply_wait_s={time.monotonic() - answered[0]:.3f}")
"""


def reply_wait_s(env: dict[str, str]) -> float:
    env = {**env, "ROS_DOMAIN_ID": str(allocate_domain_id())}
    done = subprocess.run([sys.executable, "-c", UNMATCHED_REPLY], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "XMLPARSER" not in done.stderr, done.stderr  # Fast DDS found fault with a profile file
    waits = [line for line in done.stdout.splitlines() if line.startswith("reply_wait_s=")]
    assert waits, f"the server never took the request:\n{done.stdout}\n{done.stderr}"
    return float(waits[0].split("=")[1])


def test_a_server_started_with_the_project_profile_waits_seconds_for_the_reply_path_where_the_default_gives_up():
    bare = {k: v for k, v in os.environ.items() if k not in PROFILE_VARIABLES}
    with_profile = dict(bare)
    assert use_project_profiles(with_profile) == str(config_file(PROFILES_FILE))
    assert reply_wait_s(with_profile) > 2.5  # the profile's 5 s, less scheduling
    assert reply_wait_s(bare) < 1.0  # rmw_fastrtps's own 100 ms


def test_the_profile_file_names_the_service_reply_writer_profile_rmw_fastrtps_reads():
    root = ElementTree.parse(config_file(PROFILES_FILE)).getroot()
    ns = {"dds": "http://www.eprosima.com/XMLSchemas/fastRTPS_Profiles"}
    profile = root.find("dds:profiles/dds:publisher[@profile_name='service']", ns)
    assert profile is not None
    assert int(profile.find("dds:qos/dds:reliability/dds:max_blocking_time/dds:sec", ns).text) >= 1


def test_a_profile_file_or_an_rmw_the_user_chose_is_kept():
    own = {"FASTRTPS_DEFAULT_PROFILES_FILE": "/etc/robot/dds.xml"}
    assert use_project_profiles(own) is None
    assert own == {"FASTRTPS_DEFAULT_PROFILES_FILE": "/etc/robot/dds.xml"}
    cyclone = {"RMW_IMPLEMENTATION": "rmw_cyclonedds_cpp"}
    assert use_project_profiles(cyclone) is None
    assert cyclone == {"RMW_IMPLEMENTATION": "rmw_cyclonedds_cpp"}
    fastdds = {"RMW_IMPLEMENTATION": "rmw_fastrtps_cpp"}
    path = use_project_profiles(fastdds)
    assert path is not None and all(fastdds[name] == path for name in PROFILE_VARIABLES)
