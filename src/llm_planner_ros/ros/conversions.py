"""One-to-one conversions between the planning core's types and llm_planner_interfaces messages
(skills convert with llm_planner_ros.ros.messages, which the kitchen's own nodes use)."""

from __future__ import annotations

from builtin_interfaces.msg import Time

from llm_planner_interfaces.msg import PlanStep, SkillScore
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.planning.decision import CandidateScore, StepRecord, StepStatus
from llm_planner_ros.ros.messages import skill_from_msg, skill_to_msg


def candidate_to_msg(candidate: CandidateScore) -> SkillScore:
    return SkillScore(
        skill=candidate.skill.text,
        llm=float(candidate.llm),
        affordance=float(candidate.affordance),
        pay=float(candidate.pay),
        combined=float(candidate.combined),
    )


def record_to_msg(record: StepRecord) -> PlanStep:
    seconds = int(record.stamp)
    return PlanStep(
        index=record.index,
        skill=record.skill.text,
        skill_info=skill_to_msg(record.skill),
        candidates=[candidate_to_msg(c) for c in record.candidates],
        status=int(record.status),
        message=record.message,
        planning_time=float(record.planning_s),
        stamp=Time(sec=seconds, nanosec=int((record.stamp - seconds) * 1e9)),
    )


def record_from_msg(msg: PlanStep) -> StepRecord:
    """A StepRecord from a PlanStep; candidates keep their texts (their family is unknown here)."""
    candidates = tuple(
        CandidateScore(Skill(c.skill, ""), c.llm, c.affordance, combined=c.combined, pay=c.pay) for c in msg.candidates
    )
    return StepRecord(
        index=msg.index,
        skill=skill_from_msg(msg.skill_info) if msg.skill_info.text else Skill(msg.skill, ""),
        candidates=candidates,
        status=StepStatus(msg.status),
        message=msg.message,
        planning_s=msg.planning_time,
        stamp=msg.stamp.sec + msg.stamp.nanosec * 1e-9,
    )
