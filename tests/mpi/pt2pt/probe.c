/* Probe, Iprobe, Mprobe, Improbe, Mrecv, Imrecv: status fields before the
 * receive, eager and rendezvous sizes, a matched message is invisible to later
 * probes, MPI_MESSAGE_NO_PROC for MPI_PROC_NULL. Rank 0 sends to rank 1. */
#include "fytest.h"

#define TAG_GO 900

static void check_st(MPI_Status *st, int src, int tag, int n, const char *what)
{
    int cnt = -1;
    MPI_Get_count(st, MPI_BYTE, &cnt);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && cnt == n,
          "%s: source %d tag %d count %d, expected %d/%d/%d", what, st->MPI_SOURCE,
          st->MPI_TAG, cnt, src, tag, n);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("pt2pt_probe");
    int rank = fy_rank_;
    static const int ns[] = {0, 10, 16385, 300000};
    char *buf = malloc(300000);
    MPI_Status st;
    int flag;

    /* PROC_NULL forms, on every rank. */
    MPI_Message m = MPI_MESSAGE_NULL;
    CHECK_OK(MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &m, &st));
    CHECK(m == MPI_MESSAGE_NO_PROC, "Mprobe(PROC_NULL) message is not MPI_MESSAGE_NO_PROC");
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "Mprobe(PROC_NULL) status");
    CHECK_OK(MPI_Mrecv(buf, 10, MPI_BYTE, &m, &st));
    CHECK(m == MPI_MESSAGE_NULL, "Mrecv(MESSAGE_NO_PROC) left message not null");
    check_st(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "Mrecv(NO_PROC)");
    flag = 0;
    CHECK_OK(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st));
    CHECK(flag && m == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL) flag %d", flag);
    MPI_Request rq;
    CHECK_OK(MPI_Imrecv(buf, 10, MPI_BYTE, &m, &rq));
    CHECK(m == MPI_MESSAGE_NULL, "Imrecv(MESSAGE_NO_PROC) left message not null");
    CHECK_OK(MPI_Wait(&rq, &st));
    check_st(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "Imrecv(NO_PROC)");

    if (rank == 0 && fy_size_ > 1) {
        for (int i = 0; i < 4; i++) {
            fy_fill(buf, ns[i], (unsigned)i);
            for (int k = 0; k < 4; k++) /* one per probe flavour */
                CHECK_OK(MPI_Send(buf, ns[i], MPI_BYTE, 1, 10 * k + i, MPI_COMM_WORLD));
        }
        CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD));
    } else if (rank == 1) {
        for (int i = 0; i < 4; i++) {
            int n = ns[i];
            /* Probe then Recv */
            CHECK_OK(MPI_Probe(MPI_ANY_SOURCE, 0 * 10 + i, MPI_COMM_WORLD, &st));
            check_st(&st, 0, i, n, "Probe");
            memset(buf, 0, n);
            CHECK_OK(MPI_Recv(buf, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
            check_st(&st, 0, i, n, "Recv after Probe");
            CHECK(fy_verify(buf, n, (unsigned)i) == (size_t)-1, "Probe/Recv payload size %d", n);
            /* Iprobe loop then Recv */
            flag = 0;
            while (!flag) CHECK_OK(MPI_Iprobe(0, 10 + i, MPI_COMM_WORLD, &flag, &st));
            check_st(&st, 0, 10 + i, n, "Iprobe");
            CHECK_OK(MPI_Recv(buf, n, MPI_BYTE, 0, 10 + i, MPI_COMM_WORLD, &st));
            /* Mprobe then Mrecv; the message is then invisible to Iprobe */
            CHECK_OK(MPI_Mprobe(0, 20 + i, MPI_COMM_WORLD, &m, &st));
            check_st(&st, 0, 20 + i, n, "Mprobe");
            CHECK(m != MPI_MESSAGE_NULL && m != MPI_MESSAGE_NO_PROC, "Mprobe message handle");
            flag = 1;
            CHECK_OK(MPI_Iprobe(0, 20 + i, MPI_COMM_WORLD, &flag, &st));
            CHECK(!flag, "Iprobe saw a message already taken by Mprobe (size %d)", n);
            memset(buf, 0, n);
            CHECK_OK(MPI_Mrecv(buf, n, MPI_BYTE, &m, &st));
            CHECK(m == MPI_MESSAGE_NULL, "Mrecv did not null the message");
            check_st(&st, 0, 20 + i, n, "Mrecv");
            CHECK(fy_verify(buf, n, (unsigned)i) == (size_t)-1, "Mrecv payload size %d", n);
            /* Improbe loop then Imrecv */
            flag = 0;
            while (!flag) CHECK_OK(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st));
            check_st(&st, 0, 30 + i, n, "Improbe");
            memset(buf, 0, n);
            CHECK_OK(MPI_Imrecv(buf, n, MPI_BYTE, &m, &rq));
            CHECK(m == MPI_MESSAGE_NULL, "Imrecv did not null the message");
            CHECK_OK(MPI_Wait(&rq, &st));
            check_st(&st, 0, 30 + i, n, "Imrecv");
            CHECK(fy_verify(buf, n, (unsigned)i) == (size_t)-1, "Imrecv payload size %d", n);
        }
        CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD, &st));
        /* nothing else is pending */
        flag = 1;
        CHECK_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        CHECK(!flag, "a stray message is pending (tag %d)", st.MPI_TAG);
        flag = 1;
        CHECK_OK(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st));
        CHECK(!flag && m == MPI_MESSAGE_NULL, "Improbe with nothing pending");
    }
    free(buf);
    return fy_finish();
}
