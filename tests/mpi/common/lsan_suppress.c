/* LeakSanitizer suppressions for the MPI test programs and the unit tests
 * of a sanitizer build (linked in only then, see FY_TEST_EXTRA_SOURCES in
 * the top CMakeLists.txt). LSan asks the program for this hook; a definition in
 * the executable wins over the runtime's empty default.
 *
 * libfabric 1.17's net provider keeps fi_dupinfo copies and connection
 * records that no fi_close frees (Ferry closes endpoint, address vector,
 * completion queue, domain and fabric, and every close returns 0). Only
 * allocations with a libfabric frame are suppressed; the tcp;ofi_rxm
 * variants of the net tests have no such leak. libpmix 4.2 (srun
 * --mpi=pmix, launch.hosts.net_slurm) keeps two strings of PMIx_Init
 * that PMIx_Finalize, which Ferry calls, does not free. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libfabric.so\nleak:libpmix.so\n"; }
