"""Reflection: semantic facts from recent episodes, written as FACT edges between entities."""
