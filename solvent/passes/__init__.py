"""Passes over the IR; ``pipeline.PIPELINE`` lists them in order."""
