! Strided array sections as mpi_f08 choice buffers: a buffer with its own
! count and datatype accesses the section itself (sends, receives,
! nonblocking and persistent ones, MPI_Bcast, an RMA origin, file I/O,
! MPI_Pack), as if it had been copied to a contiguous buffer; a collective
! whose count is shared or per process copies it, a nonblocking or
! persistent one keeping the copy with its request until a wait or test
! sees it complete; a section Ferry cannot pass (window memory, a datatype
! wider than an element, a count beyond the section) is refused with a
! message through the communicator's error handler, also when ierror is
! absent. 2 or more ranks.
module f08_sections_cb
  use mpi_f08
  implicit none
  integer :: errs_seen = 0, last_code = MPI_SUCCESS
contains
  subroutine errfn(comm, code)
    type(MPI_Comm) :: comm
    integer :: code
    errs_seen = errs_seen + 1
    last_code = code
  end subroutine
end module

program f08_sections
  use mpi_f08
  use f08_sections_cb
  implicit none
  integer :: rank, nproc, right, left, i, j, ierr, cls, n, pos
  ! (ASYNCHRONOUS: nonblocking operations write them behind the compiler's
  ! back, MPI 4.1 19.1.17; without it the persistent loop below reads a
  ! value the compiler kept from before MPI_Start)
  integer, asynchronous :: a(100), b(100)
  integer :: m(6, 8), row(8), expect(100), big(2000), bigr(2000)
  integer, asynchronous :: win_buf(20)
  complex :: z(10)
  real :: zr(20)
  character(len=64) :: packed
  character(len=MPI_MAX_ERROR_STRING) :: msg
  integer(kind=MPI_ADDRESS_KIND) :: ad1, ad2
  integer(kind=MPI_COUNT_KIND) :: nc
  type(MPI_Request) :: reqs(2)
  type(MPI_Status) :: st
  type(MPI_Comm) :: dup, cart
  type(MPI_Errhandler) :: eh
  type(MPI_Win) :: win
  type(MPI_File) :: fh
  integer(kind=MPI_OFFSET_KIND) :: off
  character(len=64) :: fname
  logical :: ok, flag
  type(MPI_Request) :: preq

  call MPI_Init()
  call fyt_init('f08_sections')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)

  ! a strided send into a contiguous receive: the odd elements
  a = [(rank * 1000 + i, i = 1, 100)]
  b = -1
  call MPI_Sendrecv(a(1:100:2), 50, MPI_INTEGER, right, 1, b, 50, MPI_INTEGER, left, 1, &
                    MPI_COMM_WORLD, st, ierr)
  call fyt_ok(ierr, 'Sendrecv of a strided section')
  call fyt_check(all(b(1:50) == [(left * 1000 + i, i = 1, 100, 2)]) .and. all(b(51:) == -1), &
                 'strided send delivers the section in order')
  call MPI_Get_count(st, MPI_INTEGER, n)
  call fyt_check(n == 50, 'Get_count after a strided send')

  ! a large section (4000 bytes: described by a datatype; the small ones of
  ! blocking calls are copied) and a short message into a section (the
  ! elements it does not reach keep their values)
  big = [(rank * 10000 + i, i = 1, 2000)]
  bigr = -1
  call MPI_Sendrecv(big(2:2000:2), 1000, MPI_INTEGER, right, 9, bigr(1:2000:2), 1000, MPI_INTEGER, left, 9, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call fyt_check(ierr == MPI_SUCCESS .and. all(bigr(1:2000:2) == [(left * 10000 + i, i = 2, 2000, 2)]) .and. &
                 all(bigr(2:2000:2) == -1), 'a large strided Sendrecv')
  b = -1
  call MPI_Sendrecv(a, 3, MPI_INTEGER, right, 10, b(1:20:2), 10, MPI_INTEGER, left, 10, &
                    MPI_COMM_WORLD, st, ierr)
  call MPI_Get_count(st, MPI_INTEGER, n)
  call fyt_check(ierr == MPI_SUCCESS .and. n == 3 .and. all(b(1:5:2) == [(left * 1000 + i, i = 1, 3)]) .and. &
                 all(b(7:) == -1) .and. b(2) == -1, 'a short message into a section')

  ! a nonblocking strided receive (every third element, backwards) and a
  ! strided send of fewer items than the section has
  b = -1
  call MPI_Irecv(b(100:1:-3), 20, MPI_INTEGER, left, 2, MPI_COMM_WORLD, reqs(1), ierr)
  call fyt_ok(ierr, 'Irecv into a negative-stride section')
  call MPI_Isend(a(2:100:2), 20, MPI_INTEGER, right, 2, MPI_COMM_WORLD, reqs(2), ierr)
  call fyt_ok(ierr, 'Isend of part of a section')
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  expect = -1
  expect(100:43:-3) = [(left * 1000 + i, i = 2, 40, 2)]
  call fyt_check(all(b == expect), 'negative-stride receive, partial count')

  ! a row of a column-major matrix (stride 6) and a 2-D section
  m = reshape([(rank * 100 + i, i = 1, 48)], [6, 8])
  row = -1
  call MPI_Sendrecv(m(3, :), 8, MPI_INTEGER, right, 3, row, 8, MPI_INTEGER, left, 3, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call fyt_check(ierr == MPI_SUCCESS .and. all(row == [(left * 100 + 3 + 6 * j, j = 0, 7)]), &
                 'a matrix row (stride of a column)')
  m = reshape([(rank * 100 + i, i = 1, 48)], [6, 8])
  call MPI_Bcast(m(1:5:2, 2:8:3), 9, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  ok = ierr == MPI_SUCCESS
  do j = 2, 8, 3
    do i = 1, 5, 2
      ok = ok .and. m(i, j) == i + 6 * (j - 1)
    end do
  end do
  ok = ok .and. m(2, 2) == rank * 100 + 8 .and. m(1, 3) == rank * 100 + 13
  call fyt_check(ok, 'Bcast of a 2-D section, the rest untouched')

  ! a COMPLEX section sent as REALs: 3 REALs = one and a half elements
  z = [(cmplx(rank * 10 + i, -i), i = 1, 10)]
  zr = 0
  call MPI_Sendrecv(z(1:10:3), 3, MPI_REAL, right, 4, zr, 3, MPI_REAL, left, 4, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call fyt_check(ierr == MPI_SUCCESS .and. zr(1) == left * 10 + 1 .and. zr(2) == -1 .and. &
                 zr(3) == left * 10 + 4 .and. zr(4) == 0, 'COMPLEX section as REALs, half an element')

  ! a persistent send reads the section at each start
  call MPI_Send_init(a(1:9:4), 3, MPI_INTEGER, right, 5, MPI_COMM_WORLD, reqs(1), ierr)
  call fyt_ok(ierr, 'Send_init of a section')
  do j = 1, 2
    a(1:9:4) = [j, j * 2, j * 3]
    call MPI_Start(reqs(1))
    b = -1
    call MPI_Recv(b, 3, MPI_INTEGER, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
    call fyt_check(all(b(1:3) == [j, j * 2, j * 3]), 'persistent send sees the values at MPI_Start')
  end do
  call MPI_Request_free(reqs(1))

  a = [(rank * 1000 + i, i = 1, 100)]
  ! an RMA origin: Put from a section into the right neighbour's window
  win_buf = -1
  call MPI_Win_create(win_buf, 20_MPI_ADDRESS_KIND * 4, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call fyt_ok(ierr, 'Win_create')
  call MPI_Win_fence(0, win)
  call MPI_Put(a(10:1:-2), 5, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, 5, MPI_INTEGER, win, ierr)
  call fyt_ok(ierr, 'Put from a section')
  call MPI_Win_fence(0, win)
  call fyt_check(all(win_buf(1:5) == [(left * 1000 + i, i = 10, 1, -2)]) .and. win_buf(6) == -1, &
                 'Put from a negative-stride section')
  ! one-item RMA: MPI_Fetch_and_op takes a section's first element
  call MPI_Barrier(MPI_COMM_WORLD)   ! (every rank has checked its window)
  b = -1
  call MPI_Fetch_and_op(a(3:9:3), b(2:8:3), MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, MPI_SUM, win, ierr)
  call fyt_ok(ierr, 'Fetch_and_op with sections')
  call MPI_Win_fence(0, win)
  call fyt_check(b(2) == rank * 1000 + 10 .and. b(3) == -1 .and. b(5) == -1 .and. &
                 win_buf(1) == 2 * left * 1000 + 13 .and. win_buf(2) == left * 1000 + 8, &
                 'Fetch_and_op from and into sections')
  call MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN)
  call MPI_Fetch_and_op(a(3:9:3), b(2:8:3), MPI_DOUBLE_PRECISION, right, 0_MPI_ADDRESS_KIND, MPI_SUM, &
                        win, ierr)
  call MPI_Error_class(ierr, cls)
  call fyt_check(cls == MPI_ERR_TYPE, 'Fetch_and_op of a datatype wider than an element refused')
  call MPI_Win_fence(0, win)
  call MPI_Win_free(win)

  ! file I/O: write a section at this rank's offset, read it into another
  write (fname, '(a,i0,a)') 'f08_sections_np', nproc, '.dat'
  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_RDWR + MPI_MODE_DELETE_ON_CLOSE, &
                     MPI_INFO_NULL, fh, ierr)
  call fyt_ok(ierr, 'File_open')
  off = rank * 12
  call MPI_File_write_at(fh, off, a(1:9:4), 3, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call fyt_ok(ierr, 'File_write_at of a section')
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_File_sync(fh, ierr)
  b = -1
  off = left * 12
  call MPI_File_read_at(fh, off, b(2:6:2), 3, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call fyt_check(ierr == MPI_SUCCESS .and. all(b(2:6:2) == [(left * 1000 + i, i = 1, 9, 4)]) .and. &
                 b(3) == -1, 'File_read_at into a section')
  call MPI_File_close(fh, ierr)

  ! MPI_Pack from a section; MPI_Get_address of one is its first element's
  pos = 0
  call MPI_Pack(a(1:7:3), 3, MPI_INTEGER, packed, len(packed), pos, MPI_COMM_WORLD, ierr)
  call fyt_check(ierr == MPI_SUCCESS .and. pos == 12, 'Pack from a section')
  pos = 0
  b = -1
  call MPI_Unpack(packed, len(packed), pos, b(1:9:4), 3, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call fyt_check(ierr == MPI_SUCCESS .and. all(b(1:9:4) == a(1:7:3)) .and. b(2) == -1, &
                 'Unpack into a section')
  call MPI_Get_address(a(5:9:2), ad1)
  call MPI_Get_address(a(5), ad2)
  call fyt_check(ad1 == ad2, 'Get_address of a section')

  ! large-count form
  nc = 4
  b = -1
  call MPI_Sendrecv(a(1:8:2), nc, MPI_INTEGER, right, 6, b, nc, MPI_INTEGER, left, 6, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call fyt_check(ierr == MPI_SUCCESS .and. all(b(1:4) == [(left * 1000 + i, i = 1, 8, 2)]), &
                 'Sendrecv_c of a section')

  ! blocking collectives whose count is shared or per process: copied
  a = [(rank * 1000 + i, i = 1, 100)]
  b = -1
  call MPI_Allreduce(a(1:10:2), b(1:10:2), 5, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call fyt_check(ierr == MPI_SUCCESS .and. &
                 all(b(1:10:2) == [(nproc * (nproc - 1) / 2 * 1000 + nproc * i, i = 1, 10, 2)]) .and. &
                 all(b(2:10:2) == -1), 'Allreduce from and into sections')
  b = -1
  call MPI_Allgather(a(1:6:5), 2, MPI_INTEGER, b(1:2 * 2 * nproc:2), 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  ok = ierr == MPI_SUCCESS
  do i = 0, nproc - 1
    ok = ok .and. b(4 * i + 1) == i * 1000 + 1 .and. b(4 * i + 3) == i * 1000 + 6 .and. b(4 * i + 2) == -1
  end do
  call fyt_check(ok, 'Allgather from and into sections (a count per process)')
  m = reshape([(rank * 100 + i, i = 1, 48)], [6, 8])
  call MPI_Allreduce(MPI_IN_PLACE, m(2, 1:8:2), 4, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call fyt_check(ierr == MPI_SUCCESS .and. all(m(2, 1:8:2) == [((nproc - 1) * 100 + 2 + 6 * j, j = 0, 6, 2)]) &
                 .and. m(2, 2) == rank * 100 + 8, 'Allreduce in place on a matrix row')

  ! a neighbourhood collective over a ring: each rank gets its left and
  ! right neighbours' two items, into a section
  call MPI_Cart_create(MPI_COMM_WORLD, 1, [nproc], [.true.], .false., cart)
  b = -1
  call MPI_Neighbor_allgather(a(1:3:2), 2, MPI_INTEGER, b(1:8:2), 2, MPI_INTEGER, cart, ierr)
  call fyt_check(ierr == MPI_SUCCESS .and. all(b(1:8:2) == [left * 1000 + 1, left * 1000 + 3, &
                 right * 1000 + 1, right * 1000 + 3]) .and. b(2) == -1, 'Neighbor_allgather into a section')
  call MPI_Comm_free(cart)

  ! nonblocking collectives: the copy stays with the request and comes
  ! back into the section when a wait or test completes it
  a = [(rank * 1000 + i, i = 1, 100)]
  b = -1
  call MPI_Iallreduce(a(1:10:2), b(1:10:2), 5, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(1), ierr)
  call fyt_ok(ierr, 'Iallreduce of sections started')
  a(1:10) = -7   ! (the operation has its copy)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
  call fyt_check(ierr == MPI_SUCCESS .and. &
                 all(b(1:10:2) == [(nproc * (nproc - 1) / 2 * 1000 + nproc * i, i = 1, 10, 2)]) .and. &
                 all(b(2:10:2) == -1), 'Iallreduce from and into sections, MPI_Wait')
  a = [(rank * 1000 + i, i = 1, 100)]
  b = -1
  call MPI_Ialltoall(a(1:4 * nproc:2), 2, MPI_INTEGER, b(1:4 * nproc:2), 2, MPI_INTEGER, MPI_COMM_WORLD, &
                     reqs(1), ierr)
  call MPI_Ibarrier(MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  ok = ierr == MPI_SUCCESS
  do i = 0, nproc - 1
    ok = ok .and. b(4 * i + 1) == i * 1000 + 4 * rank + 1 .and. b(4 * i + 3) == i * 1000 + 4 * rank + 3 &
         .and. b(4 * i + 2) == -1
  end do
  call fyt_check(ok, 'Ialltoall from and into sections, MPI_Waitall')
  b = -1
  call MPI_Igather(a(2:4:2), 2, MPI_INTEGER, b(1:4 * nproc:2), 2, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(1), ierr)
  flag = .false.
  do while (.not. flag .and. ierr == MPI_SUCCESS)
    call MPI_Test(reqs(1), flag, MPI_STATUS_IGNORE, ierr)
  end do
  ok = ierr == MPI_SUCCESS
  do i = 0, nproc - 1
    if (rank == 0) ok = ok .and. b(4 * i + 1) == i * 1000 + 2 .and. b(4 * i + 3) == i * 1000 + 4 .and. &
                        b(4 * i + 2) == -1
  end do
  if (rank /= 0) ok = ok .and. all(b == -1)
  call fyt_check(ok, 'Igather into a section, MPI_Test')
  b = -1
  nc = 2
  call MPI_Iscan(a(1:3:2), b(2:4:2), nc, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Waitany(1, reqs, j, MPI_STATUS_IGNORE, ierr)
  call fyt_check(ierr == MPI_SUCCESS .and. j == 1 .and. b(2) == rank * (rank + 1) / 2 * 1000 + (rank + 1) &
                 .and. b(4) == rank * (rank + 1) / 2 * 1000 + 3 * (rank + 1) .and. b(3) == -1, &
                 'Iscan_c into a section, MPI_Waitany')

  ! a persistent collective reads the section at each MPI_Start
  call MPI_Allreduce_init(a(1:6:5), b(1:4:3), 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &
                          preq, ierr)
  ok = ierr == MPI_SUCCESS
  do j = 1, 3
    a(1) = j * 10 + rank
    a(6) = j * 100 + rank
    b = -1
    if (j == 1) then
      call MPI_Start(preq, ierr)
      call MPI_Wait(preq, MPI_STATUS_IGNORE, ierr)
    else if (j == 2) then
      reqs(1) = preq   ! (a copy of the handle: the same request)
      call MPI_Startall(1, reqs, ierr)
      call MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE, ierr)
    else
      call MPI_Start(preq, ierr)
      flag = .false.
      do while (.not. flag .and. ierr == MPI_SUCCESS)
        call MPI_Request_get_status(preq, flag, MPI_STATUS_IGNORE, ierr)
      end do
    end if
    ok = ok .and. ierr == MPI_SUCCESS .and. b(1) == nproc * j * 10 + nproc * (nproc - 1) / 2 .and. &
         b(4) == nproc * j * 100 + nproc * (nproc - 1) / 2 .and. b(2) == -1 .and. b(3) == -1
  end do
  ! complete once the status said so: the wait copies nothing again
  b(1) = -5
  call MPI_Wait(preq, MPI_STATUS_IGNORE, ierr)
  ok = ok .and. b(1) == -5
  call MPI_Request_free(preq, ierr)
  call fyt_check(ok .and. ierr == MPI_SUCCESS .and. preq == MPI_REQUEST_NULL, &
                 'Allreduce_init from and into sections: Start, Startall, Request_get_status')

  call fyt_check(MPI_SUBARRAYS_SUPPORTED, 'MPI_SUBARRAYS_SUPPORTED is .TRUE. in mpi_f08')

  ! refusals, with MPI_ERRORS_RETURN (fyt_init set it on MPI_COMM_WORLD)
  call MPI_Win_create(win_buf(1:20:2), 40_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Error_class(ierr, cls)
  call MPI_Error_string(ierr, msg, n)
  call fyt_check(cls == MPI_ERR_BUFFER .and. index(msg, 'MPI_Win_create') > 0 .and. &
                 index(msg, 'non-contiguous') > 0, 'Win_create of a section refused with a message')
  call MPI_Send(a(1:10:2), 5, MPI_DOUBLE_PRECISION, right, 7, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  call fyt_check(cls == MPI_ERR_TYPE, 'a datatype wider than an element refused')
  call MPI_Send(a(1:10:2), 6, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  call MPI_Error_string(ierr, msg, n)
  call fyt_check(cls == MPI_ERR_COUNT .and. index(msg, 'count = 6') > 0, 'a count beyond the section refused')
  call MPI_Send(a(1:10:2), 0, MPI_INTEGER, right, 8, MPI_COMM_WORLD, ierr)
  call MPI_Recv(b, 0, MPI_INTEGER, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call fyt_ok(ierr, 'count 0 with a section')

  ! without ierror, a refusal still reaches the communicator's handler
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_create_errhandler(errfn, eh)
  call MPI_Comm_set_errhandler(dup, eh)
  call MPI_Win_create(win_buf(1:20:2), 40_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, dup, win)
  call MPI_Error_class(last_code, cls)
  call fyt_check(errs_seen == 1 .and. cls == MPI_ERR_BUFFER, 'refusal without ierror calls the handler')
  call MPI_Errhandler_free(eh)
  call MPI_Comm_free(dup)
  call fyt_finish()
end program
