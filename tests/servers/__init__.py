"""Fake model servers for tests: real processes on 127.0.0.1 speaking the Ollama and the
OpenAI-compatible APIs, scripted and recording every request (see `handle.py` and `fixtures.py`).
"""
