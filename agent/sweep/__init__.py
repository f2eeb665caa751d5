"""sweep scenario: once per completed local day, consolidate it into Long-Term memory."""

from agent.sweep.day_input import DayInput, InputLimits, SweepContext, gather_day
from agent.sweep.fallback import sweep_fallback
from agent.sweep.processor import DailySweepProcessor, SweepConfigError, SweepEngine
from agent.sweep.proposals import (
    SCHEMA_VERSION,
    SWEEP_SCHEMA,
    Candidate,
    DayScope,
    validate_page,
)
from agent.sweep.state import ZONE_CHANGED
from agent.sweep.windows import (
    SweepZoneError,
    Window,
    completed_days,
    day_window,
    next_window,
)

__all__ = [
    "SCHEMA_VERSION",
    "SWEEP_SCHEMA",
    "ZONE_CHANGED",
    "Candidate",
    "DailySweepProcessor",
    "DayInput",
    "DayScope",
    "InputLimits",
    "SweepConfigError",
    "SweepContext",
    "SweepEngine",
    "SweepZoneError",
    "Window",
    "completed_days",
    "day_window",
    "gather_day",
    "next_window",
    "sweep_fallback",
    "validate_page",
]
