! Point-to-point through mpi_f08: TYPE(MPI_Comm) etc., TYPE(MPI_Status),
! optional ierror, handle comparison, assumed-type buffers (scalars and
! arrays), MPI_STATUS(ES)_IGNORE, an attribute copy callback and an error
! handler with the mpi_f08 interfaces. 2 or more ranks.
module f08_pt2pt_cb
  use mpi_f08
  implicit none
  integer :: copies = 0, errs_seen = 0
contains
  subroutine copyfn(oldcomm, keyval, extra, valin, valout, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    copies = copies + 1
    valout = valin * 2 + extra
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine
  subroutine errfn(comm, code)
    type(MPI_Comm) :: comm
    integer :: code
    errs_seen = errs_seen + 1
  end subroutine
end module

program f08_pt2pt
  use mpi_f08
  use f08_pt2pt_cb
  implicit none
  integer :: rank, nproc, right, left, i, n, ierr, key
  real(kind=8) :: x, y
  integer :: a(100), b(100)
  type(MPI_Status) :: st, sts(2)
  type(MPI_Request) :: reqs(2)
  type(MPI_Comm) :: dup, dup2
  type(MPI_Errhandler) :: eh
  integer(kind=MPI_ADDRESS_KIND) :: val
  logical :: flag, avail
  character(len=MPI_MAX_OBJECT_NAME) :: nm

  call MPI_Init()
  call fyt_init('fortran_f08_pt2pt')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)

  ! scalar buffers
  x = rank + 0.5d0
  call MPI_Sendrecv(x, 1, MPI_REAL8, right, 1, y, 1, MPI_REAL8, left, 1, MPI_COMM_WORLD, st, ierr)
  call fyt_ok(ierr, 'MPI_Sendrecv')
  call fyt_check(y == left + 0.5d0, 'scalar sendrecv')
  call fyt_check(st%MPI_SOURCE == left .and. st%MPI_TAG == 1, 'TYPE(MPI_Status) fields')
  call MPI_Get_count(st, MPI_REAL8, n)
  call fyt_check(n == 1, 'get_count')

  ! arrays, array sections (contiguous), nonblocking
  a = [(rank * 1000 + i, i = 1, 100)]
  b = -1
  call MPI_Irecv(b(11:60), 50, MPI_INTEGER, left, 2, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(a(51:100), 50, MPI_INTEGER, right, 2, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, sts)
  call fyt_check(all(b(11:60) == [(left * 1000 + i, i = 51, 100)]) .and. b(10) == -1 .and. b(61) == -1, &
                 'array sections')
  call fyt_check(reqs(1) == MPI_REQUEST_NULL .and. sts(1)%MPI_SOURCE == left, 'waitall')
  call MPI_Isend(a, 100, MPI_INTEGER, right, 3, MPI_COMM_WORLD, reqs(1))
  call MPI_Recv(b, 100, MPI_INTEGER, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE)
  call fyt_check(b(100) == left * 1000 + 100, 'STATUS(ES)_IGNORE')

  ! a strided section is sent as a section (f08_sections.f90 checks the data)
  call MPI_Send(a(1:100:2), 50, MPI_INTEGER, MPI_PROC_NULL, 4, MPI_COMM_WORLD, ierr)
  call fyt_check(ierr == MPI_SUCCESS, 'non-contiguous section accepted')

  ! handles
  call fyt_check(MPI_COMM_WORLD /= MPI_COMM_SELF .and. MPI_COMM_WORLD == MPI_COMM_WORLD, 'handle ==, /=')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_set_name(dup, 'f08 dup')
  call MPI_Comm_get_name(dup, nm, n)
  call fyt_check(nm == 'f08 dup' .and. n == 7, 'names')
  call MPI_Comm_create_keyval(copyfn, MPI_COMM_NULL_DELETE_FN, key, 3_MPI_ADDRESS_KIND, ierr)
  call fyt_avail(ierr, 'MPI_Comm_create_keyval', avail)
  if (avail) then
    call MPI_Comm_set_attr(dup, key, 20_MPI_ADDRESS_KIND)
    call MPI_Comm_dup(dup, dup2)
    call MPI_Comm_get_attr(dup2, key, val, flag)
    call fyt_check(flag .and. val == 43 .and. copies == 1, 'f08 copy callback')
    call MPI_Comm_free_keyval(key)
  else
    call MPI_Comm_dup(dup, dup2)
  end if
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag)
  call fyt_check(flag .and. val >= 32767, 'MPI_TAG_UB')
  call MPI_Comm_create_errhandler(errfn, eh, ierr)
  call fyt_avail(ierr, 'MPI_Comm_create_errhandler', avail)
  if (avail) then
    call MPI_Comm_set_errhandler(dup2, eh)
    call MPI_Comm_call_errhandler(dup2, MPI_ERR_OTHER)
    call fyt_check(errs_seen == 1, 'f08 error handler')
    call MPI_Errhandler_free(eh)
  end if
  call MPI_Comm_free(dup2)
  call MPI_Comm_free(dup)
  call fyt_check(dup == MPI_COMM_NULL, 'comm_free')
  call fyt_finish()
end program
