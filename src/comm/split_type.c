/* MPI_Comm_split_type: the colour comes from where the process runs.
 * SHARED: the node (the processes of one host, as PMI's host names say). HW_GUIDED: the info key mpi_hw_resource_type,
 * "mpi_shared_memory" or an hwloc object type ("Package", "NUMANode",
 * "L3Cache", "Core", ...): processes bound inside the same such object
 * share a communicator, a process not bound inside one gets MPI_COMM_NULL
 * (as does every process without hwloc, or for an unknown type).
 * HW_UNGUIDED: no finer split is offered, MPI_COMM_NULL. */
#include "comm/fy_commc.h"
#include "core/fy_error.h"
#include "core/fy_info.h"
#include "core/fy_init.h"
#include "binding/fy_impl.h"
#include <string.h>
#ifdef FY_HAVE_HWLOC
#include <hwloc.h>
#endif

int fy_commc_split_intra(fy_comm_t *c, int color, int key, fy_comm_t **out);
int fy_commc_split_inter(fy_comm_t *c, int color, int key, fy_comm_t **out);

#ifdef FY_HAVE_HWLOC
static hwloc_topology_t topo;
static int topo_state; /* 0 not loaded, 1 loaded, -1 failed */

static int hw_color(const char *type_name) {
  hwloc_obj_type_t type;
  if (hwloc_type_sscanf(type_name, &type, NULL, 0) != 0) return MPI_UNDEFINED;
  if (topo_state == 0) {
    topo_state = -1;
    if (hwloc_topology_init(&topo) == 0) {
      if (hwloc_topology_load(topo) == 0) topo_state = 1;
      else hwloc_topology_destroy(topo);
    }
  }
  if (topo_state != 1) return MPI_UNDEFINED;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  int color = MPI_UNDEFINED;
  if (set && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
    /* the object of that type holding every CPU the process may run on
     * (NUMA nodes are not ancestors of CPUs in hwloc 2: compare cpusets) */
    int n = hwloc_get_nbobjs_by_type(topo, type);
    for (int i = 0; i < n && color == MPI_UNDEFINED; i++) {
      hwloc_obj_t o = hwloc_get_obj_by_type(topo, type, (unsigned)i);
      if (o && o->cpuset && hwloc_bitmap_isincluded(set, o->cpuset)) color = i;
    }
  }
  hwloc_bitmap_free(set);
  return color;
}
#else
static int hw_color(const char *type_name) {
  (void)type_name;
  return MPI_UNDEFINED;
}
#endif

/* The node: the lowest world rank that shares this process's memory
 * (FERRY_NOLOCAL=1: each process alone). */
static int node_color(void) {
  for (int w = 0; w < fy_state.world_size; w++)
    if (fy_state.local_of_world[w] >= 0) return w;
  return fy_state.world_rank;
}

int fy_mpi_comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm) {
  fy_comm_t *c = fy_comm_get(comm), *n = NULL;
  int color;
  char v[MPI_MAX_INFO_VAL];
  switch (split_type) {
    case MPI_UNDEFINED: color = MPI_UNDEFINED; break;
    case MPI_COMM_TYPE_SHARED: color = node_color(); break;
    case MPI_COMM_TYPE_HW_GUIDED:
      if (!fy_info_lookup(info, "mpi_hw_resource_type", v, sizeof v)) color = MPI_UNDEFINED;
      else if (strcmp(v, "mpi_shared_memory") == 0) color = node_color();
      else color = hw_color(v);
      break;
    case MPI_COMM_TYPE_HW_UNGUIDED: color = MPI_UNDEFINED; break;
    default:
      return fy_err(MPI_ERR_ARG, "split_type = %d is not MPI_UNDEFINED or an MPI_COMM_TYPE_ constant",
                    split_type);
  }
  /* on an intercommunicator: the same split of both groups, paired up
   * (the result is an intercommunicator) */
  int err = c->is_inter ? fy_commc_split_inter(c, color, key, &n) : fy_commc_split_intra(c, color, key, &n);
  if (err) return err;
  *newcomm = n ? n->handle : MPI_COMM_NULL;
  return MPI_SUCCESS;
}
