"""etwcap schedule: the Task Scheduler task of a week-long capture.  /WhatIf
prints the task's XML on any OS; it is checked against Microsoft's Task
Scheduler schema reference (taskType: Actions is the one required child;
execType: Command required; restartType: Interval and Count required) and
the settings the issue asks for (S-1-5-18, HighestAvailable, PT0S, abort
before collect).  Under Wine the task is registered with Wine's schtasks,
which keeps its tasks as files under C:\\windows\\system32\\tasks and
has no /Query, so schedule list is checked only for running the system
folder's schtasks."""
import os
import subprocess
import re
import xml.etree.ElementTree as ET

from etwcap_e2e import Etwcap, tmp_dir

NS = {"t": "http://schemas.microsoft.com/windows/2004/02/mit/task"}
t = Etwcap()

rc, out, err = t.run("schedule", "create", "nightly", "/WhatIf", "collect", "/CircularMB:4096",
                     "/StopOnGen2GC")
t.check(rc == 0, "schedule create /WhatIf exits 0: %d %r" % (rc, err))
root = None
try:
    root = ET.fromstring(out.encode("utf-8"))
except ET.ParseError as e:
    t.check(False, "the task XML is well-formed: %s\n%s" % (e, out[:400]))
if root is not None:
    t.check(root.tag == "{%s}Task" % NS["t"] and root.get("version") == "1.2",
            "root: Task of the 1.2 schema's namespace: %r %r" % (root.tag, root.get("version")))
    execs = root.findall("t:Actions/t:Exec", NS)
    t.check(len(execs) == 2 and all(e.find("t:Command", NS) is not None for e in execs),
            "Actions holds two Exec, each with its Command")
    args = [e.findtext("t:Arguments", "", NS) for e in execs]
    t.check(len(args) == 2 and args[0].split()[0] == "abort"
            and args[1] == "collect /CircularMB:4096 /StopOnGen2GC",
            "abort runs before the capture: %r" % args)
    t.check(root.findtext("t:Principals/t:Principal/t:UserId", "", NS) == "S-1-5-18"
            and root.findtext("t:Principals/t:Principal/t:RunLevel", "", NS)
            == "HighestAvailable", "runs as LocalSystem with the highest privileges")
    t.check(root.findtext("t:Settings/t:ExecutionTimeLimit", "", NS) == "PT0S",
            "no execution time limit (PT0S)")
    t.check(root.findtext("t:Settings/t:StartWhenAvailable", "", NS) == "true"
            and root.find("t:Settings/t:RestartOnFailure/t:Interval", NS) is not None
            and root.find("t:Settings/t:RestartOnFailure/t:Count", NS) is not None,
            "starts when available, restarts on failure (Interval and Count)")
    t.check(root.find("t:Triggers/t:BootTrigger", NS) is not None, "starts at boot")
    principal = root.find("t:Principals/t:Principal", NS)
    t.check(principal is not None and root.find("t:Actions", NS).get("Context")
            == principal.get("id"), "the actions run in the principal's context")
nightly = root

# Escaping: a DataFile with & and quotes comes back whole from the
# Arguments, as Windows splits a command line.
rc, out, err = t.run("schedule", "create", "odd", "/WhatIf", "collect",
                     'C:\\traces\\a&b "x".etl', "/SessionName:nightly")
t.check(rc == 0 and "&amp;" in out and "a&b" not in out.replace("&amp;", ""),
        "XML-escaped: %d %r" % (rc, err))
if rc == 0:
    root = ET.fromstring(out.encode("utf-8"))
    args = [e.findtext("t:Arguments", "", NS) for e in root.findall("t:Actions/t:Exec", NS)]
    t.check(args[0] == "abort /SessionName:nightly", "abort keeps /SessionName: %r" % args)
    t.check('"C:\\traces\\a&b \\"x\\".etl"' in args[1], "quoted for Windows: %r" % args[1])

# The longest /SessionName the plan takes (900 characters) reaches the
# abort step whole, as the capture gets it: cut, abort would stop another
# session, or none.
long_name = "S" * 900
rc, out, err = t.run("schedule", "create", "long", "/WhatIf", "collect",
                     "/SessionName:" + long_name)
t.check(rc == 0, "a 900-character /SessionName is taken: %d %r" % (rc, err[-300:]))
if rc == 0:
    root = ET.fromstring(out.encode("utf-8"))
    args = [e.findtext("t:Arguments", "", NS) for e in root.findall("t:Actions/t:Exec", NS)]
    t.check(args[0] == "abort /SessionName:" + long_name,
            "abort gets the whole /SessionName: %d characters" % len(args[0]))
    t.check(args[1] == "collect /SessionName:" + long_name, "collect gets it whole")

# The settings the issue asks for, by the schema reference's names.
if nightly is not None:
    for path, want in (("t:Settings/t:MultipleInstancesPolicy", "IgnoreNew"),
                       ("t:Settings/t:DisallowStartIfOnBatteries", "false"),
                       ("t:Settings/t:StopIfGoingOnBatteries", "false"),
                       ("t:RegistrationInfo/t:URI", "\\etwcap\\nightly")):
        t.check(nightly.findtext(path, "", NS) == want, "%s is %s" % (path, want))

# The word collect may be left out; /WhatIf and /Exe stand anywhere, in any
# case; the note about the placeholder path goes to stderr, never stdout.
rc, out, err = t.run("schedule", "create", "short", "/CircularMB:4096", "/whatif",
                     "/exe:D:\\etwcap\\etwcap.exe")
args = []
if rc == 0:
    root2 = ET.fromstring(out.encode("utf-8"))
    args = [e.findtext("t:Arguments", "", NS) for e in root2.findall("t:Actions/t:Exec", NS)]
    cmds = [e.findtext("t:Command", "", NS) for e in root2.findall("t:Actions/t:Exec", NS)]
    t.check(cmds == ["D:\\etwcap\\etwcap.exe"] * 2, "/Exe names the program: %r" % cmds)
t.check(rc == 0 and args == ["abort", "collect /CircularMB:4096"],
        "collect left out: %d %r %r" % (rc, args, err))
if not t.windows:
    rc, out, err = t.run("schedule", "create", "n", "/WhatIf")
    t.check(rc == 0 and out.lstrip().startswith("<?xml") and "C:\\Program Files" in err,
            "off Windows the placeholder path is said on stderr: %r" % err)

# collect's help, not a task with /? in it.
rc, out, err = t.run("schedule", "create", "n", "/WhatIf", "collect", "/?")
t.check(rc == 0 and "Usage: etwcap collect" in out and "<Task" not in out,
        "schedule create ... collect /? shows collect's help: %d %r" % (rc, out[:200]))

# Refusals name the problem and register nothing.
for argv, why in ((["create", "nightly", "/WhatIf", "collect", "/Bogus"], "unknown qualifier"),
                  (["create", "a b", "collect"], "task's name"),
                  (["create", "nightly", "/WhatIf", "start"], "runs 'collect'"),
                  (["create", "nightly", "/WhatIf", "collect", "/KeepDays:3"], "/SegmentSec"),
                  (["frobnicate"], "not create, delete or list"),
                  (["create", "n", "/WhatIf", "/Exe:etwcap.exe"], "full Windows path"),
                  (["create", "n", "/WhatIf", "collect", "a\x01b"], "not text a task"),
                  (["create", "n", "/WhatIf", "/CircularMB:x"], "CircularMB")):
    rc, out, err = t.run("schedule", *argv)
    t.check(rc == 2 and why in err and not out, "schedule %s: exit 2, %r (%d %r)"
            % (" ".join(argv), why, rc, err))

rc, out, err = t.run("schedule", "/?")
t.check(rc == 0 and "S-1-5-18" in out and "/WhatIf" in out, "schedule /? documents it")

prefix = next((a.split("=", 1)[1] for a in t.command if a.startswith("WINEPREFIX=")), None)
if t.windows and prefix:
    task = os.path.join(prefix, "drive_c", "windows", "system32", "tasks", "etwcap", "e2e")
    rc, out, err = t.run("schedule", "create", "e2e", "collect", "/StopOnGen2GC")
    t.check(rc == 0 and os.path.exists(task), "Wine's schtasks registered \\etwcap\\e2e: %d %r"
            % (rc, err))
    if os.path.exists(task):
        text = open(task, "rb").read().decode("utf-8-sig", "replace")
        # Wine keeps what it implements of the task: the description and
        # the settings, not the principal or the actions.
        t.check("etwcap: e2e" in text and "PT0S" in text, "Wine kept the task: %r" % text[:300])
    # The Application log's source, with etwcap.exe as its message file
    # ("Event Sources"), read back with Wine's reg.exe.
    reg = subprocess.run(t.command[:-1] + ["reg", "query",
                         "HKLM\\SYSTEM\\CurrentControlSet\\Services\\EventLog\\Application\\etwcap"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    listing = reg.stdout.decode("utf-8", "replace")
    t.check("EventMessageFile" in listing and "REG_EXPAND_SZ" in listing and
            "etwcap.exe" in listing.lower() and "TypesSupported" in listing,
            "schedule create registered the event source: %r" % listing[:400])
    # schtasks is the system folder's: one planted in the current folder
    # (cmd.exe would run it first, elevated) is never run.
    work = os.path.join(tmp_dir(), "schedule-planted")
    os.makedirs(work, exist_ok=True)
    marker = os.path.join(work, "planted-ran")
    if os.path.exists(marker):
        os.remove(marker)
    with open(os.path.join(work, "schtasks.bat"), "w") as f:
        f.write("@echo planted> planted-ran\r\n")
    rc, out, err = t.run("schedule", "list", cwd=work)
    t.check(not os.path.exists(marker), "a schtasks.bat in the current folder is not run")
    # Wine's schtasks has no /Query ("Unsupported command", exit 0, nothing
    # printed): only that list ran the system folder's schtasks is checked.
    t.check(rc == 0, "schedule list ran Wine's schtasks: %d %r" % (rc, err))
    rc, out, err = t.run("schedule", "delete", "e2e")
    t.check(rc == 0 and not os.path.exists(task), "schedule delete removed it: %d %r" % (rc, err))
elif not t.windows:
    rc, out, err = t.run("schedule", "create", "native", "collect")
    t.check(rc == 4 and "/WhatIf" in err, "off Windows, registering says why: %d %r" % (rc, err))

t.finish()
