"""The matcher's defaults that callers name without loading the matcher itself (numpy, bm25s):
`broker stdio` imports the intent tools at start but builds a matcher only on first use."""

DEFAULT_TOP_K = 5
# Chosen on the bench's calibration table: at 0.7 about nine in ten confident answers are right;
# below it a caller asks the agent to choose rather than guess.
DEFAULT_THRESHOLD = 0.7
