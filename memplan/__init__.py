"""Arena planning for buffers with sizes, lifetimes, aliases and overlap permissions; knows nothing about ONNX."""

from .planner import Plan, live_lower_bound, plan_arena
from .problem import Buffer, Overlap, align_up

__all__ = ["Buffer", "Overlap", "Plan", "align_up", "live_lower_bound", "plan_arena"]
