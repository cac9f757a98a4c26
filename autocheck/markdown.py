"""Text from cases, models and files made inert for a Markdown comment (GitHub's flavour), so a case
cannot inject a link, an image, HTML, or a mention of a person or an issue into a pull request."""

from __future__ import annotations

import html
import re
from typing import Any

# what makes markup inside a line of Markdown: links and images need a [ (``[x](y)``, ``![x](y)``), then
# emphasis, code and table cells; each is backslash-escaped, which GitHub renders as the character itself
# (HTML and <autolinks> are escaped as HTML)
_ACTIVE = re.compile(r"([\\`*_~\[\]|])")
# a zero-width space after @ and # stops GitHub linking @someone (a notification) or #123 (a back-reference)
_REFERENCE = re.compile(r"([@#])(?=\w)")


def md_text(text: Any) -> str:
    """Plain text for a Markdown line or table cell: HTML escaped, markup characters escaped, one line."""
    escaped = _ACTIVE.sub(r"\\\1", html.escape(str(text), quote=False))
    return _REFERENCE.sub("\\1\u200b", " ".join(escaped.splitlines()))


def md_code(text: Any) -> str:
    """Text for an inline code span, where GitHub reads no markup, links and mentions nothing: no backtick
    to close it, one line."""
    return " ".join(str(text).replace("`", "'").splitlines())


def md_html(text: Any) -> str:
    """Text inside an HTML element of the comment (``<summary>``), where Markdown is not read."""
    return _REFERENCE.sub("\\1\u200b", html.escape(" ".join(str(text).splitlines()), quote=False))
