"""open-instruct's and IFBench's instructions beyond IFEval's 25 (IFEvalG: Tülu 3 / OLMo 2 training data)."""

from __future__ import annotations
