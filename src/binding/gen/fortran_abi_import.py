#!/usr/bin/env python3
"""Maintainer step: read the Fortran ABI facts from MPICH's installed mpif.h.

  fortran_abi_import.py MPIF_H      writes src/binding/gen/fortran_abi.json

The facts are what a program compiled against MPICH's mpif.h or mpi.mod
bakes in: the name, Fortran type and value of every named constant, and the
common blocks (name, members, member shapes) through which the library
recognises MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE, MPI_ERRCODES_IGNORE,
MPI_ARGV(S)_NULL, MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY by address. The
generator (fortran.py) writes Ferry's own mpif.h and modules from them."""

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fortran_abi.json")


def import_mpif(path):
    with open(path) as fh:
        lines = [l.rstrip() for l in fh if not re.match(r"^[!cC*]", l)]
    types, params, arrays, commons, externals, functions = {}, {}, {}, [], [], {}
    order = []
    for l in lines:
        s = l.strip()
        m = re.match(r"(INTEGER\*8|INTEGER|LOGICAL|CHARACTER\*1|REAL\*8|DOUBLE PRECISION)\s+(.*)$", s, re.I)
        if m:
            ty = m.group(1).upper()
            for v in re.findall(r"(\w+)(\([^)]*\))?", m.group(2)):
                if v[1]:
                    arrays[v[0]] = {"type": ty, "dims": v[1][1:-1].split(",")}
                else:
                    types[v[0]] = ty
            continue
        m = re.match(r"PARAMETER\s*\((.*)\)$", s, re.I)
        if m:
            for kv in m.group(1).split(","):
                k, v = (x.strip() for x in kv.split("=", 1))
                params[k] = v
                order.append(k)
            continue
        m = re.match(r"COMMON\s*/(\w+)/\s*(.*)$", s, re.I)
        if m:
            commons.append({"name": m.group(1).lower(),
                            "members": [x.strip() for x in m.group(2).split(",")]})
            continue
        m = re.match(r"EXTERNAL\s+(.*)$", s, re.I)
        if m:
            externals += [x.strip() for x in m.group(1).split(",")]
    for n in externals:
        if n in types:
            functions[n] = types.pop(n)
    consts = []
    known = {}
    for k in order:
        ty = types.pop(k, "INTEGER")
        v = params[k]
        if ty == "LOGICAL":
            value = v.upper() == ".TRUE."
        else:
            # e.g. 512-1, (-32766), MPI_INTEGER16=MPI_DATATYPE_NULL
            value = int(eval(v, {"__builtins__": {}}, known))
            known[k] = value
        consts.append({"name": k, "type": ty, "value": value})
    # the members of common blocks are declared without PARAMETER
    for c in commons:
        for m in c["members"]:
            if m not in arrays:
                arrays[m] = {"type": types.pop(m), "dims": []}
    return {"source": os.path.basename(path), "constants": consts, "arrays": arrays,
            "commons": commons, "externals": [e for e in externals if e not in functions],
            "functions": functions, "variables": types}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(OUT, "w") as fh:
        json.dump(import_mpif(sys.argv[1]), fh, indent=1)
        fh.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
