"""The ``policylint`` command: parse arguments, call the library, exit 0, 1 or 2."""

from __future__ import annotations

import copy
import gc
import io
import os
import re
import sys
import time
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Iterator, List, Optional

import typer

from . import __version__

app = typer.Typer(
    name="policylint", no_args_is_help=True, add_completion=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False, rich_markup_mode=None,
    help="Policy-as-code linter for Kafka topic manifests, partition reassignment plans and "
         "cluster snapshots.\n\nExit status: 0 no finding at or above --fail-on, 1 findings, "
         "2 usage, policy or internal error.")

FAIL_ON = ("error", "warning", "note")
ENGINES = ("auto", "local", "spark", "spark-generic")


def _fail(message: str) -> None:
    typer.echo(f"policylint: error: {_one_line(message)}", err=True)
    raise typer.Exit(2)


def _is_utf8(text: str) -> bool:
    """False for a command-line argument with bytes that are not UTF-8 (lone surrogates)."""
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _say(line: str) -> None:
    """A line on stderr, with what an input put in it shown escaped."""
    sys.stderr.write(_one_line(line) + "\n")


def _one_line(message: str) -> str:
    """One line, with any control character a name held shown escaped."""
    from .words import shown
    return shown(message.strip())


@contextmanager
def _exit_2_on_errors(what: str = "internal error") -> Iterator[None]:
    """A problem with the call (input, policy, a rule plugin) is exit 2 with one line; so is
    a bug, with the traceback on request."""
    from .baseline import BaselineError
    from .policy import PolicyError
    from .registry import RegistryError
    from .sources import InputError
    try:
        yield
    except (InputError, PolicyError, RegistryError, BaselineError) as exc:
        _fail(str(exc))
    except typer.Exit:
        raise
    except Exception as exc:
        if os.environ.get("POLICYLINT_DEBUG"):
            raise
        first = (str(exc).strip().splitlines() or [""])[0]
        _fail(f"{what}: {type(exc).__name__}: {first} (set POLICYLINT_DEBUG=1 for the "
              "traceback, and please report it)")


def _codes(values: Optional[List[str]]) -> list[str]:
    return [c.strip() for v in values or [] for c in v.split(",") if c.strip()]


def _size(text: str) -> int:
    match = re.fullmatch(r"(\d+)\s*([kmg]?)i?b?", text.strip().lower())
    if not match:
        raise typer.BadParameter(f"{text!r} is not a size like 300M or 1G")
    return int(match.group(1)) * {"": 1, "k": 2**10, "m": 2**20, "g": 2**30}[match.group(2)]


def _formats() -> list[str]:
    from .registry import reporter_formats
    return list(reporter_formats())


def _report(spec: str) -> tuple[str, str]:
    fmt, sep, file = spec.partition(":")
    if not sep or not file or fmt not in _formats():
        _fail(f"--report takes FORMAT:FILE with FORMAT one of {', '.join(_formats())}, not "
              f"{spec!r}")
    return fmt, file


def _rule_codes() -> list[str]:
    """Shell completion of --select: every rule's code."""
    from .registry import all_rules
    return list(all_rules())


def _version(value: bool) -> None:
    if value:
        typer.echo(f"policylint {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Show the version and exit.")) -> None:
    pass


@app.command()
def lint(
    paths: List[str] = typer.Argument(None, metavar="[PATHS]...",
                                      help="Files or directories (default: .); - reads "
                                           "standard input. Directories are walked for YAML, "
                                           "JSON and .tf files and their .tpl templates."),
    cluster: Optional[List[str]] = typer.Option(
        None, "--cluster", metavar="FILE",
        help="ClusterSnapshot, cluster profile or Strimzi Kafka resource (with its node "
             "pools): a cluster the topics and plans are checked against, not itself linted. "
             "Repeatable; without it, the clusters among PATHS are used."),
    current: Optional[str] = typer.Option(None, "--current", metavar="FILE",
                                          help="The current assignment JSON printed by "
                                               "kafka-reassign-partitions.sh: the baseline of "
                                               "PL201."),
    policy: Optional[str] = typer.Option(None, "--config", "--policy", metavar="FILE",
                                         help="Policy file (default: .policylint.yaml or "
                                              "[tool.policylint] in pyproject.toml, found "
                                              "upward from the first path linted)."),
    base: Optional[str] = typer.Option(None, "--base", metavar="REF",
                                       help="Diff mode: also compare topic manifests with the "
                                            "same topics at this git ref (PL202, PL206-PL208)."),
    policy_from: str = typer.Option(
        "base", "--policy-from", metavar="base|head|REF",
        help="Where the policy, what it extends, its exemptions and baseline are read: base "
             "(default: at the --base ref, so that a change cannot weaken the policy that "
             "judges it; PL125 reports what it changes), head (the working tree's) or a git "
             "ref."),
    fmt: Optional[str] = typer.Option(None, "--format", "--output-format", metavar="FORMAT",
                                      autocompletion=lambda: _formats(),
                                      help="text, concise, json, sarif, github, markdown, "
                                           "junit, gitlab or checkstyle (default: github when "
                                           "GITHUB_ACTIONS=true, else text)."),
    output_file: Optional[str] = typer.Option(
        None, "-o", "--output-file", metavar="FILE",
        help="Write the output to FILE instead of standard output (as a --report of the "
             "--format: refused over a file that is not policylint's)."),
    reports: Optional[List[str]] = typer.Option(None, "--report", metavar="FORMAT:FILE",
                                                help="Also write the result in FORMAT to FILE "
                                                     "(repeatable), e.g. --report "
                                                     "sarif:policylint.sarif."),
    select: Optional[List[str]] = typer.Option(None, "--select", metavar="CODES",
                                               autocompletion=lambda: _rule_codes(),
                                               help="Only these rules: codes, code prefixes "
                                                    "(PL2) or names, comma-separated."),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", metavar="CODES",
                                               help="Leave out these rules (as --select)."),
    fail_on: str = typer.Option("error", "--fail-on", metavar="SEVERITY",
                                help="Exit 1 when a finding is at least this severe: error, "
                                     "warning or note; never: findings never fail the run."),
    exit_zero: bool = typer.Option(False, "--exit-zero",
                                   help="Exit 0 whatever the findings (as --fail-on never); "
                                        "exit 2 still says the run itself failed."),
    allow_rf_change: bool = typer.Option(False, "--allow-rf-change",
                                         help="Allow replication factor changes in this run "
                                              "(KIP-860 escape hatch)."),
    add: Optional[List[str]] = typer.Option(
        None, "--add", "--add-brokers", metavar="ID[:RACK]",
        help="Brokers that join the cluster the plans are checked against, as 'policylint "
             "plan --add' brings them in (repeatable, comma-separated)."),
    max_file_size: str = typer.Option("256M", "--max-file-size", metavar="SIZE",
                                      help="Larger input files are reported (PL100), not "
                                           "read."),
    max_yaml_values: int = typer.Option(
        2_000_000, "--max-yaml-values", metavar="N", min=1,
        help="YAML files of more values are reported (PL100), not read: each value is kept "
             "to locate findings, at hundreds of bytes."),
    kafka_version: Optional[str] = typer.Option(
        None, "--kafka-version", metavar="X.Y",
        help="The Kafka release the clusters run where none says its own (as the policy's "
             "kafka_version); without it, a verdict that differs between releases is an "
             "error only if every release of the window refuses it."),
    color: Optional[bool] = typer.Option(None, "--color/--no-color",
                                         help="Colour text output (default: on a terminal)."),
    bootstrap_server: Optional[str] = typer.Option(
        None, "--bootstrap-server", metavar="HOST:PORT",
        help="Capture this cluster first (as 'policylint snapshot') and lint against it, "
             "instead of a --cluster file."),
    command_config: Optional[str] = typer.Option(
        None, "--command-config", metavar="FILE",
        help="Kafka client properties for --bootstrap-server (as for Kafka's tools)."),
    fix: bool = typer.Option(False, "--fix",
                             help="Apply the fixes of fixable findings to YAML files (comments, "
                                  "order and quoting kept), then lint again: the exit status "
                                  "is about what is left."),
    diff: bool = typer.Option(False, "--diff",
                              help="Print the fixes as a unified diff instead of writing them "
                                   "(alone or with --fix); exit 1 when there is one."),
    add_noqa: bool = typer.Option(False, "--add-noqa",
                                  help="Suppress every finding of YAML files with a '# "
                                       "policylint: disable=CODE' comment above its line."),
    reason: str = typer.Option("", "--reason", metavar="TEXT",
                               help="The reason --add-noqa writes after the codes."),
    baseline: Optional[str] = typer.Option(
        None, "--baseline", metavar="FILE",
        help="Leave out the findings recorded in this baseline (default: the policy's "
             "baseline:), and say how many of them are fixed."),
    write_baseline: Optional[str] = typer.Option(
        None, "--write-baseline", metavar="FILE",
        help="Record today's findings in FILE, so that later runs with --baseline report only "
             "new ones; this run then exits 0."),
    show_suppressed: bool = typer.Option(
        False, "--show-suppressed",
        help="Show suppressed findings too (text, concise): by default they are counted in "
             "the summary only. JSON and SARIF always carry them, marked suppressed."),
    force: bool = typer.Option(False, "--force",
                               help="Let --report and --write-baseline replace an existing "
                                    "file that is not policylint's own output."),
    statistics: bool = typer.Option(False, "--statistics",
                                    help="Show how many findings each rule has, not the "
                                         "findings."),
    quiet: bool = typer.Option(False, "--quiet", "-q",
                               help="Show only the findings: no summary (text, concise)."),
    verbose: bool = typer.Option(False, "--verbose", "-v",
                                 help="Also say on standard error what the run read, which "
                                      "policy and rules it used, and how long it took."),
    exclude: Optional[List[str]] = typer.Option(
        None, "--exclude", metavar="PATTERN",
        help="Leave out of directory walks the paths this .gitignore pattern matches "
             "(repeatable; besides the policy's exclude: and what git ignores)."),
    force_exclude: bool = typer.Option(
        False, "--force-exclude",
        help="Apply --exclude, exclude: and .gitignore to files named explicitly too (as a "
             "pre-commit hook names them)."),
    respect_gitignore: bool = typer.Option(
        True, "--respect-gitignore/--no-respect-gitignore",
        help="Leave out of directory walks what git ignores (.gitignore, .git/info/exclude); "
             "--no-respect-gitignore walks it too (say, manifests rendered into an ignored "
             "build/)."),
    stdin_filename: Optional[str] = typer.Option(
        None, "--stdin-filename", metavar="NAME",
        help="The name standard input (-) is shown and placed under (default: -), e.g. "
             "clusters/prod/rendered.yaml."),
) -> None:
    """Lint topic declarations, reassignment plans and cluster snapshots."""
    from .reporters import render

    fmt = fmt or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    if fmt not in _formats():
        _fail(f"--format must be one of {', '.join(_formats())}, not {fmt!r}")
    extra = [_report(spec) for spec in reports or []]
    if fail_on not in FAIL_ON + ("never",):
        _fail(f"--fail-on must be one of {', '.join(FAIL_ON)} or never, not {fail_on!r}")
    if exit_zero or write_baseline:  # a baseline's run records the findings: it exits 0
        fail_on = "never"
    if not reason.isprintable() or not _is_utf8(reason):
        _fail("--reason must be one line of printable UTF-8 text")
    try:
        size = _size(max_file_size)
    except typer.BadParameter as exc:
        _fail(f"--max-file-size: {exc}")
    if kafka_version is not None and not re.fullmatch(r"[0-9]+(\.[0-9]+){0,2}", kafka_version):
        _fail(f"--kafka-version must be a release such as 3.7 or 4.1.0, not {kafka_version!r}")
    if kafka_version is not None:
        from . import kafka_configs
        known = kafka_configs.known_versions()
        release = ".".join((kafka_version.split(".") + ["0"])[:2])
        if not kafka_configs.at_least(release, known[0]) or \
                kafka_configs.at_least(release, known[-1]) and release != known[-1]:
            _fail(f"--kafka-version {kafka_version}: no release policylint knows the configs "
                  f"of ({known[0]} to {known[-1]})")
    if bootstrap_server and cluster:
        _fail("give --cluster or --bootstrap-server, not both")
    if command_config and not bootstrap_server:
        _fail("--command-config goes with --bootstrap-server")
    if statistics and fmt not in ("text", "json"):
        _fail(f"--statistics prints a table (text) or JSON, not {fmt!r}")
    if write_baseline:
        extra.append(("", write_baseline))
    if output_file:
        extra.append((fmt, output_file))  # checked and written as a report is
    named = [p for p in [*(paths or []), *(cluster or []), current, policy, baseline]
             if p and p != "-" and os.path.isfile(p)]
    _check_targets(extra, named, force)
    from .linter import judge, load
    from .settings import Output, resolve
    started = time.perf_counter()
    piped = None  # `lint - --fix`: standard input, kept to print unchanged if nothing is fixed
    if fix and paths == ["-"] and sys.stdin is not None and not sys.stdin.isatty():
        piped = sys.stdin.buffer.read(size + 1) if hasattr(sys.stdin, "buffer") else \
            sys.stdin.read(size + 1).encode("utf-8", "surrogateescape")
        sys.stdin = io.TextIOWrapper(io.BytesIO(piped))
    paths = paths or ["."]
    with _exit_2_on_errors(), _captured(bootstrap_server, command_config) as captured:
        if add:
            from .planning import brokers_spec
        settings = resolve(
            paths, cluster=captured or cluster, current=current, policy=policy,
            select=_codes(select), ignore=_codes(ignore), allow_rf_change=allow_rf_change,
            max_file_size=size, base=base, stdin_name=stdin_filename,
            baseline="" if write_baseline else baseline, exclude=exclude,
            force_exclude=force_exclude, respect_gitignore=respect_gitignore,
            kafka_version=kafka_version, max_yaml_values=max_yaml_values,
            policy_from=policy_from, joining=brokers_spec(",".join(add)) if add else None,
            output=Output(fmt, fail_on, quiet, show_suppressed, statistics,
                          sys.stdout.isatty() and "NO_COLOR" not in os.environ
                          if color is None else color))

        def linted():
            return judge(load(paths, settings), settings, keep=_KEPT)
        if base is not None and policy_from == "head":
            _say("policylint: --policy-from head: the working tree's policy judges this "
                 f"change, not the policy at {base}")
        result = linted()
        if diff:  # the fixes as a diff, nothing written
            raise typer.Exit(1 if _fixes(result, write=False) else 0)
        if fix and _fixes(result, write=True):
            result = linted()  # the exit status is about what is left
        elif piped is not None:  # nothing fixed: the input as it came
            sys.stdout.write(piped.decode("utf-8", "replace"))
        if add_noqa and _noqa(result, reason):
            result = linted()
    if write_baseline:
        from .baseline import document
        from .reporters import repo_relative
        baseline_text = document(result.findings, repo_relative)
    shown = settings.output
    with _exit_2_on_errors():  # a reporter plugin may fail
        output = _statistics(result, shown.format) if shown.statistics else \
            render(shown.format, result, color=shown.color and not output_file, quiet=shown.quiet,
                   show_suppressed=shown.show_suppressed)
        rendered = [(file, output if file == output_file else
                     render(report_fmt, result) if report_fmt else baseline_text)
                    for report_fmt, file in extra]
    _check_targets(extra, named + result.read, force, rendered)  # every report or none
    if fix and paths == ["-"]:  # stdout holds the fixed input: the findings go to stderr
        sys.stderr.write(output)
    elif not output_file:
        sys.stdout.write(output)
    if verbose:
        _say_what_ran(result, time.perf_counter() - started)
    if not result.files:
        _say("policylint: warning: no Kafka topic declaration, cluster, plan or snapshot "
             "found in " + " ".join(paths or ["."])
             + _ignored_hint(paths or ["."], respect_gitignore))
    if write_baseline:
        from .words import count
        kept = sum(not f.suppressed for f in result.findings)  # a suppressed one is none
        _say(f"policylint: wrote {count(kept, 'finding')} to the baseline "
             f"{write_baseline}")
    raise typer.Exit(1 if shown.fail_on != "never" and result.failed(shown.fail_on) else 0)


def _ignored_hint(paths: list[str], respect_gitignore: bool) -> str:
    """Why a walk found nothing, when the reason is that git ignores a folder it was given."""
    if not respect_gitignore:
        return ""
    from .sources import display_name
    from .sources.ignore import Excluder
    excluder = Excluder()
    ignored = [p for p in paths if os.path.isdir(p) and
               excluder.excluded(p, display_name(p), is_dir=True)]
    return f" (git ignores {', '.join(ignored)}: --no-respect-gitignore walks it)" \
        if ignored else ""


def _check_targets(extra: list[tuple[str, str]], inputs: list[str], force: bool,
                   rendered: Optional[list] = None) -> None:
    """Exit 2 naming the --report or --write-baseline whose file must not or cannot be
    written (``policylint.writes``); with ``rendered``, writes them all."""
    if not extra:  # a plain run writes nothing: nothing to import
        return
    from .writes import check_targets, write_all
    try:
        if rendered is not None:
            write_all(rendered, inputs, force)
        else:
            check_targets([f for _, f in extra], inputs, force)
    except OSError as exc:
        spec = next((f"--report {fmt_}:{file}" if fmt_ else f"--write-baseline {file}"
                     for fmt_, file in extra if file == exc.filename), "--report FORMAT:FILE")
        _fail(f"{spec}: {exc.strerror or exc}")


def _say_what_ran(result, seconds: float) -> None:
    from .words import count
    ran = sorted({f.rule for f in result.findings})
    _say(f"policylint: policy {result.policy}; read {count(result.files, 'file')}, "
         f"skipped {len(result.skipped)}")
    for name, why in result.skipped:
        _say(f"policylint: skipped {name}: {why}")
    from .linter import placed
    for where in result.placed():
        _say(f"policylint: {placed(*where)}")
    for s in result.unchecked_subjects:  # each one the summary counts, and what it needs
        at = f"{s['file']}:{s['line']}: " if s["file"] else ""
        topic = f"topic {s['topic']}: " if s["topic"] else ""
        _say(f"policylint: unchecked: {at}{s['rule']} {topic}needs {s['needs'] or 'an input'}")
    _say(f"policylint: findings from {', '.join(ran) or 'no rule'}; {seconds:.2f} s")


def _statistics(result, fmt: str) -> str:
    """Findings counted by rule, most first (as ruff's --statistics): a JSON array with
    --format json, else a table."""
    from collections import Counter
    active = [f for f in result.findings if not f.suppressed]
    counted = Counter((f.rule, f.name, f.severity) for f in active)
    fixable = Counter((f.rule, f.name, f.severity) for f in active if f.fix)
    rows = sorted(counted.items(), key=lambda item: (-item[1], item[0]))
    if fmt == "json":
        import json
        return json.dumps([{"rule": rule, "name": name, "severity": severity, "count": n,
                            "fixable": fixable[rule, name, severity]}
                           for (rule, name, severity), n in rows], indent=2) + "\n"
    width = len(str(max(counted.values(), default=0)))
    return "".join(f"{n:>{width}}  {rule}  {'[*]' if fixable[rule, name, severity] else '   '}  "
                   f"{severity:<7}  {name}\n" for (rule, name, severity), n in rows)


def _left(outcomes: list, verb: str) -> list:
    """The files a rewrite changed (or would): those it left as they are are named, with
    why, on stderr ("t.yaml not fixed: ...")."""
    for outcome in outcomes:
        if outcome.problem:
            _say(f"policylint: {outcome.file} not {verb}: {outcome.problem}")
    return [o for o in outcomes if not o.problem]


def _noqa(result, reason: str) -> bool:
    """Inserts the suppression comments; whether any was."""
    from .fixes import add_noqa
    from .words import count
    outcomes = _left(add_noqa(result.findings, " ".join(reason.split()), write=True), "changed")
    done = sum(o.fixed for o in outcomes)
    sys.stderr.write(f"policylint: suppressed {count(done, 'finding')} with comments\n")
    return bool(done)


def _fixes(result, write: bool) -> bool:
    """Applies (``write``) or prints as a unified diff the fixes of ``result``'s findings;
    whether anything was fixed (or would be)."""
    from .fixes import apply
    outcomes = _left(apply(result.findings, write), "fixed")
    if not write:
        text = "".join(o.diff for o in outcomes)
        sys.stdout.write(text)
        return bool(text)
    for outcome in outcomes:
        if outcome.stdin is not None:  # `lint - --fix`: the fixed input on stdout, and it
            sys.stdout.write(outcome.stdin)  # is what the run lints again
            sys.stdin = io.TextIOWrapper(io.BytesIO(outcome.stdin.encode("utf-8",
                                                                         "surrogateescape")))
    fixed = sum(o.fixed for o in outcomes)
    files = sum(1 for o in outcomes if o.fixed)
    from .words import count
    sys.stderr.write(f"policylint: fixed {count(fixed, 'finding')} in {count(files, 'file')}\n")
    return bool(fixed)


@contextmanager
def _captured(bootstrap: Optional[str], command_config: Optional[str]) -> Iterator[list]:
    """The file of the cluster at ``bootstrap``, captured for this run and removed after
    it ([] without ``bootstrap``)."""
    if not bootstrap:
        yield []
        return
    import tempfile
    document = _capture(bootstrap, command_config)
    from . import capture
    with tempfile.TemporaryDirectory(prefix="policylint-") as tmp:
        path = os.path.join(tmp, f"{document['cluster']}.snapshot.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(capture.to_json(document))
        yield [path]


def _bootstrap(text: str) -> str:
    """``--bootstrap-server`` checked before anything is imported or connected: a
    comma-separated list of HOST:PORT (``[::1]:9092`` for IPv6), ports 1-65535."""
    for server in text.split(","):
        host, sep, port = server.strip().rpartition(":")
        host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536 or \
                any(c.isspace() for c in host):
            _fail(f"--bootstrap-server {text!r}: {server.strip()!r} is not HOST:PORT (a port "
                  "from 1 to 65535), e.g. localhost:9092")
    return text


def _capture(bootstrap: str, command_config: Optional[str], **options) -> dict:
    _bootstrap(bootstrap)
    try:
        from .capture import read_cluster
    except ImportError:
        _fail("reading a live cluster needs kafka-python: pip install 'policylint[capture]'")
    progress = None
    if sys.stderr.isatty():
        def progress(done: int, total: int) -> None:
            end = "\n" if done == total else ""
            print(f"\rpolicylint: described {done:,}/{total:,} topics", end=end,
                  file=sys.stderr, flush=True)
    with _exit_2_on_errors("capture failed"):
        return read_cluster(bootstrap, command_config, progress=progress, **options)


@app.command()
def snapshot(
    bootstrap_server: str = typer.Option(..., "--bootstrap-server", metavar="HOST:PORT",
                                         help="Brokers to connect to, comma-separated."),
    command_config: Optional[str] = typer.Option(
        None, "--command-config", metavar="FILE",
        help="Kafka client properties (security.protocol, sasl.mechanism, sasl.jaas.config "
             "for PLAIN and SCRAM, ssl.truststore.location as PEM, ...)."),
    output: Optional[str] = typer.Option(None, "--output", "-o", metavar="FILE",
                                         help="Write the snapshot here, atomically (default: "
                                              "standard output)."),
    topics: Optional[List[str]] = typer.Option(None, "--topic", metavar="GLOB",
                                               help="Only topics matching (repeatable; "
                                                    "default: every topic)."),
    name: Optional[str] = typer.Option(None, "--cluster-name", metavar="NAME",
                                       help="The snapshot's cluster name (default: the "
                                            "cluster id)."),
    timeout: float = typer.Option(30, "--timeout", metavar="SECONDS",
                                  help="How long to wait for each request."),
    retries: int = typer.Option(3, "--retries", metavar="N",
                                help="How often to read again partitions whose reassignment "
                                     "changed during the read (KIP-860)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show the Kafka client's log."),
) -> None:
    """Capture a live cluster as a ClusterSnapshot, KIP-860-safe (needs
    policylint[capture])."""
    if timeout <= 0 or retries < 0:
        _fail("--timeout must be positive and --retries at least 0")
    document = _capture(bootstrap_server, command_config, name=name, topics=topics or (),
                        retries=retries, timeout=timeout, verbose=verbose)
    from . import capture
    text = capture.to_json(document)
    if output is None:
        sys.stdout.write(text)
        return
    from .writes import write_all
    try:
        write_all([(output, text)])
    except OSError as exc:
        _fail(f"--output {output}: {exc.strerror or exc}")
    from .words import count
    uncertain = document["capture"]["uncertain"]
    partitions = sum(len(t["partitions"]) for t in document["topics"])
    typer.echo(f"policylint: wrote {output}: {count(len(document['topics']), 'topic')}, "
               f"{count(partitions, 'partition')}, {count(len(document['brokers']), 'broker')}"
               + (f"; {count(uncertain, 'partition')} read inconsistently, marked uncertain "
                  "(PL204)" if uncertain else ""), err=True)


@app.command()
def plan(
    snapshot_file: str = typer.Argument(..., metavar="SNAPSHOT",
                                        help="A ClusterSnapshot (policylint snapshot), or "
                                             "kafka-topics.sh --describe output with "
                                             "--brokers."),
    add: Optional[List[str]] = typer.Option(None, "--add", "--add-brokers", metavar="ID[:RACK]",
                                            help="Brokers that join: replicas move onto them "
                                                 "(repeatable, comma-separated)."),
    remove: Optional[List[str]] = typer.Option(None, "--remove", "--remove-brokers", "--drain",
                                               metavar="ID",
                                               help="Brokers to drain: every replica leaves "
                                                    "them (repeatable, comma-separated)."),
    replace: Optional[List[str]] = typer.Option(None, "--replace", "--replace-broker",
                                                metavar="OLD=NEW",
                                                help="A broker whose replicas another takes "
                                                     "(in its rack unless --add says)."),
    repair: bool = typer.Option(False, "--repair/--rebalance",
                                help="--repair: move only what must move (removed, unknown or "
                                     "placeholder replicas, broken rack spread, an RF asked "
                                     "for); without it, replicas and leaders are also "
                                     "balanced over the brokers."),
    topics: Optional[List[str]] = typer.Option(None, "--topics", "--topic", metavar="GLOB",
                                               help="Only topics matching (repeatable)."),
    rf: Optional[List[str]] = typer.Option(None, "--rf", metavar="TOPIC=N",
                                           help="Change a topic's RF, where the policy allows "
                                                "it (allow_rf_change, as PL201)."),
    brokers: Optional[str] = typer.Option(None, "--brokers", metavar="ID[:RACK],...",
                                          help="The cluster's brokers, for input that does "
                                               "not list them (kafka-topics.sh --describe)."),
    log_dirs: Optional[str] = typer.Option(None, "--log-dirs", metavar="FILE",
                                           help="kafka-log-dirs.sh --describe output: the "
                                                "data each move copies, and smaller "
                                                "partitions moved first."),
    balance_bytes: bool = typer.Option(False, "--balance-bytes",
                                       help="Also even out the bytes each broker holds "
                                            "(needs --log-dirs): replicas of a rack's "
                                            "fullest and emptiest brokers are swapped."),
    policy: Optional[str] = typer.Option(None, "--config", "--policy", metavar="FILE",
                                         help="Policy file (default: discovered as lint "
                                              "does): its rules judge the plan."),
    output: Optional[str] = typer.Option(None, "--output", "-o", metavar="FILE",
                                         help="Write the plan here, its rollback beside it "
                                              "(FILE.rollback.json) and each batch "
                                              "(FILE.batch-N.json); default: the plan on "
                                              "standard output."),
    rollback: Optional[str] = typer.Option(None, "--rollback", metavar="FILE",
                                           help="Where to write the rollback (today's "
                                                "assignment of every partition the plan "
                                                "names)."),
    max_moves: Optional[int] = typer.Option(
        None, "--max-moves", metavar="N", min=1,
        help="The best plan of at most N replica moves: those that must happen (drains, "
             "rack spread, RF changes), then the balance moves that even out the brokers "
             "most; the rest is left for a later plan."),
    max_per_broker: Optional[int] = typer.Option(None, "--max-moves-per-broker", metavar="N",
                                                 min=1, help="Batches in which no broker "
                                                             "receives more than N replicas."),
    batch_size: Optional[int] = typer.Option(None, "--batch-size", metavar="N", min=1,
                                             help="Batches of at most N partitions."),
    throttle: Optional[str] = typer.Option(None, "--throttle", metavar="BYTES/S",
                                           help="The replication throttle to run the batches "
                                                "with (e.g. 50M): printed in each command "
                                                "with each batch's time."),
    allow_in_flight: bool = typer.Option(False, "--allow-in-flight",
                                         help="Plan while a reassignment is in flight "
                                              "(PL306): its partitions stay as they are."),
    include_under_replicated: bool = typer.Option(
        False, "--include-under-replicated",
        help="Move under-replicated partitions too (PL305 warns of them)."),
    force: bool = typer.Option(False, "--force", help="Replace existing files."),
    one_replica: bool = typer.Option(
        False, "--one-replica-at-a-time",
        help="Batches in which no partition gains more than one new replica (each batch "
             "file sets the lists as that step leaves them)."),
    leaders_only: bool = typer.Option(
        False, "--leaders-only",
        help="Reorder preferred leaders only, no data moved: the plan, and the "
             "kafka-leader-election.sh command (and file) that elects them."),
) -> None:
    """Write a reassignment plan (Kafka's JSON) from a snapshot: add, drain or replace
    brokers, rebalance, or repair, with the fewest moves; linted before it is written
    (needs policylint[plan])."""
    from .planner import PlanError, Request
    from .planning import brokers_spec, run as run_plan
    with _exit_2_on_errors():
        try:
            added = brokers_spec(",".join(add or []))
            removed = frozenset(brokers_spec(",".join(remove or [])))
            pairs = [item.split("=", 1) for v in replace or [] for item in v.split(",")]
            racks = {int(b): r for _, new in pairs for b, r in brokers_spec(new).items()}
            replaced = {int(old): int(new.split(":")[0]) for old, new in pairs}
            rfs = {t: int(n) for t, n in (item.rsplit("=", 1) for item in rf or [])}
        except ValueError:
            _fail("--replace takes OLD=NEW[:RACK] broker ids, --rf TOPIC=N")
        if any(n < 1 for n in rfs.values()):
            _fail("--rf must be at least 1")
        if balance_bytes and repair:
            _fail("--balance-bytes evens out bytes and --repair moves only what must move: "
                  "give one of them")
        try:
            rate = _size(throttle) if throttle else None
        except typer.BadParameter:
            _fail(f"--throttle takes a rate in bytes per second like 50M, not {throttle!r}")
        goal = "preferred leaders only" if leaders_only else "repair" if repair else "balance"
        what = "; ".join(filter(None, [
            added and "add brokers " + ", ".join(map(str, added)),
            removed and "drain brokers " + ", ".join(map(str, sorted(removed))),
            replaced and ", ".join(f"replace {o} by {n}" for o, n in replaced.items()),
            rfs and ", ".join(f"RF of {t} to {n}" for t, n in rfs.items()),
            goal])) + f" ({snapshot_file})"
        try:
            import ortools  # noqa: F401
        except ImportError:
            _fail("policylint plan needs OR-Tools: pip install 'policylint[plan]'")
        if balance_bytes and not log_dirs:
            _fail("--balance-bytes needs the partitions' sizes: give --log-dirs")
        if leaders_only and max_moves is not None:
            _fail("--leaders-only moves no replica: --max-moves does not apply")
        if leaders_only and (added or removed or replaced or rfs or repair or balance_bytes):
            _fail("--leaders-only moves no replica: give it without --add, --remove, "
                  "--replace, --rf, --repair or --balance-bytes")
        request = Request(add=added, remove=removed, replace=replaced, leaders_only=leaders_only,
                          racks={b: r for b, r in racks.items() if r is not None},
                          balance=not repair,
                          bytes_too=balance_bytes,
                          topics=tuple(topics or ()), rf=rfs, in_flight=allow_in_flight,
                          under_replicated=include_under_replicated, max_moves=max_moves)
        try:
            written = run_plan(snapshot_file, request, brokers=brokers, log_dirs=log_dirs,
                               policy=policy, output=output, rollback=rollback,
                               max_per_broker=max_per_broker, batch_size=batch_size,
                               throttle=rate, what=what, one_replica=one_replica)
        except PlanError as exc:
            _fail(str(exc))
    from .reporters import render
    found = written.linted.findings if written.linted is not None else []
    if any(f.severity == "error" for f in found):
        sys.stderr.write(written.summary)
        sys.stderr.write("policylint: the plan (as it would be written) breaks the policy; "
                         "nothing written:\n")
        sys.stderr.write(render("concise", written.linted, quiet=True))
        raise typer.Exit(1)
    from .writes import check_targets, write_all
    # the files of an earlier run of the same -o that this one does not write (its batches)
    # go, so that no old batch is left to be run; refused before anything is written
    kept = {path for path, _ in written.files}
    stale = [p for p in written.stale if p not in kept and os.path.lexists(p)]
    try:
        inputs = [snapshot_file, *(p for p in (log_dirs, policy) if p)]
        check_targets(stale, inputs, force)
        write_all(written.files, inputs, force)
        for path in stale:
            os.unlink(path)
        if not output:
            sys.stdout.write(written.plan)
            sys.stdout.flush()
    except OSError as exc:
        _fail(f"{exc.filename or output or 'standard output'}: {exc.strerror or exc}")
    if found:  # written: what lint warns of in it (an exit 2 above says one line only)
        sys.stderr.write("policylint: what lint warns of in the plan:\n")
        sys.stderr.write(render("concise", written.linted, quiet=True))
    sys.stderr.write(written.summary)


@app.command()
def audit(
    source: str = typer.Argument(..., metavar="INPUT",
                                 help="A directory or file of ClusterSnapshots (JSON or YAML, "
                                      "any number of clusters and capture times; any Hadoop "
                                      "path such as hdfs://), or with --input-format the "
                                      "directory of the normalised tables."),
    output: str = typer.Option(..., "--output", metavar="DIR",
                               help="Where findings/ (partitioned by cluster) and summary/ "
                                    "are written."),
    input_format: str = typer.Option("files", "--input-format", metavar="FORMAT",
                                     help="files (snapshot files), parquet or json (the "
                                          "normalised tables brokers/, topics/, partitions/, "
                                          "clusters/ under INPUT)."),
    fmt: str = typer.Option("parquet", "--format", metavar="FORMAT",
                            help="parquet or json (JSON lines) for findings and summary."),
    master: Optional[str] = typer.Option(None, "--master", metavar="URL",
                                         help="Spark master (default: the one spark-submit "
                                              "set, else an embedded local[*] on "
                                              "127.0.0.1)."),
    policy: Optional[str] = typer.Option(None, "--config", "--policy", metavar="FILE",
                                         help="Policy file, as for lint."),
    select: Optional[List[str]] = typer.Option(None, "--select", metavar="CODES",
                                               autocompletion=lambda: _rule_codes(),
                                               help="Only these rules (as for lint)."),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", metavar="CODES",
                                               help="Leave out these rules (as for lint)."),
    report: Optional[str] = typer.Option(None, "--report", metavar="FILE.html",
                                         help="Also write a self-contained HTML report with "
                                              "charts."),
    engine: str = typer.Option("auto", "--engine", metavar="ENGINE",
                               help="auto (in-process for up to 256 MiB of snapshot files, "
                                    "else Spark), local, spark, or spark-generic (Spark "
                                    "with every rule on the generic Python path; for "
                                    "comparison)."),
    fail_on: Optional[str] = typer.Option(None, "--fail-on", metavar="SEVERITY",
                                          help="Exit 1 when a finding of the latest captures "
                                               "is at least this severe (default: never; an "
                                               "audit reports)."),
    verbose: bool = typer.Option(False, "--verbose", "-v",
                                 help="Show each stage and Spark's own "
                                                          "log."),
) -> None:
    """Audit a fleet of cluster snapshots, in-process or on Apache Spark (needs
    policylint[spark])."""
    for name, value, allowed in (("--input-format", input_format, ("files", "parquet", "json")),
                                 ("--format", fmt, ("parquet", "json")),
                                 ("--engine", engine, ENGINES),
                                 ("--fail-on", fail_on or "error", FAIL_ON)):
        if value not in allowed:
            _fail(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
    from .spark.pipeline import choose_engine, run_audit
    with _exit_2_on_errors("audit failed"):
        chosen, why = choose_engine(engine, source, input_format, master)
    needed = "pyspark" if chosen.startswith("spark") else "pyarrow" if fmt == "parquet" \
        else None
    if needed:
        try:
            __import__(needed)
        except ImportError:
            extra = "spark" if needed == "pyspark" else "audit"  # the smallest that has it
            _fail(f"this audit needs {needed}: pip install 'policylint[{extra}]'"
                  + (" (or --format json)" if needed == "pyarrow" else ""))
    with _exit_2_on_errors("audit failed"):  # Spark's errors are long: the first line says what
        code = run_audit(source, output, input_format=input_format, fmt=fmt, master=master,
                         policy=policy, select=_codes(select), ignore=_codes(ignore),
                         report=report, engine=chosen, why=why, fail_on=fail_on, verbose=verbose)
    raise typer.Exit(code)


@app.command()
def server(
    stdio: bool = typer.Option(False, "--stdio", hidden=True,
                               help="Standard input and output (the only transport; editors' "
                                    "clients add this flag)."),
) -> None:
    """Serve the findings to an editor: a Language Server Protocol server on standard input
    and output (needs policylint[server]). See the README for VS Code, Neovim and Helix."""
    try:
        import pygls  # noqa: F401
    except ImportError:
        _fail("policylint server needs pygls: pip install 'policylint[server]'")
    from .server import serve
    serve()


@app.command()
def export(
    policy: Optional[str] = typer.Argument(None, metavar="[POLICY]",
                                           help="The policy file (default: the one found "
                                                "upward from the working directory)."),
    target: str = typer.Option(..., "--for", metavar="kafka-controller",
                               help="What the policy is exported for: kafka-controller (the "
                                    "controller plugin's bundle, see the README's 'At the "
                                    "controller')."),
    output: str = typer.Option("-", "-o", "--output", metavar="FILE",
                               help="Write the bundle to FILE (default: standard output)."),
    fail: str = typer.Option("closed", "--fail", metavar="closed|open",
                             help="What the plugin does with every request while the bundle "
                                  "cannot be loaded: closed refuses them, open admits them."),
    force: bool = typer.Option(False, "--force",
                               help="Replace an existing FILE that is not policylint's own "
                                    "output."),
) -> None:
    """Export the policy for the Kafka controller: every rule a topic creation or config
    change can decide, as CEL and release tables, with the policy's exemptions; the rules
    that need more (the cluster's state, a diff) are listed, not dropped."""
    import json
    from . import policy as policies
    from .export import bundle
    if target != "kafka-controller":
        _fail(f"--for must be kafka-controller, not {target!r}")
    if fail not in ("closed", "open"):
        _fail(f"--fail must be closed or open, not {fail!r}")
    with _exit_2_on_errors():
        made_from = policies.load(policy)
        made = bundle(made_from, fail=fail)
    text = json.dumps(made, indent=1, ensure_ascii=False) + "\n"
    if output == "-":
        sys.stdout.write(text)
    else:
        from .writes import write_all
        try:  # atomically; never over the policy itself or a file that is not ours
            write_all([(output, text)], [made_from.source] if made_from.source else [], force)
        except OSError as exc:
            _fail(f"-o {output}: {exc.strerror or exc}")
    # the policy's own rules and options that stay behind are said; the built-ins that
    # need a cluster are listed in the bundle's not_exported
    own = {r.code for r in made_from.custom_rules} | set(made_from.rules)
    for item in made["not_exported"]:
        if item["code"] in own:
            _say(f"policylint: {item['code']} {item['name']} not exported: {item['why']}")
    _say(f"policylint: {len(made['rules'])} rules exported for the Kafka controller"
         + (f" to {output}" if output != "-" else "") + f"; {len(made['not_exported'])} "
         "need more than a request carries (the bundle's not_exported)")


@app.command("rules")
def list_rules(fmt: str = typer.Option("text", "--format", "--output-format",
                                       metavar="text|json",
                                       help="text (a table) or json (for tools).")) -> None:
    """List every rule: code, name, default severity and summary."""
    from . import policy as policies
    from .registry import all_rules
    with _exit_2_on_errors():
        default = policies.load_pack("default")
        try:  # and the discovered policy's own rules; a broken one is lint's to say
            own = policies.load().custom_rules
        except policies.PolicyError:
            own = []
        rules = {**all_rules(), **{r.code: r for r in own}}
    if fmt == "json":
        import json
        typer.echo(json.dumps([{"code": r.code, "name": r.name, "severity": r.severity,
                                "default_enabled": default.enabled(r) and r.applies(
                                    default.options(r)),
                                "fixable": r.fixable, "summary": r.summary(),
                                "url": r.help_uri()} for r in rules.values()], indent=2))
        return
    if fmt != "text":
        _fail(f"--format for rules is text or json, not {fmt!r}")
    rows = [(r.code, r.name, r.severity, r.summary()) for r in rules.values()]
    width = max(len(name) for _, name, _, _ in rows)
    for code, name, severity, summary in rows:
        typer.echo(f"{code}  {name:<{width}}  {severity:<7}  {summary}")


@app.command()
def explain(rule: str = typer.Argument(..., help="A rule code (PL301) or name, or one of "
                                                 "the policy's CEL rules."),
            policy: Optional[str] = typer.Option(None, "--config", "--policy", metavar="FILE",
                                                 help="Policy file whose CEL rules to know "
                                                      "(default: discovered from here).")
            ) -> None:
    """Show a rule's documentation."""
    from . import policy as policies
    with _exit_2_on_errors():
        chosen = policies.load(policy)
        found = chosen.find(rule)
    if found is None:
        import difflib
        from .registry import all_rules
        every = [*all_rules().values(), *chosen.custom_rules]
        known = [r.code for r in every] + [r.name for r in every]
        near = difflib.get_close_matches(rule.upper() if rule[:2].lower() == "pl" else rule,
                                         known, n=1, cutoff=0.6)
        where = "" if near or rule[:2].upper() == "PL" else (
            f"; a policy's own rules are known with it: policylint explain {rule} --policy "
            f"FILE (the policy here: {chosen.source})")
        _fail(f"no rule {rule!r}" + (f"; did you mean {near[0]}?" if near else "") + where
              + " (see 'policylint rules')")
    uri = found.help_uri()
    typer.echo(f"{found.code} {found.name} (default severity: {found.severity})\n\n"
               f"{found.documentation()}" + (f"\n\nOnline: {uri}" if uri else ""))


def _click_style_completion(var: str = "_POLICYLINT_COMPLETE") -> None:
    """Shell completion as Click documents it (``bash_source``, ``zsh_complete``) as well as
    typer's own order (``source_bash``)."""
    shell, _, instruction = os.environ.get(var, "").partition("_")
    if instruction in ("source", "complete") and shell in ("bash", "zsh", "fish"):
        os.environ[var] = f"{instruction}_{shell}"


@lru_cache(maxsize=None)
def _command(name: str | None = None) -> Any:
    """The click command typer makes of ``app``, made once: a process that runs policylint
    many times (a fuzz campaign, a test session) does not rebuild it each time. With
    ``name``, the group holds that command alone: a run of one command does not make the
    others' options (5 of the 10 ms it takes, in every pre-commit run)."""
    if name is None:
        return typer.main.get_command(app)
    one = copy.copy(app)
    one.registered_commands = [c for c in app.registered_commands if _name(c) == name]
    return typer.main.get_command(one)


def _name(command: Any) -> str:
    return command.name or typer.main.get_command_name(command.callback.__name__)


def _invoked(argv: list[str]) -> str | None:
    """The command ``argv`` runs when it starts with one (no option of the group before
    it, no shell completion asking about them all)."""
    if argv and "_POLICYLINT_COMPLETE" not in os.environ and \
            any(_name(c) == argv[0] for c in app.registered_commands):
        return argv[0]
    return None


def run(argv: list[str] | None = None) -> int:
    """``policylint ARGV`` in this process; its exit status. Usage errors are one line, as
    every other error."""
    _click_style_completion()
    try:
        code = _command(_invoked(sys.argv[1:] if argv is None else argv))(
            argv, standalone_mode=False)
        if code == 130:  # typer's answer to Ctrl-C (KeyboardInterrupt), said before ours
            _interrupted()
        return code if isinstance(code, int) else 0
    except typer.TyperException as exc:
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        code = getattr(exc, "exit_code", 2)
        if type(exc).__name__ == "NoArgsIsHelpError":  # no command: the help, as asked
            print(message, file=sys.stderr)
        else:
            hint = " (see 'policylint --help')" if code == 2 else ""
            print(f"policylint: error: {_one_line(message)}{hint}", file=sys.stderr)
        return code
    except (typer.Abort, KeyboardInterrupt):  # Ctrl-C
        _interrupted()
        return 130
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1


def _interrupted() -> None:
    """One line: interrupted, and which files were written before (each is whole: writes
    hold Ctrl-C off until a file is renamed into place)."""
    from .writes import written
    done = ", ".join(_one_line(name) for name in written)
    print(f"policylint: interrupted; {'wrote ' + done if done else 'nothing was written'}",
          file=sys.stderr)


_KEPT: list | None = None  # in main(): what a run built, for os._exit to drop at once


def main() -> None:
    """The ``policylint`` process. It alone decides how the process runs and ends: a run
    builds millions of small objects and no garbage cycles worth collecting, so the cyclic
    collector, which would walk the whole model again and again (seconds for a large plan),
    stays off; and at the end the process exits without freeing the model object by object.
    (Spark's JVM ends when this process does: it watches its standard input.)"""
    global _KEPT
    gc.disable()
    _KEPT = []
    try:
        code = run()
    except BrokenPipeError:  # `policylint lint | head`
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        code = code or 1
    except ValueError:  # closed: `policylint server`'s client hung up, as it may
        pass
    os._exit(code)
