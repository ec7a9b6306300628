#!/usr/bin/env python3
"""MPICH's own test programs (test/mpi of an MPICH source tree), built with
Ferry's compiler wrappers and run on Ferry, by hand: a real client of the C
library and of the three Fortran bindings.

    scripts/mpich_tests.py MPICH_SRC [--lang "c f08 f77 f90"]
                           [--dirs "pt2pt coll ..."] [--only REGEX]
                           [--timeout SECONDS] [--np-max N] [--impl mpich]
                           [--netns N] [--lib DIR[:DIR]]

The source tree is not part of Ferry; bring it in yourself (e.g. a clone of
github.com/pmodels/mpich) and give its path. It is copied to $OUT (default
/tmp/ferry-mpich-tests) with the configure-made headers written there
(mpitestconf.h for the C programs, typeaints.h and the like with 8-byte
integers for Fortran), and the builds and logs go there too.

Each directory's testlist (or testlist.in, lines naming configure
substitutions left out) is read the way MPICH's runtests reads it: a
program, its process count and key=value options. A program is built from
its Makefile.am sources and flags (else NAME.c, NAME.f90 or NAME.f) with the
tree's MTest utilities and dtpools, and run with install/bin/mpiexec, its
arg= arguments and env= variables, with MPIEXEC_TIMEOUT at its timeLimit=
(at least --timeout, 120 s, except for the programs that expect to be
ended by it).
Lines marked xfail=, strict=false (MPICH-specific behaviour, the tree is
built as MPICH's strict-MPI configuration does; strict=FALSE, upper case,
runs: those programs pass, MPI-1 calls Ferry keeps and errors it
reports), mpiexecarg= (Hydra options), or for an MPI version above 4.1,
more processes than --np-max or more memory (mem=, GB) than this machine
has, and programs that call MPI_Comm_spawn (not implemented), are
reported SKIP with the reason. The
name-service programs (@namepub_tests@) run: Ferry's mpiexec keeps names.

--netns N runs every program across N test hosts (network namespaces,
tests/launch/netns/fy_netns.sh), ranks placed one per host in turn: a job
of more ranks than hosts mixes shared memory and the fabric. Programs that
are erroneous when the hosts hold different numbers of ranks (UNEVEN) are
reported SKIP where N does not divide the job.

--lib runs the programs (built as usual) on the libmpi.so.12 found in
these directories instead of install/lib, e.g. the sanitizer build of `make
check-asan` (build-asan and build-asan/src/binding/fortran): the sanitizer
runtimes that library needs are preloaded, leak reports are off unless
ASAN_OPTIONS in the environment turns them on (detect_leaks=1; the
programs' own leaks then show too), and any report ends the run with an
error, so it shows as a FAIL with the report in its log.

A run passes as runtests decides: by default it exits 0 and prints
"No Errors" and nothing else (lines runtests ignores aside); TestStatus and
TestErrFatal programs must exit non-zero. "Test Skipped" is a SKIP. Prints
PASS/FAIL/BUILD/SKIP per run and totals; exit status 1 when a run fails.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
C_DIRS = ("attr basic coll comm datatype errhan group info init pt2pt rma "
          "topo mpi_t part session io spawn threads/pt2pt threads/comm threads/coll "
          "threads/init threads/mpi_t threads/rma threads/part "
          "errors/attr errors/basic errors/coll errors/comm errors/datatype "
          "errors/group errors/io errors/pt2pt errors/rma errors/session errors/topo")
# Programs that expect what MPICH does where the standard says otherwise:
# reported SKIP with the reason.
DUP_FATAL = "a duplicate keeps the fatal handler it was made with (MPI 4.1 9.3)"
DIFFERS = {
    # An error in a call on a window, or on a communicator duplicated before
    # MPI_COMM_WORLD's handler was set to return, goes to that object's own
    # handler (MPI_ERRORS_ARE_FATAL, MPI 4.1 9.3); MPICH uses
    # MPI_COMM_WORLD's for objects whose handler was never set.
    "errors/attr/keyvalmis": "a window's default handler is fatal (MPI 4.1 9.3)",
    "errors/comm/comm_create_nullarg": DUP_FATAL,
    "errors/comm/comm_create_group_nullarg": DUP_FATAL,
    "errors/comm/comm_split_nullarg": DUP_FATAL,
    "errors/comm/comm_split_type_nullarg": DUP_FATAL,
    # Marked strict=FALSE, which runs (below): the other FALSE programs pass
    # (MPI-1 calls Ferry keeps, as MPICH's ABI does, and errors it reports).
    "mpi_t/qmpi_test": "QMPI is MPICH's own tool interface, not in the MPI standard",
}
# Programs erroneous when hosts hold different numbers of ranks (--netns N
# with N not dividing the job): they skip a collective call over
# MPI_COMM_WORLD on the ranks alone on their host, and the others wait in
# it forever, under any MPI.
UNEVEN = {
    "rma/win_shared_create_allocshm": "MPI_Win_create on MPI_COMM_WORLD is skipped by ranks alone on their host",
    "rma/win_shared_create_no_allocshm": "MPI_Win_create on MPI_COMM_WORLD is skipped by ranks alone on their host",
    "rma/win_shared_put_flush_get": "ranks not 2 to a host skip its MPI_Bcast and MPI_Win_create on MPI_COMM_WORLD",
}
F_DIRS = "pt2pt coll datatype comm subarray topo attr info misc rma init ext io"
# What MPICH's configure would define on this platform for the C programs.
CONF_H = """#define HAVE_STDLIB_H 1
#define HAVE_STDARG_H 1
#define USE_STDARG 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_GETRUSAGE 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_STRING_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_PTHREAD_H 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define USE_LONG_DOUBLE_COMPLEX 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_INTEGER16 1
#define HAVE_FORTRAN_BINDING 1
#define USE_STRICT_MPI 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#define F77_NAME_LOWER_USCORE 1
"""
# This machine's memory in GB (testlist's mem= asks for more: skipped).
MEM_GB = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
NO_ERRORS = re.compile(r"^\s*No [Ee]rrors\s*$")
# Output lines runtests does not count as stray (check_result).
IGNORED = re.compile(r"^(MPICH: |WARNING: |(Abort.*)?application called "
                     r"MPI_Abort)|(FORTRAN STOP|requesting checkpoint|"
                     r"checkpoint completed)\s*$")


def sh(cmd, log, cwd=None):
    with open(log, "w") as f:
        return subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL).returncode == 0


def makefile_vars(path):
    """NAME_SOURCES / NAME_CPPFLAGS / NAME_LDADD of a Makefile.am,
    continuations joined; ("AM", "FFLAGS"): the -I options of AM_FFLAGS;
    ("COPY", FILE): the source a rule copies FILE from (BUILT_SOURCES)."""
    if not os.path.exists(path):
        return {}
    text = open(path).read().replace("\\\n", " ")
    out = {("AM", "FFLAGS"): []}
    for m in re.finditer(r"^(\w+?)_(SOURCES|CPPFLAGS|LDADD)\s*=(.*)$", text, re.M):
        words = m.group(3).split()
        if m.group(2) != "LDADD":
            words = [w for w in words if not w.startswith("$(")]
        out[(m.group(1), m.group(2))] = words
    for m in re.finditer(r"^AM_FFLAGS\s*\+?=(.*)$", text, re.M):
        out[("AM", "FFLAGS")] += [w for w in m.group(1).split() if w.startswith("-I")]
    for m in re.finditer(r"^(\S+):\s*\$\(srcdir\)/(\S+)\s*$", text, re.M):
        out[("COPY", m.group(1))] = m.group(2)
    return out


# Configure substitutions that switch testlist lines on: Ferry's
# mpiexec keeps a name service (MPI_Publish_name), as Hydra does.
ENABLED = ("@namepub_tests@",)


def testlist(d):
    for name in ("testlist", "testlist.in"):
        p = os.path.join(d, name)
        if os.path.exists(p):
            for line in open(p):
                line = line.split("#", 1)[0].strip()
                for e in ENABLED:
                    line = line.replace(e, "")
                words = line.split()
                if len(words) < 2 or "@" in line:
                    continue        # blank, comment, subdirectory, configure
                yield words[0], int(words[1]), words[2:]
            return


def calls_spawn(d, name):
    p = os.path.join(d, name + ".c")
    return os.path.exists(p) and "MPI_Comm_spawn" in open(p, errors="replace").read()


def version_above(v, major=4, minor=1):
    parts = [int(x) for x in re.findall(r"\d+", v)[:2]] + [0, 0]
    return (parts[0], parts[1]) > (major, minor)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src")
    ap.add_argument("--lang", default="c f08 f77 f90")
    ap.add_argument("--dirs", default=None,
                    help="directories under each language (default: all "
                         "that Ferry can run)")
    ap.add_argument("--only", default=None, help="regex on dir/program")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--np-max", type=int, default=12)
    ap.add_argument("--impl", choices=("ferry", "mpich"), default="ferry",
                    help="mpich: the same programs on Debian's MPICH, to tell "
                         "Ferry's failures from the tree's own")
    ap.add_argument("--netns", type=int, default=0,
                    help="run across this many test hosts (2 or 3)")
    ap.add_argument("--lib", default=None,
                    help="run on the libmpi.so.12 in these directories (':'-separated)")
    a = ap.parse_args()
    if a.netns and not os.environ.get("FY_NETNS_HOSTS"):
        # the same command again, inside the test hosts' setup
        os.execvp("sh", ["sh", os.path.join(ROOT, "tests/launch/netns/fy_netns.sh"),
                         str(a.netns), "--", sys.executable] + sys.argv)
    place = []  # launcher options that spread the ranks over the test hosts
    if a.netns:
        place = subprocess.run(["sh", os.path.join(ROOT, "tests/launch/netns/fy_netns_args.sh"),
                                a.impl], check=True, stdout=subprocess.PIPE,
                               text=True).stdout.splitlines()

    if a.impl == "mpich":
        cc, fc, mx = (shutil.which(x) or x for x in
                      ("mpicc.mpich", "mpifort.mpich", "mpiexec.mpich"))
    else:
        cc, fc, mx = (os.path.join(ROOT, "install/bin", x) for x in
                      ("mpicc", "mpifort", "mpiexec"))
    if not all(os.access(x, os.X_OK) for x in (cc, mx)):
        sys.exit(f"mpich_tests: no {cc} or {mx} (Ferry: make first)")
    runenv = {}  # what every run adds to the environment
    if a.lib:
        dirs = [os.path.abspath(d) for d in a.lib.split(":")]
        lib = os.path.join(dirs[0], "libmpi.so.12")
        if not os.path.isfile(lib):
            sys.exit(f"mpich_tests: no {lib}")
        runenv["LD_LIBRARY_PATH"] = ":".join(dirs + [os.environ.get("LD_LIBRARY_PATH", "")]).rstrip(":")
        # an instrumented library in an uninstrumented program (and in
        # mpiexec, which passes its environment on): its runtime goes first
        ldd = subprocess.run(["ldd", lib], stdout=subprocess.PIPE, text=True).stdout
        pre = re.findall(r"=> (\S*/lib[at]san\.so\S*|\S*/libubsan\.so\S*)", ldd)
        if pre:
            runenv["LD_PRELOAD"] = ":".join(pre)
            runenv["ASAN_OPTIONS"] = os.environ.get("ASAN_OPTIONS", "detect_leaks=0")
    src = os.path.join(a.src, "test/mpi")
    if not os.path.isdir(os.path.join(src, "util")):
        sys.exit(f"mpich_tests: {a.src} has no test/mpi/util")
    out = os.environ.get("OUT", "/tmp/ferry-mpich-tests") + ("-mpich" if a.impl == "mpich" else "")
    tree = os.path.join(out, "tree")
    logs = os.path.join(out, "logs")
    shutil.rmtree(tree, ignore_errors=True)
    shutil.rmtree(logs, ignore_errors=True)  # a log holds this run's lines only
    os.makedirs(logs, exist_ok=True)
    shutil.copytree(src, tree)
    for dirpath, _, files in os.walk(tree):
        for f in files:
            if f.endswith(".h.in"):   # Fortran's address-sized integers
                t = open(os.path.join(dirpath, f)).read()
                open(os.path.join(dirpath, f[:-3]), "w").write(
                    re.sub(r"@[A-Z0-9_]*@", "integer*8", t))
    inc = os.path.join(tree, "include")
    open(os.path.join(inc, "mpitestconf.h"), "w").write(CONF_H)
    # MPICH's autogen writes here what its strict-MPI mpi.h leaves out:
    # the removed MPI-1 functions its library (and Ferry's) still exports
    shutil.copy(os.path.join(ROOT, "tests/mpi/common/mpi1_removed.h"), os.path.join(inc, "mtest_mpix.h"))
    open(os.path.join(tree, "dtpools", "dtpoolsconf.h"), "w").write(CONF_H)

    counts = {"PASS": 0, "FAIL": 0, "BUILD": 0, "SKIP": 0}

    def report(kind, what, why=""):
        counts[kind] += 1
        print(f"{kind} {what}{' (' + why + ')' if why else ''}", flush=True)

    for lang in a.lang.split():
        build = os.path.join(out, "build-" + lang)
        os.makedirs(build, exist_ok=True)
        util = os.path.join(tree, "util")
        cflags = ["-I" + inc, "-I" + os.path.join(tree, "dtpools/include")]
        libs = {}

        def mtest_lib(kind):
            """MTest's C library (and dtpools), built once per language
            directory; None when it does not build."""
            if kind in libs:
                return libs[kind]
            extra = ["-DMTEST_USE_THREAD"] if kind == "thread" else []
            objs = []
            srcs = [os.path.join(util, s) for s in
                    ("mtest.c", "mtest_common.c", "dtypes.c",
                     "mtest_%s.c" % kind)]
            srcs += sorted(os.path.join(tree, "dtpools/src", s) for s in
                           os.listdir(os.path.join(tree, "dtpools/src"))
                           if s.endswith(".c"))
            ok = True
            for s in srcs:
                o = os.path.join(build, kind + "-" + os.path.basename(s)[:-2] + ".o")
                ok = ok and sh([cc, "-c", "-O1", "-o", o, s] + cflags + extra,
                               os.path.join(logs, "c-util.build"))
                objs.append(o)
            lib = os.path.join(build, "libmtest_%s.a" % kind)
            if not ok or not sh(["ar", "rcs", lib] + objs,
                                os.path.join(logs, "c-util.ar")):
                report("BUILD", "c/util", os.path.join(logs, "c-util.build"))
                lib = None
            libs[kind] = lib
            return lib

        if lang == "c":
            dirs = (a.dirs or C_DIRS).split()
        else:
            if not os.access(fc, os.X_OK):
                report("BUILD", lang, "no mpifort")
                continue
            u = {"f08": "mtest_f08.f90", "f90": "mtest_f90.f90"}.get(lang, "mtest_f77.f")
            if not sh([fc, "-c", "-o", "mtest.o", os.path.join(util, u)],
                      os.path.join(logs, lang + "-util.build"), cwd=build):
                report("BUILD", lang + "/util")
                continue
            dirs = [lang + "/" + d for d in (a.dirs or F_DIRS).split()]
        for d in dirs:
            D = os.path.join(tree, d)
            if not os.path.isdir(D):
                continue
            mk = makefile_vars(os.path.join(D, "Makefile.am"))
            built = {}
            for name, np, opts in testlist(D):
                what = f"{d}/{name}"
                if a.only and not re.search(a.only, what):
                    continue
                kv = [o.split("=", 1) for o in opts if "=" in o]
                args = [v for k, v in kv if k == "arg"]
                env = dict(v.split("=", 1) for k, v in kv if k == "env" and "=" in v)
                opt = {k: v for k, v in kv}
                label = what + (" " + " ".join(args) if args else "") + f" -n {np}"
                if "xfail" in opt:
                    report("SKIP", label, "xfail=" + opt["xfail"]); continue
                if what in DIFFERS and a.impl == "ferry":
                    report("SKIP", label, "differs from MPICH by design: " + DIFFERS[what]); continue
                if what in UNEVEN and a.netns and np % a.netns:
                    report("SKIP", label, f"{np} ranks on {a.netns} hosts: " + UNEVEN[what]); continue
                if a.impl == "ferry" and calls_spawn(D, name):
                    report("SKIP", label, "calls MPI_Comm_spawn, which Ferry does not implement"); continue
                if opt.get("strict") == "false":
                    report("SKIP", label, "MPICH-specific (strict=false)"); continue
                if "mpiexecarg" in opt:
                    report("SKIP", label, "Hydra option " + opt["mpiexecarg"]); continue
                if "mpiversion" in opt and version_above(opt["mpiversion"]):
                    report("SKIP", label, "MPI " + opt["mpiversion"]); continue
                if np > a.np_max:
                    report("SKIP", label, f"{np} processes"); continue
                if "mem" in opt and float(opt["mem"]) > MEM_GB:
                    report("SKIP", label, f"needs {opt['mem']} GB of memory"); continue
                stem = d.replace("/", "-") + "-" + name  # exe and log names
                exe = os.path.join(build, stem)
                if name not in built:
                    srcs = mk.get((name, "SOURCES"))
                    if not srcs:
                        for e in ((".c",) if lang == "c" else (".f90", ".F90", ".f", ".F")):
                            if os.path.exists(os.path.join(D, name + e)):
                                srcs = [name + e]
                                break
                    blog = os.path.join(logs, stem + ".build")
                    if not srcs:
                        built[name] = False
                    elif lang == "c":
                        thr = d.startswith("threads")
                        lib = mtest_lib("thread" if thr else "single")
                        # a program with only run() gets MTest's main
                        if not any(re.search(r"^int\s+main\s*\(", open(os.path.join(D, s)).read(), re.M)
                                   for s in srcs if os.path.exists(os.path.join(D, s))):
                            srcs = srcs + [os.path.join(util, "run_mpitests.c")]
                        built[name] = lib is not None and sh(
                            [cc, "-O1", "-o", exe] + srcs + cflags +
                            (["-DMTEST_USE_THREAD"] if thr else []) +
                            mk.get((name, "CPPFLAGS"), []) + [lib, "-lpthread", "-lm"],
                            blog, cwd=D)
                    else:
                        # sources MPICH's build copies from elsewhere in the tree;
                        # include paths of AM_FFLAGS; C parts see MTest's headers
                        # and, when the program's LDADD says so, its C library
                        srcs = [mk.get(("COPY", x), x) for x in srcs]
                        fflags = ["-I" + build, "-I" + D] + [
                            "-I" + os.path.normpath(os.path.join(D, w[2:])) for w in mk[("AM", "FFLAGS")]]
                        if any(x.endswith(".c") for x in srcs):
                            fflags.append("-I" + inc)
                        cobjs = []
                        if "$(mtest_c_objects)" in mk.get((name, "LDADD"), []):
                            cobjs = [mtest_lib("single")]
                        built[name] = None not in cobjs and sh(
                            [fc, "-o", exe] + fflags + srcs + [os.path.join(build, "mtest.o")] + cobjs,
                            blog, cwd=D)
                if not built[name]:
                    report("BUILD", what); continue
                rt = opt.get("resultTest", "")
                # the job's own time limit, as runtests sets it (init/timeout
                # expects to be ended by it); other programs get at least
                # --timeout on this slower machine
                limit = int(opt.get("timeLimit", 0))
                if rt not in ("TestStatus", "TestErrFatal") or not limit:
                    limit = max(limit, a.timeout)
                env["MPIEXEC_TIMEOUT"] = str(limit)
                runlog = os.path.join(logs, stem + ".out")
                with open(runlog, "a") as f:
                    f.write(f"=== {label}\n"); f.flush()
                    try:
                        p = subprocess.run(["timeout", "-k", "10", str(limit + 30), mx] + place + ["-n",
                                            str(np), exe] + args,
                                           env={**os.environ, **runenv, **env}, stdin=subprocess.DEVNULL, cwd=D,
                                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                           text=True, errors="replace")
                    except OSError as e:
                        report("FAIL", label, str(e)); continue
                    f.write(p.stdout)
                lines = p.stdout.splitlines()
                noerr = any(NO_ERRORS.match(l) for l in lines)
                if any(re.match(r"^\s*Test Skipped\s*$", l) for l in lines):
                    report("SKIP", label, "the program skipped itself"); continue
                stray = [l for l in lines if not NO_ERRORS.match(l) and not IGNORED.search(l)]
                if rt in ("TestStatus", "TestErrFatal"):
                    ok, why = p.returncode != 0, "exit 0, expected non-zero"
                elif p.returncode in (124, 137):
                    ok, why = False, f"timeout {limit} s"
                elif p.returncode != 0:
                    ok, why = False, f"exit {p.returncode}"
                elif not noerr and rt != "TestBench":
                    ok, why = False, "no 'No Errors'"
                elif stray and rt not in ("TestAllowWarnings", "TestBench"):
                    ok, why = False, "stray output: " + stray[0][:80]
                else:
                    ok, why = True, ""
                report("PASS" if ok else "FAIL", label, "" if ok else why + "; " + runlog)
    print("mpich_tests: {PASS} passed, {FAIL} failed, {BUILD} not built, "
          "{SKIP} skipped (logs in ".format(**counts) + logs + ")")
    sys.exit(1 if counts["FAIL"] else 0)


if __name__ == "__main__":
    main()
