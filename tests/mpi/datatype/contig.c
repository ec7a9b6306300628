/* Type_contiguous / Type_commit / Type_free: contiguous of a basic type and
 * contiguous of contiguous; sizes and extents; send with the derived type and
 * receive as basic elements and vice versa; Get_count (MPI_UNDEFINED for a
 * partial derived element) and Get_elements counting basic elements; zero
 * count; Type_free of a type still used by a pending receive; large
 * (rendezvous) transfers with a derived type. */
#include "fytest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("datatype_contig");
    int rank = fy_rank_, size = fy_size_;
    int peer = size > 1 ? (rank == 0 ? 1 : 0) : 0;
    MPI_Datatype c5, c15, c0, big;
    CHECK_OK(MPI_Type_contiguous(5, MPI_INT, &c5));
    CHECK_OK(MPI_Type_contiguous(3, c5, &c15));
    CHECK_OK(MPI_Type_contiguous(0, MPI_INT, &c0));
    CHECK_OK(MPI_Type_contiguous(25000, MPI_DOUBLE, &big));
    CHECK_OK(MPI_Type_commit(&c5));
    CHECK_OK(MPI_Type_commit(&c15));
    CHECK_OK(MPI_Type_commit(&c0));
    CHECK_OK(MPI_Type_commit(&big));
    int sz;
    MPI_Aint lb, ext;
    MPI_Type_size(c15, &sz);
    MPI_Type_get_extent(c15, &lb, &ext);
    CHECK(sz == 15 * (int)sizeof(int) && lb == 0 && ext == 15 * (MPI_Aint)sizeof(int), "c15: size %d extent %ld", sz, (long)ext);
    MPI_Type_size(c0, &sz);
    CHECK(sz == 0, "contiguous(0) size %d", sz);

    if (rank < 2) {
        int a[60], b[60];
        MPI_Status st;
        int cnt, el;
        MPI_Request r;
        for (int i = 0; i < 60; i++) a[i] = rank * 1000 + i;
        /* 2 x c15 = 30 ints, received as MPI_INT */
        CHECK_OK(MPI_Isend(a, 2, c15, peer, 1, MPI_COMM_WORLD, &r));
        memset(b, 0, sizeof b);
        CHECK_OK(MPI_Recv(b, 60, MPI_INT, peer, 1, MPI_COMM_WORLD, &st));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(cnt == 30 && b[29] == peer * 1000 + 29 && b[30] == 0, "c15 -> int: count %d", cnt);
        /* 30 ints received as c15: count 2, elements 30 */
        CHECK_OK(MPI_Isend(a, 30, MPI_INT, peer, 2, MPI_COMM_WORLD, &r));
        CHECK_OK(MPI_Recv(b, 4, c15, peer, 2, MPI_COMM_WORLD, &st));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        MPI_Get_count(&st, c15, &cnt);
        MPI_Get_elements(&st, c15, &el);
        CHECK(cnt == 2 && el == 30, "int -> c15: count %d elements %d", cnt, el);
        MPI_Get_count(&st, c5, &cnt);
        CHECK(cnt == 6, "as c5: count %d", cnt);
        /* 7 ints received as c5: count undefined, 7 elements */
        CHECK_OK(MPI_Isend(a, 7, MPI_INT, peer, 3, MPI_COMM_WORLD, &r));
        CHECK_OK(MPI_Recv(b, 4, c5, peer, 3, MPI_COMM_WORLD, &st));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        MPI_Get_count(&st, c5, &cnt);
        MPI_Get_elements(&st, c5, &el);
        CHECK(cnt == MPI_UNDEFINED && el == 7, "7 ints as c5: count %d (want MPI_UNDEFINED) elements %d", cnt, el);
        MPI_Count elx = -1;
        MPI_Get_elements_x(&st, c5, &elx);
        CHECK(elx == 7, "Get_elements_x %lld", (long long)elx);
        /* zero-size type */
        CHECK_OK(MPI_Isend(a, 3, c0, peer, 4, MPI_COMM_WORLD, &r));
        CHECK_OK(MPI_Recv(b, 3, c0, peer, 4, MPI_COMM_WORLD, &st));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(cnt == 0, "contiguous(0) message has %d ints", cnt);
        /* Type_free while a receive using the type is pending */
        MPI_Datatype tmp;
        CHECK_OK(MPI_Type_contiguous(4, MPI_INT, &tmp));
        CHECK_OK(MPI_Type_commit(&tmp));
        MPI_Request rr;
        memset(b, 0, sizeof b);
        CHECK_OK(MPI_Irecv(b, 2, tmp, peer, 5, MPI_COMM_WORLD, &rr));
        CHECK_OK(MPI_Type_free(&tmp));
        CHECK(tmp == MPI_DATATYPE_NULL, "Type_free did not set MPI_DATATYPE_NULL");
        CHECK_OK(MPI_Send(a, 8, MPI_INT, peer, 5, MPI_COMM_WORLD));
        CHECK_OK(MPI_Wait(&rr, &st));
        CHECK(b[7] == peer * 1000 + 7, "receive with freed type got %d", b[7]);
        /* rendezvous-sized derived type: 2 x 200 KB */
        double *d = malloc(2 * 25000 * sizeof(double)), *e = malloc(2 * 25000 * sizeof(double));
        for (int i = 0; i < 50000; i++) d[i] = rank + i * 0.25;
        CHECK_OK(MPI_Isend(d, 2, big, peer, 6, MPI_COMM_WORLD, &r));
        CHECK_OK(MPI_Recv(e, 50000, MPI_DOUBLE, peer, 6, MPI_COMM_WORLD, &st));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        int okd = 1;
        for (int i = 0; i < 50000; i++) okd &= e[i] == peer + i * 0.25;
        CHECK(okd, "large contiguous payload wrong");
        MPI_Get_elements(&st, big, &el);
        MPI_Get_count(&st, big, &cnt);
        CHECK(cnt == 2 && el == 50000, "large: count %d elements %d", cnt, el);
        free(d); free(e);
    }
    CHECK_OK(MPI_Type_free(&c15));
    CHECK_OK(MPI_Type_free(&c5)); /* c15 was built from c5: freeing order is free */
    CHECK_OK(MPI_Type_free(&c0));
    CHECK_OK(MPI_Type_free(&big));
    CHECK(c5 == MPI_DATATYPE_NULL && c15 == MPI_DATATYPE_NULL, "Type_free handles not nulled");
    return fy_finish();
}
