# Shared by the bench/net drivers (ab.sh, replygap.sh, unexpected.sh):
# sourced, not run.
# The caller sets out (a scratch directory, built binaries go there) and
# here (bench/net).

# How Debian's MPICH runs over TCP: UCX's tcp transport, and its own
# shared memory kept out on one host (UCX_TLS does not reach it).
FY_NET_MPICH_ENV=(UCX_TLS=tcp,self MPIR_CVAR_ODD_EVEN_CLIQUES=1)

spec_of() { # CONFIG DEFAULT-INSTALL: sets inst (after '@') and envs (after each '+')
  local spec=${1#"${1%%[@+]*}"}
  inst=$2 envs=()
  if [[ $spec == @* ]]; then inst=${spec#@}; inst=${inst%%+*}; fi
  [[ $spec == *+* ]] && IFS=+ read -r -a envs <<<"${spec#*+}"
  return 0
}

exe_for() { # INSTALL-or-impl (mpich, ompi) -> netlat built with its wrapper (once)
  local key=$1 cc dir
  case $key in
    ompi) cc=mpicc.openmpi ;; mpich) cc=mpicc.mpich ;; *) cc=$key/bin/mpicc ;;
  esac
  dir=$out/build-$(echo "$key" | tr '/' '_')
  mkdir -p "$dir"
  [ -x "$dir/netlat" ] || "$cc" -O2 -o "$dir/netlat" "$here/netlat.c" >&2 || return 1
  echo "$dir/netlat"
}

fipp_exe() { # -> fipp, the provider alone (built once; needs libfabric-dev)
  local dir=$out/build-fipp
  mkdir -p "$dir"
  [ -x "$dir/fipp" ] || cc -O2 -o "$dir/fipp" "$here/fipp.c" -lfabric >&2 || return 1
  echo "$dir/fipp"
}

fipp_places() { # NETNS (0 or 1): sets fipp_srv and fipp_cli (what each side runs
  # under: the first and second test host, or cores 0 and 1 of this one)
  # and fipp_at (fipp's address option: loopback on one host)
  if [ "$1" = 1 ]; then
    local ha hb hs
    IFS=, read -r ha hb hs <<<"$FY_NETNS_HOSTS"
    fipp_srv=("$FY_NETNS_EXEC" "$ha") fipp_cli=("$FY_NETNS_EXEC" "$hb") fipp_at=()
  else
    fipp_srv=(taskset -c 0) fipp_cli=(taskset -c 1) fipp_at=(-a 127.0.0.1)
  fi
}

fipp_prov() { # ENV... -> the provider fipp takes: FI_PROVIDER's among them, else net
  local e prov=net
  for e in "$@"; do case $e in FI_PROVIDER=*) prov=${e#FI_PROVIDER=} ;; esac; done
  echo "$prov"
}

fipp_cmd() { # SIDE DIR EXE ENV... : sets fipp_run, the command that runs fipp's
  # SIDE (server or client) with the environment ENV, placed as fipp_places
  # said (call it first), exchanging its address through directory DIR; the
  # caller adds the options of the measurement, a timeout and redirections
  local side=$1 dir=$2 exe=$3 place
  shift 3
  if [ "$side" = server ]; then place=("${fipp_srv[@]}"); else place=("${fipp_cli[@]}"); fi
  fipp_run=(env "$@" "${place[@]}" "$exe" -r "$side" -d "$dir" -p "$(fipp_prov "$@")" "${fipp_at[@]}")
}
