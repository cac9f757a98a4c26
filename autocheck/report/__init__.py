"""What users read: the terminal table, ``report --json``, the HTML page with plots, and run comparisons."""

from .html import format_table, highlighted, load_results, write_html

__all__ = ["format_table", "highlighted", "load_results", "write_html"]
