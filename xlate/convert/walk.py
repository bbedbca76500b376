"""Finding the files to look at under the SRC arguments.

Directories are walked in name order (symbolic links followed, each real
folder once, so a link loop ends); the output and cache folders are skipped
when they lie inside a source.  Every file gets the path its outputs take
under OUT: relative to SRC when one directory is given, under each SRC's
own name when several are.  Entries that cannot be read as files (a
dangling link, a link loop, a FIFO or device) are returned as problems, to
be reported, not raised.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass


@dataclass(frozen=True)
class SourceFile:
    rel: str  # POSIX path under OUT (and in the manifest)
    path: str  # where to read it


@dataclass(frozen=True)
class Unreadable:
    rel: str
    message: str


class SourceError(ValueError):
    """The SRC arguments themselves are wrong (missing, clashing names)."""


def walk(sources: list[str], skip: list[str]) -> tuple[list[SourceFile], list[Unreadable]]:
    """All files under ``sources`` (in a stable order) and the entries that are not readable files."""
    skip_real = {os.path.realpath(p) for p in skip}
    files: list[SourceFile] = []
    problems: list[Unreadable] = []
    several = len(sources) > 1
    prefixes: dict[str, str] = {}
    for src in sources:
        if not os.path.lexists(src):
            raise SourceError(f"{src}: no such file or directory")
        base = os.path.basename(os.path.normpath(os.path.abspath(src))) or "root"
        if several:
            if base in prefixes:
                raise SourceError(f"{src} and {prefixes[base]} would both go to OUT/{base}: give them as separate runs")
            prefixes[base] = src
        if os.path.isdir(src):
            _walk_dir(src, base + "/" if several else "", files, problems, skip_real, set())
        else:
            _add(src, base, files, problems)
    return files, problems


def _add(path: str, rel: str, files: list[SourceFile], problems: list[Unreadable]) -> None:
    try:
        st = os.stat(path)
    except OSError as exc:
        problems.append(Unreadable(rel, _reason(path, exc)))
        return
    if stat.S_ISREG(st.st_mode):
        files.append(SourceFile(rel, path))
    else:
        problems.append(Unreadable(rel, "not a regular file"))


def _reason(path: str, exc: OSError) -> str:
    if os.path.islink(path) and not os.path.exists(path):
        return "dangling symbolic link" if exc.errno == 2 else f"symbolic link: {exc.strerror}"
    return exc.strerror or str(exc)


def _walk_dir(folder: str, prefix: str, files, problems, skip_real: set[str], seen: set) -> None:
    try:
        st = os.stat(folder)
    except OSError as exc:
        problems.append(Unreadable(prefix.rstrip("/") or folder, _reason(folder, exc)))
        return
    ident = (st.st_dev, st.st_ino)
    if ident in seen:
        return  # a link back to a folder already walked
    seen.add(ident)
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        problems.append(Unreadable(prefix.rstrip("/") or folder, exc.strerror or str(exc)))
        return
    for entry in entries:
        rel = prefix + entry.name
        try:
            is_dir = entry.is_dir()
            is_file = not is_dir and entry.is_file()
        except OSError as exc:
            problems.append(Unreadable(rel, exc.strerror or str(exc)))
            continue
        if is_dir:
            if skip_real and os.path.realpath(entry.path) in skip_real:
                continue
            _walk_dir(entry.path, rel + "/", files, problems, skip_real, seen)
        elif is_file:
            files.append(SourceFile(rel, entry.path))
        else:
            _add(entry.path, rel, files, problems)
