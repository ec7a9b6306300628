! Collectives through mpi_f08: MPI_Bcast of a scalar, MPI_Allreduce with
! MPI_IN_PLACE, MPI_Gatherv, a nonblocking MPI_Iallreduce and a user
! reduction with the mpi_f08 MPI_User_function interface (TYPE(C_PTR)).
module f08_coll_op
  use mpi_f08
  use, intrinsic :: iso_c_binding
  implicit none
contains
  subroutine summod(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = mod(a + b, 7)
  end subroutine
end module

program f08_coll
  use mpi_f08
  use f08_coll_op
  implicit none
  integer :: rank, nproc, i, ierr, x
  integer :: v(3)
  integer, allocatable :: counts(:), displs(:), gath(:)
  type(MPI_Op) :: op
  type(MPI_Request) :: req

  call MPI_Init()
  call fyt_init('fortran_f08_coll')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  x = 0
  if (rank == 0) x = 99
  call MPI_Bcast(x, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call fyt_ok(ierr, 'MPI_Bcast')
  call fyt_check(x == 99, 'bcast scalar')
  v = [rank, 1, 2 * rank]
  call MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call fyt_ok(ierr, 'MPI_Allreduce(MPI_IN_PLACE)')
  call fyt_check(v(2) == nproc .and. v(3) == nproc * (nproc - 1), 'allreduce in place')
  allocate(counts(nproc), displs(nproc), gath(nproc * (nproc + 1) / 2))
  counts = [(i, i = 1, nproc)]
  displs = [(i * (i - 1) / 2, i = 1, nproc)]
  v = rank
  call MPI_Gatherv(v, rank + 1, MPI_INTEGER, gath, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call fyt_ok(ierr, 'MPI_Gatherv')
  if (rank == 0) call fyt_check(gath(size(gath)) == nproc - 1 .and. gath(1) == 0, 'gatherv')
  v = rank
  call MPI_Iallreduce(MPI_IN_PLACE, v, 3, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, req, ierr)
  call fyt_ok(ierr, 'MPI_Iallreduce')
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call fyt_check(all(v == nproc - 1), 'iallreduce')
  call MPI_Op_create(summod, .true., op, ierr)
  call fyt_ok(ierr, 'MPI_Op_create')
  v = [3, 4, 5]
  call MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call fyt_ok(ierr, 'MPI_Allreduce(user op)')
  call fyt_check(v(1) == mod(3 * nproc, 7), 'f08 user reduction')
  call MPI_Op_free(op)
  deallocate(counts, displs, gath)  ! a program's allocatables are never freed for it
  call fyt_finish()
end program
