"""Extraction: the step that reads typed, scored claims out of conversation turns."""

from reading.extract.rules import MAX_CLAIMS_PER_TURN, RulesExtractor
from reading.extractor import Extractor

__all__ = ["MAX_CLAIMS_PER_TURN", "Extractor", "RulesExtractor"]
