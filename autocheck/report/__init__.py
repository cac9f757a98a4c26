"""What users read: the terminal table, ``report --json``, the HTML page with plots, and run comparisons."""

from .html import highlighted, write_html
from .summary import format_table, load_results, summary_json

__all__ = ["format_table", "highlighted", "load_results", "summary_json", "write_html"]
