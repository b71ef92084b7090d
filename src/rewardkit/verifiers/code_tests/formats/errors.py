"""The one error of reading a reference: the dataset row is not in a form the verifier reads."""

from __future__ import annotations


class InvalidReference(ValueError):
    """The reference is in no form the verifier reads (a bug in the dataset, not the model's fault)."""
