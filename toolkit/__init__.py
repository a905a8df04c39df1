"""The context toolkit: the history an LLM agent carries between turns, as data."""
