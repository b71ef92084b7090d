"""Reward callables with TRL's signature, shapers, combinators and the composition spec."""
