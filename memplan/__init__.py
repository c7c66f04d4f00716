"""Arena planning for buffers with sizes and lifetimes; knows nothing about ONNX."""

from .planner import Buffer, Plan, live_lower_bound, plan_arena

__all__ = ["Buffer", "Plan", "live_lower_bound", "plan_arena"]
