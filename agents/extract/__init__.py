"""Extraction: the step that reads typed, scored claims out of conversation turns."""

from agents.extract.base import Extractor
from agents.extract.rules import MAX_CLAIMS_PER_TURN, RulesExtractor

__all__ = ["MAX_CLAIMS_PER_TURN", "Extractor", "RulesExtractor"]
