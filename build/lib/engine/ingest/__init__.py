"""Ingest: from a validated store request to the graph batch and vector points that hold it."""
