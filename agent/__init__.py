"""How things get remembered: the worker, the processors and the model seam."""

from agent.processor import BatchOutcome, Processor, ProcessorReport

__all__ = ["BatchOutcome", "Processor", "ProcessorReport"]
