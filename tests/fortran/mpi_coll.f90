! Collectives through module mpi: MPI_Allgather, MPI_Alltoall,
! MPI_Reduce with MPI_IN_PLACE at the root, MPI_Scan, MPI_Barrier and a
! user reduction on a Fortran derived type written in Fortran.
module mpi_coll_op
  implicit none
  type pair
    double precision :: v
    integer :: where, pad
  end type
contains
  subroutine maxloc_pair(invec, inoutvec, n, dtype)
    integer :: n, dtype, i
    type(pair) :: invec(n), inoutvec(n)
    do i = 1, n
      if (invec(i)%v > inoutvec(i)%v) inoutvec(i) = invec(i)
    end do
  end subroutine
end module

program mpi_coll
  use mpi
  use mpi_coll_op
  implicit none
  integer :: ierr, rank, nproc, i, op, ptype
  integer, allocatable :: a(:), b(:)
  integer :: s
  type(pair) :: p

  call MPI_Init(ierr)
  call fyt_init('fortran_mpi_coll')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  allocate(a(nproc), b(nproc))
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call fyt_ok(ierr, 'MPI_Barrier')
  call MPI_Allgather(rank * 2, 1, MPI_INTEGER, a, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call fyt_ok(ierr, 'MPI_Allgather')
  call fyt_check(all(a == [(2 * i, i = 0, nproc - 1)]), 'allgather')
  a = [(rank * 100 + i, i = 0, nproc - 1)]
  call MPI_Alltoall(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call fyt_ok(ierr, 'MPI_Alltoall')
  call fyt_check(all(b == [(i * 100 + rank, i = 0, nproc - 1)]), 'alltoall')
  s = rank + 1
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, s, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    call fyt_check(s == nproc * (nproc + 1) / 2, 'reduce in place at root')
  else
    call MPI_Reduce(s, s, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  end if
  call fyt_ok(ierr, 'MPI_Reduce(MPI_IN_PLACE)')
  call MPI_Scan(rank + 1, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call fyt_ok(ierr, 'MPI_Scan')
  call fyt_check(s == (rank + 1) * (rank + 2) / 2, 'scan')
  ! user reduction on a derived type (16 bytes: 2 double precision)
  call MPI_Type_contiguous(2, MPI_DOUBLE_PRECISION, ptype, ierr)
  call fyt_ok(ierr, 'MPI_Type_contiguous')
  call MPI_Type_commit(ptype, ierr)
  call MPI_Op_create(maxloc_pair, .true., op, ierr)
  call fyt_ok(ierr, 'MPI_Op_create')
  p%v = mod(rank * 7, nproc)
  p%where = rank
  p%pad = 0
  call MPI_Allreduce(MPI_IN_PLACE, p, 1, ptype, op, MPI_COMM_WORLD, ierr)
  call fyt_ok(ierr, 'MPI_Allreduce(user op)')
  call fyt_check(p%v == nproc - 1, 'user reduction on a derived type')
  call MPI_Op_free(op, ierr)
  call MPI_Type_free(ptype, ierr)
  deallocate(a, b)  ! a program's allocatables are never freed for it
  call fyt_finish()
end program
