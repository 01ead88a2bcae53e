"""Numbers: extraction from report and evidence text, the evidence index, and
formatting numbers the way a report writes them."""

from validation.engine.numbers.evidence import EvidenceIndex, EvidenceNumber, build_index
from validation.engine.numbers.extract import NumberMention, extract

__all__ = ["EvidenceIndex", "EvidenceNumber", "NumberMention", "build_index", "extract"]
