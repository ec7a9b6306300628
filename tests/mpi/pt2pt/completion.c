/* Completion calls: Waitany/Testany/Waitall/Testall/Waitsome/Testsome with
 * MPI_REQUEST_NULL entries and all-null arrays (index/outcount MPI_UNDEFINED,
 * empty status), MPI_ERR_IN_STATUS from Waitsome/Testsome, Request_get_status
 * (does not free), Request_free of an active send (message still delivered).
 * Pairs (0,1), (2,3): the even rank sends. */
#include "fytest.h"

#define N 6
#define TAG_GO 600

static int empty_status(MPI_Status *st)
{
    int c = -1;
    MPI_Get_count(st, MPI_INT, &c);
    return st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && c == 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("pt2pt_completion");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = fy_rank_, size = fy_size_;
    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    MPI_Request rq[N];
    MPI_Status sts[N], st;
    int idx, flag, outc, idxs[N];

    /* all-null arrays */
    for (int i = 0; i < N; i++) rq[i] = MPI_REQUEST_NULL;
    CHECK_OK(MPI_Waitany(N, rq, &idx, &st));
    CHECK(idx == MPI_UNDEFINED && empty_status(&st), "Waitany(all null): index %d", idx);
    flag = 0;
    CHECK_OK(MPI_Testany(N, rq, &idx, &flag, &st));
    CHECK(flag && idx == MPI_UNDEFINED, "Testany(all null): flag %d index %d", flag, idx);
    CHECK_OK(MPI_Waitall(N, rq, sts));
    flag = 0;
    CHECK_OK(MPI_Testall(N, rq, &flag, sts));
    CHECK(flag, "Testall(all null) flag false");
    CHECK_OK(MPI_Waitsome(N, rq, &outc, idxs, sts));
    CHECK(outc == MPI_UNDEFINED, "Waitsome(all null): outcount %d", outc);
    CHECK_OK(MPI_Testsome(N, rq, &outc, idxs, sts));
    CHECK(outc == MPI_UNDEFINED, "Testsome(all null): outcount %d", outc);
    CHECK_OK(MPI_Waitany(0, NULL, &idx, &st));
    CHECK(idx == MPI_UNDEFINED, "Waitany(0) index %d", idx);
    CHECK_OK(MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE));
    flag = 0;
    CHECK_OK(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
    CHECK(flag && empty_status(&st), "Request_get_status(REQUEST_NULL)");
    CHECK_OK(MPI_Wait(&rq[0], &st));
    CHECK(empty_status(&st), "Wait(REQUEST_NULL) status not empty");

    if (peer < size) {
        int sv[N], rv[N];
        for (int round = 0; round < 4; round++) {
            /* arrays with nulls at even slots; receives tagged by slot */
            for (int i = 0; i < N; i++) {
                rq[i] = MPI_REQUEST_NULL;
                sv[i] = rank * 100 + i;
                rv[i] = -1;
                if (i % 2 == 0) continue;
                if (rank % 2 == 0) CHECK_OK(MPI_Isend(&sv[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &rq[i]));
                else CHECK_OK(MPI_Irecv(&rv[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &rq[i]));
            }
            int done = 0, seen[N] = {0};
            while (done < N / 2) {
                switch (round) {
                case 0:
                    CHECK_OK(MPI_Waitany(N, rq, &idx, &st));
                    if (idx == MPI_UNDEFINED || idx % 2 == 0 || seen[idx]) { CHECK(0, "Waitany index %d", idx); done = N; break; }
                    CHECK(rq[idx] == MPI_REQUEST_NULL, "Waitany did not free");
                    seen[idx] = 1; done++;
                    if (rank % 2) CHECK(st.MPI_TAG == idx && st.MPI_SOURCE == peer, "Waitany status");
                    break;
                case 1:
                    flag = 0;
                    CHECK_OK(MPI_Testany(N, rq, &idx, &flag, &st));
                    if (!flag) break;
                    if (idx == MPI_UNDEFINED || idx % 2 == 0 || seen[idx]) { CHECK(0, "Testany index %d", idx); done = N; break; }
                    seen[idx] = 1; done++;
                    break;
                case 2:
                    CHECK_OK(MPI_Waitsome(N, rq, &outc, idxs, sts));
                    if (outc == MPI_UNDEFINED || outc < 1) { CHECK(0, "Waitsome outcount %d", outc); done = N; break; }
                    for (int k = 0; k < outc; k++) {
                        CHECK(idxs[k] % 2 == 1 && !seen[idxs[k]], "Waitsome index %d", idxs[k]);
                        if (rank % 2) CHECK(sts[k].MPI_TAG == idxs[k], "Waitsome status %d is for tag %d", k, sts[k].MPI_TAG);
                        seen[idxs[k]] = 1; done++;
                    }
                    break;
                case 3:
                    CHECK_OK(MPI_Testsome(N, rq, &outc, idxs, sts));
                    CHECK(outc != MPI_UNDEFINED, "Testsome outcount undefined with active requests");
                    for (int k = 0; k < outc && outc != MPI_UNDEFINED; k++) { seen[idxs[k]] = 1; done++; }
                    break;
                }
            }
            if (rank % 2)
                for (int i = 1; i < N; i += 2) CHECK(rv[i] == peer * 100 + i, "round %d slot %d got %d", round, i, rv[i]);
        }
        /* Testall until done, with nulls */
        for (int i = 0; i < N; i++) {
            rq[i] = MPI_REQUEST_NULL;
            if (i % 3 == 0) continue;
            if (rank % 2 == 0) CHECK_OK(MPI_Isend(&sv[i], 1, MPI_INT, peer, 50 + i, MPI_COMM_WORLD, &rq[i]));
            else CHECK_OK(MPI_Irecv(&rv[i], 1, MPI_INT, peer, 50 + i, MPI_COMM_WORLD, &rq[i]));
        }
        flag = 0;
        while (!flag) CHECK_OK(MPI_Testall(N, rq, &flag, sts));
        for (int i = 0; i < N; i++) CHECK(rq[i] == MPI_REQUEST_NULL, "Testall left request %d", i);

        /* ERR_IN_STATUS from Waitsome / Testsome (truncation) */
        for (int k = 0; k < 2; k++) {
            if (rank % 2 == 0) {
                int big[4] = {1, 2, 3, 4};
                CHECK_OK(MPI_Send(big, 4, MPI_INT, peer, 70 + k, MPI_COMM_WORLD));
            } else {
                int small[2];
                MPI_Request r1[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
                CHECK_OK(MPI_Irecv(small, 2, MPI_INT, peer, 70 + k, MPI_COMM_WORLD, &r1[1]));
                int rc;
                outc = 0;
                do {
                    rc = k ? MPI_Testsome(2, r1, &outc, idxs, sts) : MPI_Waitsome(2, r1, &outc, idxs, sts);
                } while (rc == MPI_SUCCESS && outc == 0);
                CHECK_CLASS(rc, MPI_ERR_IN_STATUS);
                CHECK(outc == 1 && idxs[0] == 1, "%s: outcount %d", k ? "Testsome" : "Waitsome", outc);
                CHECK_CLASS(sts[0].MPI_ERROR, MPI_ERR_TRUNCATE);
            }
        }

        /* Request_get_status does not free; Request_free of an active send */
        if (rank % 2 == 0) {
            static char big[200000];
            fy_fill(big, sizeof big, 5);
            MPI_Request r;
            CHECK_OK(MPI_Isend(big, sizeof big, MPI_BYTE, peer, 80, MPI_COMM_WORLD, &r));
            flag = 0;
            while (!flag) CHECK_OK(MPI_Request_get_status(r, &flag, &st));
            CHECK(r != MPI_REQUEST_NULL, "Request_get_status freed the request");
            CHECK_OK(MPI_Request_get_status(r, &flag, &st));
            CHECK(flag, "Request_get_status: complete request reported incomplete");
            CHECK_OK(MPI_Wait(&r, &st));
            CHECK(r == MPI_REQUEST_NULL, "Wait after Request_get_status did not free");
            int v[2] = {11, 22};
            CHECK_OK(MPI_Isend(v, 2, MPI_INT, peer, 81, MPI_COMM_WORLD, &r));
            CHECK_OK(MPI_Request_free(&r));
            CHECK(r == MPI_REQUEST_NULL, "Request_free did not null the handle");
            CHECK_OK(MPI_Isend(big, sizeof big, MPI_BYTE, peer, 82, MPI_COMM_WORLD, &r));
            CHECK_OK(MPI_Request_free(&r));
            /* the freed large send is still delivered; we learn it by an ack */
            CHECK_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else {
            static char big[200000];
            MPI_Request r;
            CHECK_OK(MPI_Irecv(big, sizeof big, MPI_BYTE, peer, 80, MPI_COMM_WORLD, &r));
            flag = 0;
            while (!flag) CHECK_OK(MPI_Request_get_status(r, &flag, &st));
            int c = 0;
            MPI_Get_count(&st, MPI_BYTE, &c);
            CHECK(c == (int)sizeof big && st.MPI_TAG == 80, "Request_get_status status: count %d tag %d", c, st.MPI_TAG);
            CHECK_OK(MPI_Wait(&r, &st));
            CHECK(fy_verify(big, sizeof big, 5) == (size_t)-1, "payload 80");
            int v[2] = {0, 0};
            CHECK_OK(MPI_Recv(v, 2, MPI_INT, peer, 81, MPI_COMM_WORLD, &st));
            CHECK(v[0] == 11 && v[1] == 22, "freed small send delivered %d %d", v[0], v[1]);
            memset(big, 0, sizeof big);
            CHECK_OK(MPI_Recv(big, sizeof big, MPI_BYTE, peer, 82, MPI_COMM_WORLD, &st));
            CHECK(fy_verify(big, sizeof big, 5) == (size_t)-1, "freed large send payload");
            CHECK_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD));
        }
    }
    return fy_finish();
}
