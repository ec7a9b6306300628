/* Environment queries: Get_version matches the header's MPI_VERSION /
 * MPI_SUBVERSION; Get_library_version is non-empty and names Ferry (set
 * FYTEST_FOREIGN_MPI=1 to run against another MPI); Get_processor_name;
 * Wtime monotone, Wtick > 0; Comm_rank/Comm_size on COMM_WORLD and
 * COMM_SELF; the MPI_TAG_UB attribute is at least 32767. */
#include "fytest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("env_basics");
    int v = -1, sv = -1, len = -1;
    CHECK_OK(MPI_Get_version(&v, &sv));
    CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION, "Get_version %d.%d, header says %d.%d", v, sv,
          MPI_VERSION, MPI_SUBVERSION);
    CHECK((v == 4 && sv == 0) || (v == 3 && sv == 1), "version %d.%d is neither 4.0 nor 3.1", v, sv);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    memset(lib, 'x', sizeof lib);
    CHECK_OK(MPI_Get_library_version(lib, &len));
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING && (size_t)len == strlen(lib),
          "library version length %d", len);
    if (!getenv("FYTEST_FOREIGN_MPI"))
        CHECK(strstr(lib, "Ferry") != NULL, "library version \"%.80s\" does not name Ferry", lib);
    char host[MPI_MAX_PROCESSOR_NAME];
    CHECK_OK(MPI_Get_processor_name(host, &len));
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && (size_t)len == strlen(host), "processor name length %d", len);

    double tick = MPI_Wtick(), t0 = MPI_Wtime(), prev = t0;
    CHECK(tick > 0 && tick < 1, "Wtick %g", tick);
    for (int i = 0; i < 100000; i++) {
        double t = MPI_Wtime();
        if (t < prev) { CHECK(0, "Wtime went backwards: %.9f after %.9f", t, prev); break; }
        prev = t;
    }
    usleep(20000);
    CHECK(MPI_Wtime() > t0, "Wtime did not advance over a 20 ms sleep");

    int r = -1, s = -1;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_SELF, &r));
    CHECK_OK(MPI_Comm_size(MPI_COMM_SELF, &s));
    CHECK(r == 0 && s == 1, "COMM_SELF rank %d size %d", r, s);
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &s));
    CHECK(r >= 0 && r < s && s >= 1, "COMM_WORLD rank %d size %d", r, s);
    /* COMM_SELF works for messages to oneself */
    int x = 5, y = 0;
    CHECK_OK(MPI_Sendrecv(&x, 1, MPI_INT, 0, 1, &y, 1, MPI_INT, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    CHECK(y == 5, "COMM_SELF self message got %d", y);
    /* messages on COMM_SELF and COMM_WORLD do not mix */
    MPI_Request rq;
    CHECK_OK(MPI_Irecv(&y, 1, MPI_INT, 0, 2, MPI_COMM_SELF, &rq));
    if (s > 1 && r == 1) { x = 111; CHECK_OK(MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD)); }
    if (s > 1 && r == 0) {
        int z = 0;
        CHECK_OK(MPI_Recv(&z, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(z == 111, "COMM_WORLD message got %d", z);
    }
    x = 222;
    CHECK_OK(MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_SELF));
    CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(y == 222, "COMM_SELF receive got %d (crossed communicators?)", y);

    int *ub, fl = 0;
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &fl));
    CHECK(fl && *ub >= 32767, "MPI_TAG_UB flag %d value %d", fl, fl ? *ub : 0);
    return fy_finish();
}
