# Shared by the bench/net drivers (ab.sh, replygap.sh): sourced, not run.
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

fipp_prov() { # ENV... -> the provider fipp takes: FI_PROVIDER's among them, else net
  local e prov=net
  for e in "$@"; do case $e in FI_PROVIDER=*) prov=${e#FI_PROVIDER=} ;; esac; done
  echo "$prov"
}
