/* Error classes and strings: every standard class is its own class, has a
 * non-empty Error_string whose length is reported correctly, distinct classes
 * have distinct strings; MPI_SUCCESS < classes <= MPI_ERR_LASTCODE; the
 * MPI_LASTUSEDCODE attribute is at least MPI_ERR_LASTCODE. */
#include "fytest.h"

#define C(x) {x, #x}
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fy_init("env_errclass");
    struct { int c; const char *n; } cl[] = {
        C(MPI_SUCCESS), C(MPI_ERR_BUFFER), C(MPI_ERR_COUNT), C(MPI_ERR_TYPE), C(MPI_ERR_TAG),
        C(MPI_ERR_COMM), C(MPI_ERR_RANK), C(MPI_ERR_REQUEST), C(MPI_ERR_ROOT), C(MPI_ERR_GROUP),
        C(MPI_ERR_OP), C(MPI_ERR_TOPOLOGY), C(MPI_ERR_DIMS), C(MPI_ERR_ARG), C(MPI_ERR_UNKNOWN),
        C(MPI_ERR_TRUNCATE), C(MPI_ERR_OTHER), C(MPI_ERR_INTERN), C(MPI_ERR_IN_STATUS),
        C(MPI_ERR_PENDING), C(MPI_ERR_ACCESS), C(MPI_ERR_AMODE), C(MPI_ERR_ASSERT),
        C(MPI_ERR_BAD_FILE), C(MPI_ERR_BASE), C(MPI_ERR_CONVERSION), C(MPI_ERR_DISP),
        C(MPI_ERR_DUP_DATAREP), C(MPI_ERR_FILE_EXISTS), C(MPI_ERR_FILE_IN_USE), C(MPI_ERR_FILE),
        C(MPI_ERR_INFO_KEY), C(MPI_ERR_INFO_NOKEY), C(MPI_ERR_INFO_VALUE), C(MPI_ERR_INFO),
        C(MPI_ERR_IO), C(MPI_ERR_KEYVAL), C(MPI_ERR_LOCKTYPE), C(MPI_ERR_NAME), C(MPI_ERR_NO_MEM),
        C(MPI_ERR_NOT_SAME), C(MPI_ERR_NO_SPACE), C(MPI_ERR_NO_SUCH_FILE), C(MPI_ERR_PORT),
        C(MPI_ERR_QUOTA), C(MPI_ERR_READ_ONLY), C(MPI_ERR_RMA_CONFLICT), C(MPI_ERR_RMA_SYNC),
        C(MPI_ERR_SERVICE), C(MPI_ERR_SIZE), C(MPI_ERR_SPAWN), C(MPI_ERR_UNSUPPORTED_DATAREP),
        C(MPI_ERR_UNSUPPORTED_OPERATION), C(MPI_ERR_WIN), C(MPI_ERR_RMA_RANGE), C(MPI_ERR_RMA_ATTACH),
        C(MPI_ERR_RMA_SHARED), C(MPI_ERR_RMA_FLAVOR),
#if MPI_VERSION >= 4
        C(MPI_ERR_SESSION), C(MPI_ERR_PROC_ABORTED), C(MPI_ERR_VALUE_TOO_LARGE),
#endif
    };
    int n = (int)(sizeof cl / sizeof cl[0]);
    static char str[80][MPI_MAX_ERROR_STRING];
    for (int i = 0; i < n; i++) {
        int c = -1, len = -1;
        CHECK_OK(MPI_Error_class(cl[i].c, &c));
        CHECK(c == cl[i].c, "Error_class(%s) = %d", cl[i].n, c);
        if (i) CHECK(cl[i].c > MPI_SUCCESS && cl[i].c <= MPI_ERR_LASTCODE, "%s = %d outside (0, LASTCODE]", cl[i].n, cl[i].c);
        CHECK_OK(MPI_Error_string(cl[i].c, str[i], &len));
        CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (size_t)len == strlen(str[i]), "Error_string(%s) length %d",
              cl[i].n, len);
        for (int j = 0; j < i; j++)
            if (cl[i].c != cl[j].c)
                CHECK(strcmp(str[i], str[j]) != 0, "%s and %s share the string \"%s\"", cl[i].n, cl[j].n, str[i]);
    }
    int *last, flag = 0;
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE flag %d value %d", flag, flag ? *last : 0);
    return fy_finish();
}
