"""Recall: query analysis, channels, fusion with decay and importance, cards with traces."""
