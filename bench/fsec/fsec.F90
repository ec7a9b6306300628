! Strided array sections through mpi_f08: the one-way time of a ping-pong
! of n REALs sent from and received into a(1:2n:2) ("section"), against
! the same data in a contiguous array ("contig") and described by an
! MPI_Type_vector ("vector"), and of an MPI_Allreduce from a section
! ("allreduce-section") against a contiguous one ("allreduce-contig"),
! blocking and nonblocking (MPI_Iallreduce then MPI_Wait: "iallreduce-*",
! where Ferry keeps the section's copy with the request; Open MPI 4.1's
! mpi_f08 does not compile a section in a nonblocking call, so its build
! leaves that case out: FY_IMPL_OMPI, from bench/scripts/common.sh). A
! library passes a section as a datatype, copies it (the compiler's
! copy-in/out when the interface cannot take it), or refuses it. Two
! ranks. Prints '#' comments and one CSV table (case,count,bytes,us): the
! median over 7 repetitions of the mean time of one operation,
! microseconds.
!
!   fsec [quick]      (quick: 3 sizes, fewer iterations)
program fsec
  use mpi_f08
  implicit none
  integer, parameter :: nrep = 7
  integer :: rank, nproc, n, it, iters, k, rep, s, nsizes
  integer :: sizes(5) = [16, 1024, 16384, 65536, 262144]
  real, allocatable, asynchronous :: a(:), c(:), r(:)
  type(MPI_Datatype) :: vec
  double precision :: t0, t(nrep)
  character(len=20), parameter :: names(7) = [character(len=20) :: 'contig', 'section', 'vector', &
                                                'allreduce-contig', 'allreduce-section', &
                                                'iallreduce-contig', 'iallreduce-section']
  character(len=16) :: arg
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  if (nproc /= 2) then
    if (rank == 0) print '(a)', 'fsec: run it on 2 ranks'
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end if
  nsizes = 5
  arg = ''
  if (command_argument_count() > 0) call get_command_argument(1, arg)
  if (arg == 'quick') then
    sizes(1:3) = [16, 16384, 262144]
    nsizes = 3
  end if
  if (rank == 0) then
    print '(a)', '# fsec: REAL elements, one-way ping-pong time or one MPI_Allreduce, us'
    print '(a)', 'case,count,bytes,us'
  end if
  do s = 1, nsizes
    n = sizes(s)
    allocate(a(2 * n), c(n), r(n))
    a = 1.0
    c = 1.0
    call MPI_Type_vector(n, 1, 2, MPI_REAL, vec)
    call MPI_Type_commit(vec)
    iters = max(10, 400000 / n)
    if (arg == 'quick') iters = max(5, iters / 4)
    do k = 1, 7
#ifdef FY_IMPL_OMPI
      if (k == 7) cycle
#endif
      do rep = 1, nrep
        call MPI_Barrier(MPI_COMM_WORLD)
        t0 = MPI_Wtime()
        do it = 1, iters
          call one(k)
        end do
        t(rep) = (MPI_Wtime() - t0) / iters * 1d6
        if (k <= 3) t(rep) = t(rep) / 2
      end do
      call MPI_Bcast(t, nrep, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
      if (rank == 0) print '(a,",",i0,",",i0,",",f0.3)', trim(names(k)), n, 4 * n, median(t)
    end do
    call MPI_Type_free(vec)
    deallocate(a, c, r)
  end do
  call MPI_Finalize()
contains
  subroutine one(k)
    integer, intent(in) :: k
    integer :: peer
    type(MPI_Request) :: req
    peer = 1 - rank
    select case (k)
    case (1)
      if (rank == 0) then
        call MPI_Send(c, n, MPI_REAL, peer, 0, MPI_COMM_WORLD)
        call MPI_Recv(c, n, MPI_REAL, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      else
        call MPI_Recv(c, n, MPI_REAL, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        call MPI_Send(c, n, MPI_REAL, peer, 0, MPI_COMM_WORLD)
      end if
    case (2)
      if (rank == 0) then
        call MPI_Send(a(1:2 * n:2), n, MPI_REAL, peer, 0, MPI_COMM_WORLD)
        call MPI_Recv(a(1:2 * n:2), n, MPI_REAL, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      else
        call MPI_Recv(a(1:2 * n:2), n, MPI_REAL, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        call MPI_Send(a(1:2 * n:2), n, MPI_REAL, peer, 0, MPI_COMM_WORLD)
      end if
    case (3)
      if (rank == 0) then
        call MPI_Send(a, 1, vec, peer, 0, MPI_COMM_WORLD)
        call MPI_Recv(a, 1, vec, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      else
        call MPI_Recv(a, 1, vec, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        call MPI_Send(a, 1, vec, peer, 0, MPI_COMM_WORLD)
      end if
    case (4)
      call MPI_Allreduce(c, r, n, MPI_REAL, MPI_MAX, MPI_COMM_WORLD)
    case (5)
      call MPI_Allreduce(a(1:2 * n:2), r, n, MPI_REAL, MPI_MAX, MPI_COMM_WORLD)
    case (6)
      call MPI_Iallreduce(c, r, n, MPI_REAL, MPI_MAX, MPI_COMM_WORLD, req)
      call MPI_Wait(req, MPI_STATUS_IGNORE)
#ifndef FY_IMPL_OMPI
    case (7)
      call MPI_Iallreduce(a(1:2 * n:2), r, n, MPI_REAL, MPI_MAX, MPI_COMM_WORLD, req)
      call MPI_Wait(req, MPI_STATUS_IGNORE)
#endif
    end select
  end subroutine
  double precision function median(v)
    double precision, intent(in) :: v(:)
    double precision :: w(size(v)), x
    integer :: i, j
    w = v
    do i = 2, size(w)   ! insertion sort: 7 values
      x = w(i)
      j = i - 1
      do while (j >= 1)
        if (w(j) <= x) exit
        w(j + 1) = w(j)
        j = j - 1
      end do
      w(j + 1) = x
    end do
    median = w((size(w) + 1) / 2)
  end function
end program
