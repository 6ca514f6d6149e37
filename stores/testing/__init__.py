"""Test doubles shared by the test suites (a fake Tavily server)."""

from stores.testing.fake_tavily import FakePage, FakeTavily

__all__ = ["FakePage", "FakeTavily"]
