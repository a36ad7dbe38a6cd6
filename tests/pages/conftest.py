"""Where the browser tests leave their screenshots: PBM_ARTIFACTS, or a fresh temporary directory;
the run's summary names it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

ARTIFACTS = Path(os.environ.get("PBM_ARTIFACTS") or tempfile.mkdtemp(prefix="pbm-page-shots-"))
ARTIFACTS.mkdir(parents=True, exist_ok=True)


def pytest_terminal_summary(terminalreporter) -> None:
    shots = sorted(ARTIFACTS.glob("*.png"))
    if shots:
        terminalreporter.write_line(f"browser screenshots ({len(shots)}): {ARTIFACTS}")
