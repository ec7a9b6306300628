/* MPI_PROC_NULL as source/destination of every operation: completes at once,
 * status source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0, buffer untouched. */
#include "fytest.h"

static void chk(MPI_Status *st, const char *what)
{
    int cnt = -1, el = -1;
    MPI_Get_count(st, MPI_INT, &cnt);
    MPI_Get_elements(st, MPI_INT, &el);
    CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && cnt == 0 && el == 0,
          "%s: source %d tag %d count %d elements %d", what, st->MPI_SOURCE, st->MPI_TAG, cnt, el);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("pt2pt_procnull");
    int buf[4] = {1, 2, 3, 4}, flag;
    MPI_Status st;
    MPI_Request r;
    CHECK_OK(MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    CHECK_OK(MPI_Ssend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    CHECK_OK(MPI_Rsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    CHECK_OK(MPI_Bsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD)); /* no buffer needed */
    CHECK_OK(MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    chk(&st, "Recv");
    CHECK(buf[0] == 1 && buf[3] == 4, "Recv(PROC_NULL) wrote the buffer");
    CHECK_OK(MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    chk(&st, "Recv ANY_TAG");
    CHECK_OK(MPI_Isend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Wait(&r, &st));
    CHECK_OK(MPI_Issend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
    flag = 0;
    CHECK_OK(MPI_Test(&r, &flag, &st));
    CHECK(flag, "Issend(PROC_NULL) not complete at first Test");
    CHECK_OK(MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
    flag = 0;
    CHECK_OK(MPI_Test(&r, &flag, &st));
    CHECK(flag, "Irecv(PROC_NULL) not complete at first Test");
    chk(&st, "Irecv");
    CHECK_OK(MPI_Probe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    chk(&st, "Probe");
    flag = 0;
    CHECK_OK(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag, "Iprobe(PROC_NULL) flag false");
    chk(&st, "Iprobe");
    /* persistent */
    CHECK_OK(MPI_Recv_init(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
    for (int i = 0; i < 3; i++) {
        CHECK_OK(MPI_Start(&r));
        CHECK_OK(MPI_Wait(&r, &st));
        chk(&st, "Recv_init");
    }
    CHECK_OK(MPI_Request_free(&r));
    CHECK_OK(MPI_Send_init(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Start(&r));
    CHECK_OK(MPI_Wait(&r, &st));
    CHECK_OK(MPI_Request_free(&r));
    CHECK(buf[0] == 1 && buf[3] == 4, "buffer modified");
    return fy_finish();
}
