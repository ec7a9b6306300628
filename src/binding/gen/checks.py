"""How the generated bindings check arguments: chosen from each parameter's
pympistandard kind, direction and name, plus the override tables below for
what the kinds cannot decide."""

import re

# Callable before MPI_Init / after MPI_Finalize (MPI-4.0 sec. 11.4.1 and the
# MPI_T / sessions / info interfaces, which do not need the World model).
NO_INIT_CHECK = re.compile(
    r"MPI_(Init|Init_thread|Initialized|Finalized|Get_version|Get_library_version|"
    r"Error_class|Error_string|Wtime|Wtick|Info_\w+|Session_\w+|T_\w+|Abi_\w+|"
    r"Pcontrol|Group_from_session_pset)$")

# Functions whose arguments are all checked by the implementation (or may
# legitimately be NULL-like): only the initialization check is generated.
NO_ARG_CHECKS = re.compile(
    r"MPI_(Init|Init_thread|T_\w+|Abi_\w+|Status_\w+|Grequest_\w+|Buffer_detach(_c)?|"
    r"\w+_detach_buffer(_c)?|Register_datarep(_c)?|Comm_spawn(_multiple)?|Free_mem|"
    r"Add_error_string|Get_processor_name|Type_create_keyval|Comm_create_keyval|"
    r"Win_create_keyval|Keyval_create|Info_get_string)$")

# Parameters never checked here, by "Function:param" (significant only at
# some processes, or special values the kind does not tell).
SKIP_PARAMS = {
    "MPI_Intercomm_create:peer_comm", "MPI_Intercomm_create:local_leader",
    "MPI_Intercomm_create:remote_leader", "MPI_Intercomm_create_from_groups:remote_leader",
    "MPI_Intercomm_create_from_groups:local_leader",
    "MPI_Comm_accept:root", "MPI_Comm_connect:root",
    "MPI_Abort:comm",            # MPI_Abort must work even with a broken communicator
    "MPI_Errhandler_free:errhandler",
    "MPI_Session_get_nth_pset:pset_name",  # NULL in a length query (*pset_len == 0)
    "MPI_Type_vector:stride",     # a stride may be negative
    # with op = MPI_NO_OP the origin is ignored (often MPI_DATATYPE_NULL);
    # src/rma checks it for the other operations
    "MPI_Get_accumulate:origin_datatype", "MPI_Get_accumulate:origin_count",
    "MPI_Rget_accumulate:origin_datatype", "MPI_Rget_accumulate:origin_count",
}

# Handle kinds whose C handle is an int and that have a c2f/f2c/toint/fromint
# identity conversion in the MPICH ABI.
INT_HANDLES = {"Comm", "Type", "Group", "Info", "Request", "Op", "Errhandler",
               "Win", "Message", "Session"}


def _base(f):
    return f.name[:-2] if f.name.endswith("_c") else f.name


def direct_body(f):
    """Bodies simple enough to live in the binding itself, or None."""
    n = f.name
    m = re.match(r"MPI_(\w+)_(c2f|f2c|toint|fromint)$", n)
    if m and m.group(1) in INT_HANDLES:
        arg = f.args()
        return ["return (%s)%s;" % (f.ret, arg)]
    if n == "MPI_Aint_add":
        return ["return base + disp;"]
    if n == "MPI_Aint_diff":
        return ["return addr1 - addr2;"]
    if n in ("MPI_Wtime", "MPI_Wtick"):
        return ["return %s();" % f.impl]
    if n == "MPI_Pcontrol":
        return ["return %s(level);" % f.impl]
    if n == "MPI_File_toint":
        # a conversion, not an error code: no error path
        return ["return %s(%s);" % (f.impl, f.args())]
    if f.ret != "int":
        # e.g. MPI_File_c2f: no error path exists, call through
        return ["return %s(%s);" % (f.impl, f.args())]
    return None


def has_impl(f):
    m = re.match(r"MPI_(\w+)_(c2f|f2c|toint|fromint)$", f.name)
    if m and m.group(1) in INT_HANDLES:
        return False
    return f.name not in ("MPI_Aint_add", "MPI_Aint_diff")


def default_impl_body(f):
    if f.name == "MPI_Pcontrol":
        return "return MPI_SUCCESS; /* profiling control has no effect by default */"
    if f.ret == "int":
        return 'return fy_err_unsupported("%s");' % f.name
    if f.ret == "double":
        return "return 0.0;"
    if f.ret == "MPI_File":
        return "return MPI_FILE_NULL;"
    return "return 0;"


def needs_init_check(f):
    return not NO_INIT_CHECK.match(_base(f))


def _scalar(ps):
    return ps["length"] is None


def _is_ptr(p):
    return p.pointer_level > 0


def select(f):
    """fy_check_* calls for f, in order: handles first, then ranks, tags,
    counts and buffers (which need a valid communicator and datatype)."""
    base = _base(f)
    if NO_ARG_CHECKS.match(base):
        return []
    names = {p[1]: p for p in f.params if p[1]}
    comm = "comm" if "comm" in names and names["comm"][2]["kind"] == "COMMUNICATOR" \
        and not _is_ptr(names["comm"][3]) else None
    first, later, bufs = [], [], []
    is_type_fn = base.startswith("MPI_Type_")
    has_source = "source" in names
    # Collectives: with sendbuf = MPI_IN_PLACE the send count and type are
    # ignored (often MPI_DATATYPE_NULL), so src/coll checks them itself.
    in_place_coll = "sendbuf" in names and "recvbuf" in names and "dest" not in names
    for decl, name, ps, p in f.params:
        if not name or ps["optional"] or ps["root_only"]:
            continue
        if "%s:%s" % (base, name) in SKIP_PARAMS:
            continue
        if in_place_coll and name in ("sendtype", "sendcount"):
            continue
        # Scatter(v): recvbuf = MPI_IN_PLACE at the root ignores recvcount/recvtype.
        if in_place_coll and re.match(r"MPI_(I?[Ss]catterv?)(_init)?$", base) and name in ("recvtype", "recvcount"):
            continue
        kind, d = ps["kind"], ps["param_direction"]
        ptr = _is_ptr(p)
        arr = not _scalar(ps)
        a = '"%s"' % name
        if arr:
            continue
        if kind in ("STATUS", "F08_STATUS", "F90_STATUS", "BUFFER", "C_BUFFER", "C_BUFFER2",
                    "C_BUFFER3", "C_BUFFER4", "EXTRA_STATE", "EXTRA_STATE2",
                    "FUNCTION", "FUNCTION_SMALL", "POLYFUNCTION", "STRING_ARRAY",
                    "STRING_2DARRAY", "ARGUMENT_LIST", "ARGUMENT_COUNT", "VARARGS",
                    "ATTRIBUTE_VAL_10"):
            if kind == "BUFFER":
                bufs.extend(_buffer_check(f, name, names, base))
            continue
        if ptr:
            # outputs, in-out handles (MPI_Comm_free(&comm)), flags
            if d in ("out", "inout") or kind in ("REQUEST",):
                first.append("fy_check_ptr(%s, %s)" % (name, a))
                if d == "inout":
                    inner = _handle_check(kind, "*" + name, a, is_type_fn, inout=True)
                    if inner:
                        first.append(inner)
            continue
        if d != "in":
            continue
        hc = _handle_check(kind, name, a, is_type_fn)
        if hc:
            first.append(hc)
            continue
        if kind in ("RANK", "RANK_NNI") and comm:
            if name == "dest":
                later.append("fy_check_rank_dest(comm, dest, %s)" % a)
            elif name == "source":
                later.append("fy_check_rank_source(comm, source, %s)" % a)
            elif name == "root":
                later.append("fy_check_rank_root(comm, root, %s)" % a)
        elif kind == "TAG":
            recv = name == "recvtag" or (name == "tag" and has_source)
            later.append("fy_check_tag_%s(%s, %s)" % ("recv" if recv else "send", name, a))
        elif re.match(r"(POLY)?(XFER_NUM_ELEM|DTYPE_NUM_ELEM)", kind):
            later.append("fy_check_count(%s, %s)" % (name, a))
    # the communicator first: rank checks and error reports depend on it
    # (but a pointer to one is checked before what it points to is read)
    first.sort(key=lambda c: not (c.startswith("fy_check_comm(") and not c.startswith("fy_check_comm(*")))
    return first + later + bufs


def _handle_check(kind, expr, a, is_type_fn, inout=False):
    if kind == "COMMUNICATOR":
        return "fy_check_comm(%s, %s)" % (expr, a)
    if kind == "DATATYPE":
        fn = "fy_check_datatype_uncommitted" if is_type_fn or inout else "fy_check_datatype"
        return "%s(%s, %s)" % (fn, expr, a)
    if kind == "OPERATION" and not inout:
        return "fy_check_op(%s, %s)" % (expr, a)
    if kind == "GROUP" and not inout:
        return "fy_check_group(%s, %s)" % (expr, a)
    if kind == "INFO" and not inout:
        return "fy_check_info(%s, %s)" % (expr, a)
    if kind == "ERRHANDLER" and not inout:
        return "fy_check_errhandler(%s, %s)" % (expr, a)
    if kind == "WINDOW":
        return "fy_check_win(%s, %s)" % (expr, a)
    return None


_BUFFER_CALLS = re.compile(
    r"MPI_(I|B|S|R|P)?(send|Send|recv|Recv|Recv_init|Send_init|Bsend|Ssend|Rsend|"
    r"Ibsend|Issend|Irsend|Mrecv|Imrecv|Sendrecv|Sendrecv_replace|Isendrecv|"
    r"Isendrecv_replace|Psend_init|Precv_init|Bsend_init|Ssend_init|Rsend_init|"
    r"Put|Get|Rput|Rget|Accumulate|Raccumulate|Pack|Unpack)$")
_RMA_CALLS = re.compile(r"MPI_(Put|Get|Accumulate|Rput|Rget|Raccumulate)$")


def _buffer_args(name, names, base):
    """(count, datatype) describing buffer `name` of a point-to-point, RMA
    or pack call, or None."""
    if not _BUFFER_CALLS.match(base):
        return None
    stem = name[:-3] if name.endswith("buf") else None
    if name == "origin_addr":
        cnt, typ = "origin_count", "origin_datatype"
    elif stem is None:
        return None
    else:
        cnt = (stem + "count") if stem else "count"
        typ = next((t for t in (stem + "type", stem + "datatype", "datatype") if t in names), None)
    if cnt not in names or typ not in names or not _scalar(names[cnt][2]):
        return None
    return cnt, typ


def _buffer_check(f, name, names, base):
    """Buffers of point-to-point, RMA and pack calls, paired with the count
    and datatype that describe them.  Collective buffers are left to the
    implementation (MPI_IN_PLACE, significance only at the root)."""
    ct = _buffer_args(name, names, base)
    return ['fy_check_buf(%s, %s, %s, "%s")' % (name, ct[0], ct[1], name)] if ct else []


def null_type_fixups(f):
    """Statements run before the checks: a point-to-point or pack buffer of
    count 0 may name MPI_DATATYPE_NULL (MPICH checks such a type only when
    the count is positive, and programs send empty messages that way); it
    stands for MPI_BYTE then. RMA calls keep their check, as in MPICH."""
    base = _base(f)
    if _RMA_CALLS.match(base) or NO_ARG_CHECKS.match(base):
        return []
    names = {p[1]: p for p in f.params if p[1]}
    out = []
    for decl, name, ps, p in f.params:
        if ps["kind"] != "BUFFER":
            continue
        ct = _buffer_args(name, names, base)
        if ct and not _is_ptr(names[ct[1]][3]):
            out.append("if (%s == 0 && %s == MPI_DATATYPE_NULL) %s = MPI_BYTE;" % (ct[0], ct[1], ct[1]))
    return out


def null_outputs_on_error(f):
    """A call that fails leaves its new communicator MPI_COMM_NULL, as MPICH's
    do (and MPICH's tests expect: errors/topo/cartsmall)."""
    out = []
    for decl, name, ps, p in f.params:
        if (name and p.pointer_level == 1 and ps["param_direction"] == "out" and ps["length"] is None
                and ps["kind"] == "COMMUNICATOR"):
            out.append("if (%s) *%s = MPI_COMM_NULL;" % (name, name))
    return out


def error_object(f):
    """Which object's error handler fy_err_raise() should use."""
    # No file exists yet (open) or none is named (delete, register_datarep): errors go to
    # MPI_FILE_NULL's handler (MPI 4.1 14.7); close names its file by pointer.
    if f.name in ("MPI_File_open", "MPI_File_delete") or _base(f) == "MPI_Register_datarep":
        return "FY_OBJ_FILE", "0"
    if f.name == "MPI_File_close":
        return "FY_OBJ_FILE", "(fh ? fy_file_key(*fh) : 0)"
    # No session exists yet: the handler given as the argument (MPI 4.1 11.3.1).
    if f.name == "MPI_Session_init":
        return "FY_OBJ_EH_ARG", "errhandler"
    # The handler given for the new communicator is also invoked on the
    # call's own errors (the standard's definition of both calls).
    if _base(f) in ("MPI_Comm_create_from_group", "MPI_Intercomm_create_from_groups"):
        return "FY_OBJ_EH_ARG", "errhandler"
    for decl, name, ps, p in f.params:
        if not name or p.pointer_level or ps["length"] is not None:
            continue
        if ps["kind"] == "COMMUNICATOR":
            return "FY_OBJ_COMM", name
        if ps["kind"] == "WINDOW":
            return "FY_OBJ_WIN", name
        if ps["kind"] == "SESSION":
            return "FY_OBJ_SESSION", name
        if ps["kind"] == "FILE":
            # MPI_File is a pointer in the MPICH ABI whose value Ferry makes
            # an int handle (src/io): fy_file_key() gives it back
            return "FY_OBJ_FILE", "fy_file_key(%s)" % name
    # A communicator or window passed by pointer to be freed (Comm_free,
    # Comm_disconnect, Win_free): an error leaves it in place, so its handler.
    for decl, name, ps, p in f.params:
        if name and p.pointer_level == 1 and ps["param_direction"] == "inout" and ps["length"] is None:
            if ps["kind"] == "COMMUNICATOR":
                return "FY_OBJ_COMM", "(%s ? *%s : MPI_COMM_NULL)" % (name, name)
            if ps["kind"] == "WINDOW":
                return "FY_OBJ_WIN", "(%s ? *%s : MPI_WIN_NULL)" % (name, name)
    return "FY_OBJ_NONE", "0"
