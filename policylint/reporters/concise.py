"""``--format concise``: one line a finding, ``path:line:col: CODE [severity] message``,
never wrapped (what editors, terminals and CI logs turn into links), then the summary."""

from __future__ import annotations

from ..words import shown
from .text import FIXABLE, location, trailer


def render(result, quiet: bool = False, show_suppressed: bool = False, **_) -> str:
    lines = [f"{location(f)}: {f.rule}{FIXABLE if f.fix and not f.suppressed else ''} "
             f"[{'suppressed' if f.suppressed else f.severity}] "
             f"{shown(' '.join(f.message.split()))}"
             for f in result.findings if show_suppressed or not f.suppressed]
    if not quiet:
        lines += trailer(result)
    return "\n".join(lines) + "\n" if lines else ""
