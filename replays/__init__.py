"""Replay tooling: rebuild, export/import, verify, audit. Read-only over the log."""
