"""sweep scenario: once per completed local day, consolidate it into Long-Term memory."""

from companion_memory.agent.sweep.day_input import DayInput, InputLimits, SweepContext, gather_day
from companion_memory.agent.sweep.extractor import (
    ModelSweepExtractor,
    RulesSweepExtractor,
    SweepDay,
    SweepExtraction,
    SweepExtractor,
)
from companion_memory.agent.sweep.fallback import sweep_fallback
from companion_memory.agent.sweep.processor import DailySweepProcessor
from companion_memory.agent.sweep.proposals import (
    SCHEMA_VERSION,
    SWEEP_SCHEMA,
    Candidate,
    DayScope,
    validate_page,
)
from companion_memory.agent.sweep.receipts import ReceiptApplier
from companion_memory.agent.sweep.settings import SweepSettings
from companion_memory.agent.sweep.staging import DayStager
from companion_memory.agent.sweep.state import ZONE_CHANGED, SweepOperator, SweepSchedule
from companion_memory.agent.sweep.windows import (
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
    "DayStager",
    "InputLimits",
    "ModelSweepExtractor",
    "ReceiptApplier",
    "RulesSweepExtractor",
    "SweepContext",
    "SweepDay",
    "SweepExtraction",
    "SweepExtractor",
    "SweepOperator",
    "SweepSchedule",
    "SweepSettings",
    "SweepZoneError",
    "Window",
    "completed_days",
    "day_window",
    "gather_day",
    "next_window",
    "sweep_fallback",
    "validate_page",
]
