"""Shared pytest configuration.  Each section belongs to one set of tests;
add new sections rather than editing others."""

from __future__ import annotations

# --------------------------------------------------------------------------
# Corpus summaries (tests/test_decode_corpus.py and friends)
#
# A test that walks a whole corpus records a one-line summary with
#     record_property("corpus_summary", "wine: 268/275 decoded ...")
# and it is printed at the end of the run.  user_properties travel with the
# test report, so this works under pytest-xdist too, and needs no -s.
# --------------------------------------------------------------------------

CORPUS_SUMMARY_KEY = "corpus_summary"


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    lines = []
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) != "call":
                continue
            for key, value in getattr(report, "user_properties", ()):
                if key == CORPUS_SUMMARY_KEY:
                    lines.append(str(value))
    if lines:
        terminalreporter.section("corpus summary")
        for line in sorted(lines):
            terminalreporter.write_line(line)


# --------------------------------------------------------------------------
# Full IR validation in every translation (xlate/passes/__init__.py)
#
# ``translate`` checks only the invariants the input can break unless
# ``Options.validate`` is set; the tests want every pass bug caught, so the
# whole suite (and its xdist workers, which import this file too) runs with
# XLATE_VALIDATE=1.
# --------------------------------------------------------------------------

import os as _os

_os.environ.setdefault("XLATE_VALIDATE", "1")
