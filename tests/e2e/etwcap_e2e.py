"""Shared helpers for the end-to-end tests: run the real etwcap binary
(natively, or etwcap.exe under Wine) and look at exit codes and output.

Every test script takes --etwcap "COMMAND" (split with shlex: under Wine it is
"env WINEPREFIX=... wine64 .../etwcap.exe") and --target.  Exit code 77 means
skipped (ctest's SKIP_RETURN_CODE)."""
import argparse
import os
import shlex
import shutil
import subprocess
import sys

SKIP = 77


class Etwcap:
    def __init__(self):
        parser = argparse.ArgumentParser()
        parser.add_argument("--etwcap", required=True)
        parser.add_argument("--target", required=True)
        args = parser.parse_args()
        self.command = shlex.split(args.etwcap)
        self.target = args.target
        self.windows = args.target.startswith("windows")
        self.failures = 0
        self.passed = 0

    def run(self, *args, input_bytes=None, cwd=None):
        """Runs etwcap with args; returns (exit code, stdout, stderr) as text."""
        def once():
            return subprocess.run(self.command + list(args), input=input_bytes,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  cwd=cwd, timeout=600)
        proc = once()
        # Under a loaded machine Wine has now and then ended a start-up with
        # exit 1 and no output at all, or lost its wineserver mid-run ("wine
        # client error:0: recvmsg: Connection reset by peer").  etwcap never
        # fails silently and never prints Wine's message, so those are Wine's,
        # and the run is tried once more (tests/tools/wine_run.sh does the same
        # for the unit tests).
        if self.windows and proc.returncode != 0 and (
                (proc.returncode == 1 and not proc.stdout and not proc.stderr) or
                b"wine client error:" in proc.stderr):
            print("note: Wine failed etwcap.exe (exit %d) with no output of etwcap's or "
                  "with its own client error; running it again" % proc.returncode)
            proc = once()
        return (proc.returncode, proc.stdout.decode("utf-8", "replace"),
                proc.stderr.decode("utf-8", "replace"))

    def check(self, condition, what):
        if condition:
            self.passed += 1
        else:
            self.failures += 1
            print("FAIL: " + what)

    def finish(self):
        print("%d passed, %d failed" % (self.passed, self.failures))
        sys.exit(1 if self.failures else 0)


def samples_dir():
    """The Linux path of the shared samples, or None when absent."""
    env = os.environ.get("ETWCAP_SAMPLES", "")
    if env[:2].upper() == "Z:":
        env = env[2:]
    return env if env and os.path.isdir(env) else None


def tmp_dir():
    env = os.environ.get("ETWCAP_TEST_TMP", "")
    if env[:2].upper() == "Z:":
        env = env[2:]
    path = env or os.getcwd()
    os.makedirs(path, exist_ok=True)
    return path


def to_target_path(t, path):
    """A Linux path as the binary under test sees it (Z:... under Wine)."""
    return "Z:" + path if t.windows else path


def samples_and_work(name):
    """(the samples folder, a fresh empty folder NAME under the tests'
    scratch folder); exits 77 (skipped) when the samples are absent."""
    samples = samples_dir()
    if not samples:
        print("skipped: needs the shared samples (ETWCAP_SAMPLES)")
        sys.exit(SKIP)
    work = os.path.join(tmp_dir(), name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    return samples, work
