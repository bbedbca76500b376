"""The HTML report of a conversion run (``xlate convert --report``).

``report_entry`` gathers what the page shows of one shader (computed where
the shader is converted, picklable); ``build_report`` writes the whole page:
one self-contained HTML file with the run's summary, a searchable table of
every shader, and per shader its listing beside the generated code (each
D3D instruction linked to the lines it became), reflection, diagnostics and
control-flow graph.
"""

from .entry import KINDS, OUTCOMES, ReportEntry, link_annotations, report_entry
from .page import build_report

__all__ = ["KINDS", "OUTCOMES", "ReportEntry", "build_report", "link_annotations", "report_entry"]
