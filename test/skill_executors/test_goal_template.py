"""Goal templates filled into real goal messages (skill_executors.goal_template): nested messages,
sequences of values and of messages, placeholders converted to the field's type, and errors that name
the template path and the message's fields."""

from __future__ import annotations

import pytest
from control_msgs.action import GripperCommand
from moveit_msgs.action import ExecuteTrajectory
from nav2_msgs.action import NavigateToPose

from skill_executors.goal_template import TemplateError, fill_goal, import_action

VALUES = {"skill": "wipe the desk", "family": "wipe", "location": "desk", "place.x": "1.5", "place.y": "-2"}


def test_nested_fields_and_placeholders_fill_a_goal_of_the_fields_types() -> None:
    goal = fill_goal(
        NavigateToPose.Goal,
        {
            "pose": {"header": {"frame_id": "map"}, "pose": {"position": {"x": "{place.x}", "y": "{place.y}"}}},
            "behavior_tree": "bt_{family}_{location}.xml",
        },
        VALUES,
    )
    assert goal.pose.header.frame_id == "map"
    assert (goal.pose.pose.position.x, goal.pose.pose.position.y) == (1.5, -2.0)
    assert goal.behavior_tree == "bt_wipe_desk.xml"


def test_sequences_of_values_and_of_messages_are_filled() -> None:
    template = {
        "trajectory": {
            "joint_trajectory": {
                "joint_names": ["wiper_{location}", "wrist"],
                "points": [{"positions": [0.1, "{place.x}"]}, {"positions": [0.2, 0.3]}],
            }
        }
    }
    goal = fill_goal(ExecuteTrajectory.Goal, template, VALUES)
    trajectory = goal.trajectory.joint_trajectory
    assert list(trajectory.joint_names) == ["wiper_desk", "wrist"]
    assert [list(point.positions) for point in trajectory.points] == [[0.1, 1.5], [0.2, 0.3]]


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ({"comand": {}}, "goal.comand: GripperCommand goal has no field 'comand'; its fields are command"),
        ({"command": {"position": "{skill}"}}, "goal.command.position is a double; 'wipe the desk' is not one"),
        (
            {"command": {"effort": 1.0}},
            "goal.command.effort: GripperCommand has no field 'effort'; its fields are position, max_effort",
        ),
        ({"command": {"position": "{object}"}}, "goal.command.position: {object} has no value for this skill"),
        ({"command": 1.0}, "goal.command is a control_msgs/GripperCommand: fill it with a mapping of its fields"),
        ({"command": {"position": {"x": 1}}}, "goal.command.position is a double, not a message"),
        ({"command": {"position": [1.0]}}, "goal.command.position is a double, not a sequence"),
    ],
)
def test_a_template_that_does_not_fit_names_the_path_and_the_fields(template: dict, expected: str) -> None:
    with pytest.raises(TemplateError) as refused:
        fill_goal(GripperCommand.Goal, template, VALUES)
    assert expected in str(refused.value)


def test_an_action_type_that_cannot_be_imported_says_how_to_make_it_importable() -> None:
    assert import_action("control_msgs/action/GripperCommand") is GripperCommand
    with pytest.raises(TemplateError, match="'office_msgs' is not installed.*source its workspace"):
        import_action("office_msgs/action/Wipe")
    with pytest.raises(TemplateError, match="control_msgs has no action 'Wipe' \\(it has GripperCommand"):
        import_action("control_msgs/action/Wipe")
