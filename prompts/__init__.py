"""Prompt constants, one module per purpose; retrieved text always sits inside tags as data."""
