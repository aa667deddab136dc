"""``--format github``: GitHub Actions workflow commands, one annotation per finding.

The default when ``GITHUB_ACTIONS=true``. Suppressed findings are not annotated.
"""

from __future__ import annotations

from ..words import shown
from . import repo_relative
from .text import summary_line

_COMMANDS = {"error": "error", "warning": "warning", "note": "notice"}


def _data(text: str) -> str:
    """A command's message: escaped as the runner unescapes it; any other control character
    an input holds (ESC, BEL) shown as its escape, so the log it lands in shows it."""
    return shown(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(result, **_) -> str:
    lines = []
    for f in result.findings:
        if f.suppressed:
            continue
        props = []
        if f.file is not None:
            props.append(f"file={_property(repo_relative(f.file))}")
            if f.line is not None:
                props += [f"line={f.line}", f"col={f.column}"]
        props.append(f"title={_property(f'{f.rule} {f.name}')}")
        lines.append(f"::{_COMMANDS[f.severity]} {','.join(props)}::{_data(f.message)}")
    for name, why in result.skipped:
        lines.append(f"::notice file={_property(repo_relative(name))},"
                     f"title=policylint skipped::{_data(why)}")
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"
