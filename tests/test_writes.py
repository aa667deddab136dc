"""Nothing lost: policylint writes what the user asked for, where they asked, and nothing
else; every file is old or whole after any interruption, and none is waited on."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import write_files

TOPIC = textwrap.dedent("""\
    apiVersion: kafka.strimzi.io/v1beta2
    kind: KafkaTopic
    metadata: {name: orders}
    spec:
      replicas: 3
      config:
        min.insync.replicas: 4
    """)
FIXED = TOPIC.replace("min.insync.replicas: 4", "min.insync.replicas: 2")


def run(cwd, *args, timeout=60):
    done = subprocess.run([sys.executable, "-m", "policylint", "lint", "--select", "PL",
                           *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def repo(tmp_path):
    write_files(tmp_path, {"topics/orders.yaml": TOPIC, "NOTES.md": "# our notes\n"})
    return tmp_path


# -- reports and baselines ----------------------------------------------------------------

def test_a_file_that_is_not_policylints_is_not_overwritten(repo):
    code, _, err = run(repo, "topics", "--write-baseline", "NOTES.md")
    assert code == 2 and "NOTES.md: exists and is not policylint's output" in err
    assert "--force" in err and (repo / "NOTES.md").read_text() == "# our notes\n"
    code, _, _ = run(repo, "topics", "--write-baseline", "NOTES.md", "--force")
    assert code == 0 and json.loads((repo / "NOTES.md").read_text())["findings"]


def test_an_input_of_the_run_is_never_a_target(repo):
    """--write-baseline topics/*.yaml, as a shell expands it, and a report onto a manifest
    of a walked directory: the manifest is kept, whatever --force says."""
    for args in (["--write-baseline", "topics/orders.yaml", "topics"],
                 ["topics", "--report", "json:topics/orders.yaml", "--force"]):
        code, _, err = run(repo, *args)
        assert code == 2 and ("an input of this run: not overwritten" in err or
                              "exists and is not policylint's output" in err), args
        assert (repo / "topics/orders.yaml").read_text() == TOPIC


def test_two_targets_that_are_one_file_are_refused(repo):
    code, _, err = run(repo, "topics", "--report", "json:out.json", "--report",
                       "sarif:./out.json")
    assert code == 2 and "the same file as" in err and not (repo / "out.json").exists()
    (repo / "out.json").write_text("")
    os.symlink("out.json", repo / "link.json")
    code, _, err = run(repo, "topics", "--report", "json:out.json", "--report",
                       "sarif:link.json")
    assert code == 2 and "the same file as" in err


def test_policylints_own_reports_are_written_again(repo):
    for fmt in ("json", "sarif", "text", "github", "checkstyle", "gitlab", "junit",
                "markdown", "concise"):
        for _ in range(2):
            code, _, err = run(repo, "topics", "--report", f"{fmt}:report.out")
            assert code == 1, (fmt, err)


def test_a_symbolic_link_is_written_through_and_a_device_too(repo):
    (repo / "reports").mkdir()
    os.symlink("reports/real.json", repo / "report.json")
    code, _, _ = run(repo, "topics", "--report", "json:report.json")
    assert code == 1 and os.path.islink(repo / "report.json")
    assert json.loads((repo / "reports/real.json").read_text())["findings"]
    code, out, err = run(repo, "topics", "--format", "concise", "--report", "json:/dev/stdout")
    assert code == 1, err and '"findings"' in out and os.path.exists("/dev/stdout")
    code, _, _ = run(repo, "topics", "--report", "json:/dev/null")
    assert code == 1 and not os.path.isfile("/dev/null")


def test_fifos_are_refused_not_waited_on(repo):
    os.mkfifo(repo / "fifo")
    code, _, err = run(repo, "topics", "--report", "json:fifo", timeout=20)
    assert code == 2 and "fifo: a FIFO that nothing reads: not written" in err
    code, _, err = run(repo, "topics", "--baseline", "fifo", timeout=20)
    assert code == 2 and "baseline fifo: cannot be read" in err


# -- a user's file -------------------------------------------------------------------------

def test_fix_keeps_a_read_only_file_and_says_so(repo):
    os.chmod(repo / "topics/orders.yaml", 0o444)
    code, _, err = run(repo, "topics", "--fix")
    assert "orders.yaml not fixed: read-only" in err and code == 1
    assert (repo / "topics/orders.yaml").read_text() == TOPIC


def test_fix_writes_through_a_symbolic_link_to_its_target(repo):
    os.symlink("topics/orders.yaml", repo / "linked.yaml")
    code, _, _ = run(repo, "linked.yaml", "--fix")
    assert code == 0 and os.path.islink(repo / "linked.yaml")
    assert (repo / "topics/orders.yaml").read_text() == FIXED


def test_fix_writes_the_file_it_read_by_the_path_it_read(repo, tmp_path_factory):
    """``d/../x.yaml`` with ``d`` a link to another folder is that folder's parent's
    x.yaml for the system: that one is fixed, not ./x.yaml."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    write_files(elsewhere, {"inner/.keep": "", "x.yaml": TOPIC})
    write_files(repo, {"x.yaml": TOPIC})
    os.symlink(elsewhere / "inner", repo / "d")
    code, _, _ = run(repo, "d/../x.yaml", "--fix")
    assert code == 0
    assert (elsewhere / "x.yaml").read_text() == FIXED
    assert (repo / "x.yaml").read_text() == TOPIC


def test_fix_refuses_to_part_hard_links(repo):
    os.link(repo / "topics/orders.yaml", repo / "also.yaml")
    code, _, err = run(repo, "also.yaml", "--fix")
    assert "has 2 hard links: not fixed" in err
    assert (repo / "also.yaml").read_text() == TOPIC
    assert os.stat(repo / "also.yaml").st_nlink == 2


def test_fix_keeps_mode_owner_and_byte_order_mark(repo):
    path = repo / "topics/orders.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + TOPIC.encode())
    os.chmod(path, 0o640)
    if os.geteuid() == 0:
        os.chown(path, 4321, 4321)
    code, _, _ = run(repo, "topics", "--fix")
    info = os.stat(path)
    assert code == 0 and path.read_bytes() == b"\xef\xbb\xbf" + FIXED.encode()
    assert info.st_mode & 0o777 == 0o640
    if os.geteuid() == 0:
        assert (info.st_uid, info.st_gid) == (4321, 4321)


# -- interruptions and concurrent edits, injected at chosen points ------------------------

HOOK = textwrap.dedent("""\
    import os, signal, sys
    from policylint import writes
    point = sys.argv[1]
    real = {"replace": os.replace, "fill": writes._fill}
    def replace(src, dst):
        if point == "replace":
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C just before the rename
        real["replace"](src, dst)
        if point == "after":
            os.kill(os.getpid(), signal.SIGINT)  # ... and just after it
    def fill(fd, data):
        real["fill"](fd, data)
        if point == "edit":  # an editor's autosave between the read and the rename
            with open("topics/orders.yaml", "a") as f:
                f.write("# edited meanwhile\\n")
        if point == "fifo":  # the file swapped for a FIFO after it was read
            os.unlink("topics/orders.yaml")
            os.mkfifo("topics/orders.yaml")
    os.replace, writes._fill = replace, fill
    from policylint.cli import run
    os._exit(run(sys.argv[2:]))
    """)


def hooked(repo, point, *args):
    done = subprocess.run([sys.executable, "-c", HOOK, point, "lint", "--select", "PL", *args],
                          cwd=repo,
                          capture_output=True, text=True, timeout=60)
    return done.returncode, done.stderr


@pytest.mark.parametrize("point", ["replace", "after"])
def test_ctrl_c_during_a_fix_leaves_the_file_whole_and_no_temporary_file(repo, point):
    code, err = hooked(repo, point, "topics", "--fix")
    assert code == 130 and err.strip().splitlines()[-1] == \
        "policylint: interrupted; wrote topics/orders.yaml"
    assert (repo / "topics/orders.yaml").read_text() == FIXED
    assert not [p for p in repo.rglob(".policylint-*")]


def test_ctrl_c_during_a_report_writes_all_reports_or_none_and_says_which(repo):
    code, err = hooked(repo, "replace", "topics", "--report", "json:a.json", "--report",
                       "sarif:b.sarif")
    assert code == 130 and "interrupted; wrote" in err
    assert json.loads((repo / "a.json").read_text()) and json.loads(
        (repo / "b.sarif").read_text())
    assert not [p for p in repo.rglob(".policylint-*")]


def test_an_edit_made_before_the_last_check_is_not_lost(repo):
    code, err = hooked(repo, "edit", "topics", "--fix")
    assert "changed on disk since it was read: not overwritten" in err
    assert (repo / "topics/orders.yaml").read_text() == TOPIC + "# edited meanwhile\n"
    assert not [p for p in repo.rglob(".policylint-*")]


def test_a_file_swapped_for_a_fifo_is_not_waited_on(repo):
    code, err = hooked(repo, "fifo", "topics", "--fix")
    assert "orders.yaml not fixed: cannot be written: not a regular file" in err
    assert code == 1 and not [p for p in repo.rglob(".policylint-*")]
