"""Calling compiled functions: caches, argument binding, write-back."""
