"""Seeded fuzzing of the command line with mutated real models (run by test_fuzz.py and bench/fuzz_long.py)."""
