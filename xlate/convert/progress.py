"""Progress on standard error: a rich bar on a terminal, plain lines otherwise."""

from __future__ import annotations

import sys
import time


class Progress:
    """Counts files, shaders and errors; shows them with the rate and time left."""

    def __init__(self, total: int, mode: str = "auto", stream=None, interval: float = 2.0):
        self.stream = stream or sys.stderr
        if mode == "auto":
            mode = "bar" if getattr(self.stream, "isatty", lambda: False)() else "lines"
        self.mode = mode  # "bar" | "lines" | "off"
        self.total = total
        self.files = self.shaders = self.errors = 0
        self.start = time.perf_counter()
        self.interval = interval
        self._last_line = self.start
        self._bar = None
        if mode == "bar":
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("[bold]convert"), BarColumn(), MofNCompleteColumn(), TextColumn("files,"),
                TextColumn("{task.fields[shaders]} shaders, {task.fields[errors]} errors, {task.fields[rate]}"),
                TimeRemainingColumn(), console=Console(file=self.stream), transient=False)
            self._task = self._bar.add_task("convert", total=total, shaders=0, errors=0, rate="")
            self._bar.start()

    def _rate(self) -> float:
        elapsed = time.perf_counter() - self.start
        return self.files / elapsed if elapsed > 0 else 0.0

    def advance(self, files: int, shaders: int, errors: int) -> None:
        self.files += files
        self.shaders += shaders
        self.errors += errors
        if self._bar is not None:
            self._bar.update(self._task, completed=self.files, shaders=self.shaders, errors=self.errors,
                             rate=f"{self._rate():,.0f} files/s")
        elif self.mode == "lines":
            now = time.perf_counter()
            if now - self._last_line >= self.interval:
                self._last_line = now
                self._line()

    def _line(self) -> None:
        rate = self._rate()
        left = (self.total - self.files) / rate if rate > 0 else 0.0
        pct = 100.0 * self.files / self.total if self.total else 100.0
        print(f"xlate convert: {self.files}/{self.total} files ({pct:.0f}%), {self.shaders} shaders, "
              f"{self.errors} errors, {rate:,.0f} files/s, {left:.0f} s left", file=self.stream, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        elif self.mode == "lines":
            self._line()
