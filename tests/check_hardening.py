"""Checks that etwcap.exe is built hardened (docs/hardening.md): ASLR with a
64-bit address space and DEP in the PE header, and gcc's stack protector
linked statically from libssp and called by our own functions, so a local
array overrun ends the process instead of returning through a forged address.

Usage: check_hardening.py etwcap.exe SOURCE...
The SOURCEs are the C files that are ours (the build's list): a call to
__stack_chk_fail must come from a function defined in one of them.

The image is read here, with no external module, following Microsoft's "PE
Format" page (https://learn.microsoft.com/windows/win32/debug/pe-format):
the COFF file header, the optional header's DllCharacteristics, the section
table and the COFF symbol table GNU ld keeps in the image (it is not
stripped: -s would remove it)."""
import bisect
import os
import struct
import sys

# DllCharacteristics bits (PE Format, "DLL Characteristics").
DLL_FLAGS = {0x20: "HIGH_ENTROPY_VA", 0x40: "DYNAMIC_BASE", 0x100: "NX_COMPAT"}
SYM_SIZE = 18          # an IMAGE_SYMBOL record, aux records the same size
SCL_EXTERNAL = 2
SCL_STATIC = 3
SCL_FILE = 103
TYPE_FUNCTION = 0x20   # MSB DTYPE_FUNCTION << 4, as gcc writes it


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def read_image(path):
    data = open(path, "rb").read()
    if data[:2] != b"MZ":
        fail("%s: no MZ header" % path)
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    if data[pe:pe + 4] != b"PE\0\0":
        fail("%s: no PE signature at 0x%x" % (path, pe))
    coff = pe + 4
    (_, nsections, _, symtab, nsyms, opt_size, _) = struct.unpack_from("<HHIIIHH", data, coff)
    opt = coff + 20
    magic = struct.unpack_from("<H", data, opt)[0]
    if magic != 0x20B:
        fail("%s: optional header magic 0x%x, not PE32+" % (path, magic))
    # DllCharacteristics sits at offset 70 of the optional header.
    dll_flags = struct.unpack_from("<H", data, opt + 70)[0]
    sections = []
    for i in range(nsections):
        off = opt + opt_size + 40 * i
        name = data[off:off + 8].rstrip(b"\0").decode("ascii", "replace")
        vsize, rva, raw_size, raw_ptr = struct.unpack_from("<IIII", data, off + 8)
        sections.append((name, rva, vsize, raw_ptr, raw_size))
    return data, dll_flags, sections, symtab, nsyms


def short_name(data, strings, raw):
    """A name kept in place or, when its first four bytes are zero, in the
    string table that follows the symbols (PE Format, "Symbol Name
    Representation")."""
    if raw[:4] == b"\0\0\0\0":
        start = strings + struct.unpack_from("<I", raw, 4)[0]
        raw = data[start:data.index(b"\0", start)]
    return raw.rstrip(b"\0").decode("utf-8", "replace")


def read_symbols(data, symtab, nsyms):
    """Yields (name, value, section number, type, storage class, aux bytes)."""
    strings = symtab + SYM_SIZE * nsyms
    i = 0
    while i < nsyms:
        off = symtab + SYM_SIZE * i
        name = short_name(data, strings, data[off:off + 8])
        value, secnum, typ, scl, naux = struct.unpack_from("<IhHBB", data, off + 8)
        aux = data[off + SYM_SIZE:off + SYM_SIZE * (1 + naux)]
        if scl == SCL_FILE:
            aux = short_name(data, strings, aux)
        yield name, value, secnum, typ, scl, aux
        i += 1 + naux


def main():
    exe, sources = sys.argv[1], sys.argv[2:]
    ours = {os.path.basename(f) for f in sources if f.endswith(".c")}
    if not ours:
        fail("no C files of ours given")

    data, dll_flags, sections, symtab, nsyms = read_image(exe)
    failed = 0
    for bit, name in sorted(DLL_FLAGS.items()):
        if not dll_flags & bit:
            print("FAIL: DllCharacteristics 0x%04x lacks %s (0x%x)" % (dll_flags, name, bit))
            failed += 1
    if symtab == 0 or nsyms == 0:
        fail("%s has no COFF symbol table (stripped?): the stack protector cannot be seen" % exe)

    # Each function's image address and the source file its object came from
    # (the .file record that precedes an object's symbols names its source).
    functions = []
    defined = {}
    source = None
    for name, value, secnum, typ, scl, aux in read_symbols(data, symtab, nsyms):
        if scl == SCL_FILE:
            source = aux
            continue
        if secnum < 1 or secnum > len(sections):
            continue
        rva = sections[secnum - 1][1] + value
        if scl == SCL_EXTERNAL:
            defined[name] = rva
        if typ == TYPE_FUNCTION and scl in (SCL_EXTERNAL, SCL_STATIC):
            functions.append((rva, name, source))

    for name in ("__stack_chk_fail", "__stack_chk_guard"):
        if name not in defined:
            print("FAIL: %s is not defined in %s (built without -fstack-protector-strong?)"
                  % (name, exe))
            failed += 1
    if "__stack_chk_fail" not in defined:
        sys.exit(1)

    # Every call rel32 (E8 disp32) in .text whose target is __stack_chk_fail,
    # attributed to the function that contains it.
    target = defined["__stack_chk_fail"]
    functions.sort()
    starts = [f[0] for f in functions]
    callers = set()
    for name, rva, vsize, raw_ptr, raw_size in sections:
        if name != ".text":
            continue
        code = data[raw_ptr:raw_ptr + min(vsize, raw_size)]
        at = code.find(b"\xe8")
        while 0 <= at <= len(code) - 5:
            site = rva + at
            if site + 5 + struct.unpack_from("<i", code, at + 1)[0] == target:
                k = bisect.bisect_right(starts, site) - 1
                if k >= 0:
                    callers.add(functions[k][1:])
            at = code.find(b"\xe8", at + 1)
    # GNU as (binutils 2.40) keeps a .file name of up to 18 characters in the
    # aux record cut to 14 (the FILNMLEN of older COFF); longer names go to
    # the string table whole.  Compare on the first 14 characters.
    ours14 = {f[:14] for f in ours}
    our_callers = sorted(c for c in callers if c[1] and c[1][:14] in ours14)
    print("%s: DllCharacteristics 0x%04x; __stack_chk_fail called from %d functions, "
          "%d of them ours (e.g. %s)"
          % (exe, dll_flags, len(callers), len(our_callers),
             ", ".join("%s in %s" % c for c in our_callers[:3]) or "none"))
    if not our_callers:
        print("FAIL: no function of ours calls __stack_chk_fail (is -fstack-protector-strong "
              "on our sources?)")
        failed += 1
    sys.exit(1 if failed else 0)


main()
