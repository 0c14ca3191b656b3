"""Test servers that speak the project's real interfaces, run as separate processes by graph tests."""
