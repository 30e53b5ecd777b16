"""etwcap unzip: a capture's ETL beside its zip, the zip's PDBs under
symbols/, checked against Python's zipfile (an independent reader); an
existing ETL is not overwritten; hostile names and links write nothing
outside the folder."""
import os
import shutil
import zipfile

from etwcap_e2e import Etwcap, samples_dir, tmp_dir, to_target_path

t = Etwcap()
samples = samples_dir()
work = os.path.join(tmp_dir(), "e2e-unzip-" + t.target)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

# A capture's zip as PerfView writes one: the ETL, a log, NGEN PDBs under
# symbols/ (a symbol-server layout), and names that try to leave.
etl_bytes = b"not parsed by unzip: a capture's bytes \x00\x01\x02" * 5000
if samples:
    with zipfile.ZipFile(os.path.join(samples, "ms-perfview__gcevents.etl.zip")) as z:
        name = [n for n in z.namelist() if n.endswith(".etl")][0]
        etl_bytes = z.read(name)
zpath = os.path.join(work, "cap.etl.zip")
with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("cap.etl", etl_bytes)
    z.writestr("LogFile.txt", "log")
    z.writestr("symbols/System.ni.pdb/0123456789ABCDEF0123456789ABCDEF1/System.ni.pdb", b"PDB1")
    z.writestr("ngenpdbs/mscorlib.ni.pdb", b"PDB2")
    z.writestr("../evil.pdb", b"EVIL")
    z.writestr("symbols/../../evil2.pdb", b"EVIL")

rc, out, err = t.run("unzip", to_target_path(t, zpath))
etl = os.path.join(work, "cap.etl")
t.check(rc == 0 and os.path.exists(etl), "unzip writes cap.etl: %d %r %r" % (rc, out, err))
if os.path.exists(etl):
    t.check(open(etl, "rb").read() == etl_bytes, "the ETL's bytes are the zip's (zipfile reads "
            "the same)")
pdb1 = os.path.join(work, "symbols", "System.ni.pdb", "0123456789ABCDEF0123456789ABCDEF1",
                    "System.ni.pdb")
pdb2 = os.path.join(work, "symbols", "mscorlib.ni.pdb")
t.check(os.path.exists(pdb1) and open(pdb1, "rb").read() == b"PDB1", "PDB in its symbol path")
t.check(os.path.exists(pdb2) and open(pdb2, "rb").read() == b"PDB2", "ngenpdbs/ PDB under symbols")
t.check(not os.path.exists(os.path.join(tmp_dir(), "evil.pdb"))
        and not os.path.exists(os.path.join(work, "evil2.pdb"))
        and "would leave the symbols folder" in err, "names that leave are refused: %r" % err)
t.check("2 PDB" in out, "the summary counts the PDBs: %r" % out)
t.check(not [n for n in os.listdir(work) if ".tmp" in n or n.startswith(".")],
        "no temporary file is left: %r" % os.listdir(work))

# /Wpr: the PDBs go into cap.etl.ngenpdb (PerfView's unzip: Path.ChangeExtension(zip,
# ".ngenpdb")), in the same layout.
wpr = os.path.join(work, "wpr")
os.makedirs(wpr)
wzip = os.path.join(wpr, "cap.etl.zip")
shutil.copy(zpath, wzip)
rc, out, err = t.run("unzip", to_target_path(t, wzip), "/Wpr")
wpdb = os.path.join(wpr, "cap.etl.ngenpdb", "System.ni.pdb",
                    "0123456789ABCDEF0123456789ABCDEF1", "System.ni.pdb")
t.check(rc == 0 and os.path.exists(wpdb) and open(wpdb, "rb").read() == b"PDB1"
        and not os.path.exists(os.path.join(wpr, "symbols")),
        "unzip /Wpr: the PDBs under cap.etl.ngenpdb: %d %r %r" % (rc, out, os.listdir(wpr)))

# An existing ETL stays as it was.
with open(etl, "wb") as f:
    f.write(b"mine")
rc, out, err = t.run("unzip", to_target_path(t, zpath))
t.check(rc == 6 and "does not overwrite" in err and open(etl, "rb").read() == b"mine",
        "an existing ETL is not overwritten: %d %r" % (rc, err))

# Not a zip; a zip without an ETL; two ETLs.
bad = os.path.join(work, "bad.etl.zip")
with open(bad, "wb") as f:
    f.write(b"PK\x03\x04 but nothing more")
rc, out, err = t.run("unzip", to_target_path(t, bad))
t.check(rc == 5 and "bad.etl.zip" in err, "not a zip: exit 5 naming it: %d %r" % (rc, err))
noetl = os.path.join(work, "noetl.etl.zip")
with zipfile.ZipFile(noetl, "w") as z:
    z.writestr("LogFile.txt", "log")
rc, out, err = t.run("unzip", to_target_path(t, noetl))
t.check(rc == 5 and "holds no .etl" in err, "no ETL: %d %r" % (rc, err))
two = os.path.join(work, "two.etl.zip")
with zipfile.ZipFile(two, "w") as z:
    z.writestr("a.etl", "a")
    z.writestr("b.etl", "b")
rc, out, err = t.run("unzip", to_target_path(t, two))
t.check(rc == 5 and "more than one .etl" in err, "two ETLs: %d %r" % (rc, err))

# A symbols folder that is a link is not written through.
if not t.windows and hasattr(os, "symlink"):
    link_work = os.path.join(work, "linked")
    os.makedirs(link_work)
    outside = os.path.join(work, "outside")
    os.makedirs(outside)
    os.symlink(outside, os.path.join(link_work, "symbols"))
    shutil.copy(zpath, link_work)
    rc, out, err = t.run("unzip", os.path.join(link_work, "cap.etl.zip"))
    t.check(rc != 0 and not os.listdir(outside), "a planted symbols link is refused: %d %r"
            % (rc, err))

shutil.rmtree(work, ignore_errors=True)
t.finish()
