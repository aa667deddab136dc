"""``--format concise``: one line a finding, ``path:line:col: CODE [severity] message``,
never wrapped (what editors, terminals and CI logs turn into links), then the summary."""

from __future__ import annotations

from ..words import shown
from .text import location, trailer


def render(result, quiet: bool = False, **_) -> str:
    lines = [f"{location(f)}: {f.rule} [{f.severity}] {shown(' '.join(f.message.split()))}"
             for f in result.findings if not f.suppressed]
    if not quiet:
        lines += trailer(result)
    return "\n".join(lines) + "\n" if lines else ""
