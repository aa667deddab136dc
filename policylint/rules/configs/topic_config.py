"""What the topic configuration rules (PL6xx) share: how a verdict names the releases
that give it, and its severity when only some of them do. (The config keys worth
reporting: ``ctx.config_issues``.)"""

from __future__ import annotations

from ...views import ConfigEntry
from ... import kafka_configs
from ...kafka_configs import span
from ...model import Finding


def release_said(entry: ConfigEntry) -> str:
    """The release(s) of a config entry's verdict as a message names them: when no input
    says which release the cluster runs, those of the window that give it."""
    if entry.only is None:
        return entry.release
    given, others = entry.only
    return (f"{span(given)}; not {span(others)}: no input says which release the cluster "
            "runs, give it with --kafka-version")


def on_some_releases(finding: Finding, entry: ConfigEntry) -> Finding:
    """A finding whose verdict only some releases of the window give, or only releases not
    out yet: a warning, never an error (an error only where every release of the window
    refuses it, and one is out)."""
    given = entry.only[0] if entry.only is not None else (entry.release,)
    if finding.severity == "error" and (entry.only is not None or
                                        set(given) <= kafka_configs.ANNOUNCED):
        finding.severity = "warning"
    return finding
