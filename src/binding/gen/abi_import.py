"""Maintainer step: read the facts of the MPICH ABI out of an installed MPICH
mpi.h and store them as data (mpich_abi.json).  Values are evaluated by the C
compiler (a small probe program built against that header), declarations are
taken from the preprocessed header.  Only facts are stored: names, C types,
numeric values, struct layouts; never header text."""

import json
import os
import re
import subprocess
import sys
import tempfile

CC = os.environ.get("CC", "cc")

# Constants of the MPICH header that are implementation details, not ABI.
SKIP_MACROS = re.compile(
    r"^(MPI_INCLUDED|MPI_FILE_DEFINED|MPI_AINT_FMT_\w+|MPIX_\w+|MPI_\w+_DEFINED)$")


# Type of the standard predefined functions that MPICH maps onto a library symbol.
STANDARD_FN_TYPE = {"MPI_DUP_FN": "MPI_Copy_function"}


def _run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def _split_statements(text):
    """Top-level C statements (split at ';' outside braces)."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == ";" and depth == 0:
            out.append(" ".join("".join(cur).split()))
            cur = []
        else:
            cur.append(ch)
    return out


def _expand_ids(text, macros, depth=0):
    """Identifiers of a macro body after (simple) expansion."""
    out = set()
    for i in re.findall(r"[A-Za-z_]\w*", text):
        if i in macros and depth < 10:
            out |= _expand_ids(macros[i], macros, depth + 1)
        else:
            out.add(i)
    return out


def import_abi(header):
    header = os.path.abspath(header)
    inc = os.path.dirname(header)
    tmp = tempfile.mkdtemp(prefix="fy-abi-")
    src = os.path.join(tmp, "h.c")
    with open(src, "w") as f:
        f.write('#include "%s"\n' % header)
    base = [CC, "-I", inc, "-DMPICH_SKIP_MPICXX"]
    # 1. object-like macros
    macros = {}
    for line in _run(base + ["-E", "-dM", src]).splitlines():
        m = re.match(r"#define ((?:MPI|MPIX|MPIR)_\w+)(\(|\s|$)(.*)", line)
        if not m or m.group(2) == "(":
            continue
        name, text = m.group(1), m.group(3).strip()
        if text and not SKIP_MACROS.match(name) and not name.startswith("MPIR_"):
            macros[name] = text
    # 2. declarations from the preprocessed header
    body = _run(base + ["-E", "-P", src])
    stmts = _split_statements(re.sub(r"\s+", " ", body))
    typedefs, structs, enums, externs, fn_typedefs, functions = {}, {}, [], {}, {}, []
    for s in stmts:
        m = re.match(r"typedef struct (\w+ )?\{(.*)\} (MPI_\w+)$", s)
        if m:
            fields = []
            for decl in m.group(2).split(";"):
                decl = decl.strip()
                if decl:
                    fm = re.match(r"(.*?)\s*\b(\w+)$", decl)
                    fields.append({"name": fm.group(2), "type": fm.group(1).strip()})
            structs[m.group(3)] = {"fields": fields}
            continue
        m = re.match(r"(typedef )?enum (\w+ )?\{(.*)\}\s*(\w+)?$", s)
        if m:
            tag = (m.group(2) or "").strip()
            if tag.startswith("QMPI"):
                continue
            names = [re.match(r"\s*(\w+)", e).group(1) for e in m.group(3).split(",") if e.strip()]
            names = [n for n in names if n.startswith("MPI_")]
            if names:
                enums.append({"typedef": m.group(4) if m.group(4) and m.group(4).startswith("MPI_") else None,
                              "enumerators": names})
            continue
        m = re.match(r"typedef (\w+) \( ?\*? ?(MPI_\w+) ?\) ?\((.*)\)$", s)
        if m:
            fn_typedefs[m.group(2)] = {"return": m.group(1), "params": m.group(3).strip()}
            continue
        m = re.match(r"typedef ([\w\s\*]+?) ?\b(MPI_\w+)$", s)
        if m:
            typedefs[m.group(2)] = {"type": m.group(1).strip()}
            continue
        m = re.match(r"extern ([\w\s\*]+?) ?\b((?:MPI|MPIR)_\w+) ?(\[\w*\])?$", s)
        if m:
            externs[m.group(2)] = {"type": m.group(1).strip(), "array": m.group(3) or ""}
            continue
        m = re.match(r"^[\w\s\*]+?\b(MPI_\w+) ?\(", s)
        if m:
            functions.append(m.group(1))
    known = set(macros) | set(typedefs) | set(fn_typedefs) | set(externs)
    for e in enums:
        known |= set(e["enumerators"])
    # 3. classify the macros from their own text
    constants = {}
    for name, text in macros.items():
        c = {}
        if text in macros:
            c = {"kind": "alias", "target": text}
        else:
            ids = set(re.findall(r"[A-Za-z_]\w*", text))
            syms = [i for i in _expand_ids(text, macros) if i.startswith("MPIR_") and i not in macros]
            cast = re.match(r"^\(*\s*\(\s*((?:MPI_\w+|void|int|char)\s*\**)\s*\)", text)
            ctype = " ".join(cast.group(1).replace("*", " *").split()) if cast else None
            if syms:
                c = {"kind": "symbol", "symbol": syms[0], "ctype": ctype}
            elif ctype and "*" in ctype:
                c = {"kind": "pointer", "ctype": ctype}
            elif ctype:
                c = {"kind": "handle", "ctype": ctype}
            elif re.match(r"^[\s()x0-9a-fA-F+\-]+$", text) or ids <= known:
                c = {"kind": "int"}
            else:
                continue
        constants[name] = c
    for e in enums:
        for n in e["enumerators"]:
            constants[n] = {"kind": "enum"}
    # 4. evaluate everything with the compiler
    probe = ['#include "%s"' % header, "#include <stdio.h>", "#include <stddef.h>",
             "#include <stdint.h>", "int main(void) {"]
    for n, c in sorted(constants.items()):
        if c["kind"] in ("int", "enum", "handle", "alias"):
            probe.append('printf("C %s %%lld\\n", (long long)(%s));' % (n, n))
        elif c["kind"] == "pointer":
            probe.append('printf("C %s %%lld\\n", (long long)(intptr_t)(%s));' % (n, n))
    for t in sorted(typedefs):
        probe.append('printf("T %s %%zu\\n", sizeof(%s));' % (t, t))
    for s, d in sorted(structs.items()):
        probe.append('printf("S %s %%zu\\n", sizeof(%s));' % (s, s))
        for f in d["fields"]:
            probe.append('printf("F %s %s %%zu\\n", offsetof(%s, %s));' % (s, f["name"], s, f["name"]))
    probe.append("return 0; }")
    psrc, pexe = os.path.join(tmp, "probe.c"), os.path.join(tmp, "probe")
    with open(psrc, "w") as f:
        f.write("\n".join(probe) + "\n")
    _run(base + ["-o", pexe, psrc])
    for line in _run([pexe]).splitlines():
        k, *rest = line.split()
        if k == "C":
            constants[rest[0]]["value"] = int(rest[1])
        elif k == "T":
            typedefs[rest[0]]["size"] = int(rest[1])
        elif k == "S":
            structs[rest[0]]["size"] = int(rest[1])
        elif k == "F":
            for f in structs[rest[0]]["fields"]:
                if f["name"] == rest[1]:
                    f["offset"] = int(rest[2])
    # Symbols the header refers to but does not declare (MPI_DUP_FN -> MPIR_Dup_fn):
    # their type is the one of the standard name they stand for.
    symbols = {}
    for n, c in constants.items():
        if c["kind"] == "symbol" and c["ctype"] is None and c["symbol"] not in externs:
            # the plain reference stands for the standard's MPI_DUP_FN
            symbols[c["symbol"]] = {"kind": "function", "type": STANDARD_FN_TYPE[n]}
    return {
        "source": "MPICH %s" % macros.get("MPI_VERSION", "?"),
        "mpi_version": [constants["MPI_VERSION"]["value"], constants["MPI_SUBVERSION"]["value"]],
        "constants": dict(sorted(constants.items())),
        "enums": enums,
        "typedefs": dict(sorted(typedefs.items())),
        "function_typedefs": dict(sorted(fn_typedefs.items())),
        "structs": structs,
        "externs": dict(sorted(externs.items())),
        "symbols": symbols,
        "functions": sorted(set(functions)),
    }


if __name__ == "__main__":
    json.dump(import_abi(sys.argv[1]), sys.stdout, indent=1)
