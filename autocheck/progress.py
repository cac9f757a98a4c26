"""Progress of long stages, visible on a terminal and in a log.

On a terminal, a ``tqdm`` bar (total, rate, ETA). When stderr is not a terminal (a CI log, ``nohup``,
output redirected to a file), a bar would print nothing useful, so a line is logged instead every
``interval`` seconds, after the first update (its rate gives the first ETA) and at the end::

    INFO autocheck.progress: generate: 12/40 chunks (30%), 0.8 chunks/s, elapsed 0:00:15, ETA 0:00:35

``track(items, total, description)`` is the callback ``generate`` takes (``progress=``); ``interval``
defaults to ``$AUTOCHECK_PROGRESS_INTERVAL`` seconds, else 30. In a script that configured no logging,
the lines go to stderr all the same (a script is otherwise silent for the whole run); in a notebook the
notebook's own bar is shown. ``LogHandler`` prints log lines above the bars, never into a bar's line.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO

from tqdm import tqdm
from tqdm.auto import tqdm as auto

log = logging.getLogger("autocheck.progress")

DEFAULT_INTERVAL = 30.0


def _interval() -> float:
    try:
        return max(0.0, float(os.environ.get("AUTOCHECK_PROGRESS_INTERVAL", DEFAULT_INTERVAL)))
    except ValueError:
        return DEFAULT_INTERVAL


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class LogProgress:
    """Counts work done and logs a line at most every ``interval`` seconds (and when finished)."""

    def __init__(
        self,
        total: int | None,
        description: str,
        unit: str = "it",
        *,
        interval: float | None = None,
        clock: Any = time.monotonic,
    ):
        self.total, self.description, self.unit = total, description, unit
        self.interval = _interval() if interval is None else interval
        self.done = 0
        self.postfix = ""
        self._clock = clock
        self._start = self._last = clock()
        self._closed = False
        self._log()

    def line(self) -> str:
        elapsed = max(self._clock() - self._start, 1e-9)
        rate = self.done / elapsed
        parts = [f"{self.description}: {self.done:,}"]
        if self.total is not None:
            parts[0] += f"/{self.total:,} {self.unit}"
            if self.total:
                parts[0] += f" ({100 * self.done / self.total:.0f}%)"
        else:
            parts[0] += f" {self.unit}"
        parts.append(f"{rate:.3g} {self.unit}/s")
        parts.append(f"elapsed {_clock(elapsed)}")
        if self.total is not None and self.done < self.total:
            parts.append(f"ETA {_clock((self.total - self.done) / rate)}" if rate > 0 else "ETA unknown")
        text = ", ".join(parts)
        return f"{text} | {self.postfix}" if self.postfix else text

    def _log(self) -> None:
        self._last = self._clock()
        if log.hasHandlers():  # the program's logging decides (the CLI's, or a script's own)
            log.info("%s", self.line())
        else:  # a script that configured none: Python would drop an INFO line
            sys.stderr.write(f"INFO {log.name}: {self.line()}\n")

    def update(self, n: int = 1) -> None:
        first = not self.done
        self.done += n
        if self._clock() - self._last >= self.interval:
            self._log()
        elif first and n:  # the first batch or chunk done: its rate is the first time estimate (off-beat)
            log.info("%s", self.line())

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        """What the stage is doing now (shown after the count); with ``refresh``, logged when the interval
        has passed, so work inside a long step (a chunk's units) is heard between its updates."""
        self.postfix = text
        if refresh and self._clock() - self._last >= self.interval:
            self._log()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._log()

    def __enter__(self) -> LogProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Tracked:
    """An iterable that reports each item it yields (to a tqdm bar or a ``LogProgress``)."""

    def __init__(self, items: Iterable[Any], reporter: Any):
        self._items, self._reporter = items, reporter

    def __iter__(self) -> Iterator[Any]:
        try:
            for item in self._items:
                yield item
                self._reporter.update(1)
        finally:
            self._reporter.close()

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        self._reporter.set_postfix_str(text, refresh=refresh)


def bar(
    total: int | None,
    description: str,
    unit: str = "it",
    *,
    stream: TextIO | None = None,
    interval: float | None = None,
) -> Any:
    """A reporter with ``update(n)``, ``set_postfix_str`` and ``close``: a tqdm bar on a terminal, the
    notebook's own bar in Jupyter (``tqdm.auto``: a widget where ipywidgets is installed), log lines
    otherwise."""
    stream = sys.stderr if stream is None else stream
    if _in_notebook():
        return auto(total=total, desc=description, unit=unit)
    if _is_terminal(stream):
        return tqdm(total=total, desc=description, unit=unit, file=stream, dynamic_ncols=True)
    return LogProgress(total, description, unit, interval=interval)


class LogHandler(logging.StreamHandler):
    """Log lines above the progress bars: ``tqdm.write`` clears the bars on the stream, prints the line
    and draws them again, where a plain handler would print into the bar's line."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            tqdm.write(self.format(record), file=self.stream)
        except Exception:  # as logging.StreamHandler: a broken stream never stops the program
            self.handleError(record)


def _in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (JupyterLab, VS Code, Colab): its stderr is no terminal,
    but a person is watching the cell."""
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def track(
    items: Iterable[Any],
    total: int | None,
    description: str,
    unit: str = "it",
    *,
    stream: TextIO | None = None,
    interval: float | None = None,
) -> _Tracked:
    """``items``, reporting progress as they are consumed (``generate``'s ``progress=`` callback)."""
    return _Tracked(items, bar(total, description, unit, stream=stream, interval=interval))


class Counted:
    """A model's ``compute`` (batches in, their answers out, in order) that reports each batch of a chunk
    of ``size`` inputs as it is answered, and at once the inputs that need no answering (cached), so a
    run's bar moves per batch, not per chunk."""

    def __init__(self, reporter: Any, size: int, compute: Callable[[list[list[Any]]], Iterable[Any]]):
        self.reporter, self.size, self.compute = reporter, size, compute
        self.done = 0

    def __call__(self, batches: list[list[Any]]) -> Iterator[Any]:
        self._add(self.size - sum(map(len, batches)))
        for batch, answers in zip(batches, self.compute(batches)):
            self._add(len(batch))
            yield answers

    def _add(self, n: int) -> None:
        if n > 0:
            self.done += n
            self.reporter.update(n)

    def finish(self) -> None:
        """Count what is left of the chunk (all of it when every answer came from the cache)."""
        self._add(self.size - self.done)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def stages(items: Any, total: int | None, description: str) -> Any:
    """``generate``'s progress callback: its stages with their units."""
    units = {"generate": "chunks", "search": "capabilities", "load dataset": "rows"}
    return track(items, total, description, units.get(description, "it"))
