"""Pure-Python reference implementations: slow, short, readable, and the oracles the
property tests compare the native core against."""
