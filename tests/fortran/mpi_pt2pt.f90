! Point-to-point through module mpi: statuses, MPI_STATUS(ES)_IGNORE, MPI_SIZEOF,
! MPI_Test's LOGICAL, persistent requests, MPI_PROC_NULL, an error handler
! and an attribute delete callback written in Fortran. 2 or more ranks.
module mpi_pt2pt_cb
  use mpi
  implicit none
  integer :: deletes = 0, errs_seen = 0
contains
  subroutine delfn(comm, keyval, val, extra, ierr)
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deletes = deletes + int(val + extra)
    ierr = MPI_SUCCESS
  end subroutine
  subroutine errfn(comm, code)
    integer :: comm, code
    errs_seen = errs_seen + 1
  end subroutine
end module

program mpi_pt2pt
  use mpi
  use mpi_pt2pt_cb
  implicit none
  integer :: ierr, rank, nproc, right, left, req, key, dup, eh, i, info, vlen
  character(len=24) :: sval
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2), reqs(2)
  double precision :: d(8), r(8)
  integer(kind=MPI_ADDRESS_KIND) :: val
  logical :: flag, avail

  call MPI_Init(ierr)
  call fyt_init('fortran_mpi_pt2pt')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)
  d = [(rank + i / 10d0, i = 1, 8)]

  call MPI_Irecv(r, 8, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(d, 8, MPI_DOUBLE_PRECISION, right, 11, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, sts, ierr)
  call fyt_ok(ierr, 'MPI_Waitall')
  call fyt_check(sts(MPI_SOURCE, 1) == left .and. sts(MPI_TAG, 1) == 11, 'waitall statuses')
  call fyt_check(abs(r(8) - (left + 0.8d0)) < 1d-12, 'double precision data')

  ! persistent requests and MPI_Test's flag
  call MPI_Recv_init(r, 8, MPI_DOUBLE_PRECISION, left, 12, MPI_COMM_WORLD, reqs(1), ierr)
  call fyt_ok(ierr, 'MPI_Recv_init')
  call MPI_Send_init(d, 8, MPI_DOUBLE_PRECISION, right, 12, MPI_COMM_WORLD, reqs(2), ierr)
  do i = 1, 3
    call MPI_Startall(2, reqs, ierr)
    call fyt_ok(ierr, 'MPI_Startall')
    flag = .false.
    do while (.not. flag)
      call MPI_Test(reqs(1), flag, st, ierr)
    end do
    call fyt_check(st(MPI_SOURCE) == left, 'test status')
    call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)
  end do
  call MPI_Request_free(reqs(1), ierr)
  call MPI_Request_free(reqs(2), ierr)
  call fyt_check(reqs(1) == MPI_REQUEST_NULL, 'request_free')

  ! CHARACTER arguments through MPI_Info: trailing blanks trimmed on the way
  ! in, values blank-padded on the way out, unchanged when the key is absent
  call MPI_Info_create(info, ierr)
  call fyt_avail(ierr, 'MPI_Info_create', avail)
  if (avail) then
    call MPI_Info_set(info, 'ferry_key   ', 'some value  ', ierr)
    call fyt_ok(ierr, 'MPI_Info_set')
    call MPI_Info_get_valuelen(info, 'ferry_key', vlen, flag, ierr)
    call fyt_check(flag .and. vlen == 10, 'info valuelen (blanks trimmed)')
    sval = 'xxxxxxxxxxxxxxxxxxxxxxxx'
    call MPI_Info_get(info, 'ferry_key', len(sval), sval, flag, ierr)
    call fyt_check(flag .and. sval == 'some value', 'info value blank padded')
    sval = 'unchanged'
    call MPI_Info_get(info, 'absent', len(sval), sval, flag, ierr)
    call fyt_check(.not. flag .and. sval == 'unchanged', 'absent key leaves the value')
    call MPI_Info_get_nthkey(info, 0, sval, ierr)
    call fyt_check(sval == 'ferry_key', 'nthkey')
    ! leading blanks go too; MPI_Info_get_string counts characters, no NUL
    call MPI_Info_set(info, '  lead', '  abc', ierr)
    vlen = 2
    sval = 'unchanged'
    call MPI_Info_get_string(info, 'lead', vlen, sval, flag, ierr)
    call fyt_check(flag .and. vlen == 3 .and. sval == 'ab', 'Info_get_string: 2 characters, length 3')
    vlen = 0
    sval = 'unchanged'
    call MPI_Info_get_string(info, 'lead', vlen, sval, flag, ierr)
    call fyt_check(flag .and. vlen == 3 .and. sval == 'unchanged', 'Info_get_string with length 0')
    vlen = len(sval)
    call MPI_Info_get_string(info, 'lead', vlen, sval, flag, ierr)
    call fyt_check(flag .and. vlen == 3 .and. sval == 'abc', 'Info_get_string of a whole value')
    call MPI_Info_free(info, ierr)
    call fyt_check(info == MPI_INFO_NULL, 'info_free')
  end if

  ! MPI_SIZEOF (module mpi's generic)
  call MPI_Sizeof(d, i, ierr)
  call fyt_check(i == 8 .and. ierr == MPI_SUCCESS, 'MPI_Sizeof of a double precision array')
  call MPI_Sizeof(rank, i, ierr)
  call fyt_check(i == 4, 'MPI_Sizeof of an integer')

  ! MPI_PROC_NULL: empty status
  call MPI_Recv(r, 8, MPI_DOUBLE_PRECISION, MPI_PROC_NULL, 0, MPI_COMM_WORLD, st, ierr)
  call fyt_check(st(MPI_SOURCE) == MPI_PROC_NULL .and. st(MPI_TAG) == MPI_ANY_TAG, 'proc_null status')
  call MPI_Sendrecv_replace(d, 8, MPI_DOUBLE_PRECISION, right, 13, left, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call fyt_ok(ierr, 'MPI_Sendrecv_replace')
  call fyt_check(abs(d(1) - (left + 0.1d0)) < 1d-12, 'sendrecv_replace')

  ! attribute delete callback and error handler in Fortran
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, delfn, key, 5_MPI_ADDRESS_KIND, ierr)
  call fyt_avail(ierr, 'MPI_Comm_create_keyval', avail)
  if (avail) then
  val = 10
  call MPI_Comm_set_attr(dup, key, val, ierr)
  call MPI_Comm_delete_attr(dup, key, ierr)
  call fyt_check(deletes == 15, 'delete callback saw value and extra state')
  call MPI_Comm_set_attr(dup, key, val, ierr)
  call MPI_Comm_free(dup, ierr)
  call fyt_check(deletes == 30, 'delete callback on comm_free')
  call MPI_Comm_free_keyval(key, ierr)
  else
    call MPI_Comm_free(dup, ierr)
  end if
  call MPI_Comm_create_errhandler(errfn, eh, ierr)
  call fyt_avail(ierr, 'MPI_Comm_create_errhandler', avail)
  if (avail) then
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, eh, ierr)
  call MPI_Send(d, 1, MPI_DOUBLE_PRECISION, 999, 0, MPI_COMM_SELF, ierr)
  call fyt_check(ierr /= MPI_SUCCESS .and. errs_seen == 1, 'Fortran handler ran on a bad rank')
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
  call MPI_Errhandler_free(eh, ierr)
  end if
  call fyt_finish()
end program
