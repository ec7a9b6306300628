! The profiling interface of mpi_f08 (MPI 4.1 section 15.2): a tool defines
! the specific procedures MPI_Barrier_f08 and MPI_Allreduce_f08ts itself,
! counts the calls and forwards them through module pmpi_f08's PMPI_Barrier
! and PMPI_Allreduce. The program calls the MPI_ generic names: the tool's
! procedures must see every call, and the results must be right.
module f08_pmpi_counts
  implicit none
  integer :: nbarrier = 0, nallreduce = 0
end module

subroutine MPI_Barrier_f08(comm, ierror)
  use mpi_f08_types
  use pmpi_f08, only : PMPI_Barrier
  use f08_pmpi_counts
  implicit none
  type(MPI_Comm), intent(in) :: comm
  integer, optional, intent(out) :: ierror
  nbarrier = nbarrier + 1
  call PMPI_Barrier(comm, ierror)
end subroutine

subroutine MPI_Allreduce_f08ts(sendbuf, recvbuf, count, datatype, op, comm, ierror)
  use mpi_f08_types
  use pmpi_f08, only : PMPI_Allreduce
  use f08_pmpi_counts
  implicit none
  type(*), dimension(..), intent(in) :: sendbuf
  type(*), dimension(..) :: recvbuf
  integer, intent(in) :: count
  type(MPI_Datatype), intent(in) :: datatype
  type(MPI_Op), intent(in) :: op
  type(MPI_Comm), intent(in) :: comm
  integer, optional, intent(out) :: ierror
  nallreduce = nallreduce + 1
  call PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm, ierror)
end subroutine

program f08_pmpi
  use mpi_f08
  use f08_pmpi_counts
  implicit none
  integer :: rank, nproc, ierr, v(4), w(4)
  double precision :: t

  call MPI_Init()
  call fyt_init('fortran_f08_pmpi')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call fyt_ok(ierr, 'MPI_Barrier')
  call MPI_Barrier(MPI_COMM_WORLD)
  v = [rank, 1, 2, 3]
  call MPI_Allreduce(v, w, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call fyt_ok(ierr, 'MPI_Allreduce')
  call fyt_check(w(1) == nproc * (nproc - 1) / 2 .and. w(2) == nproc, 'allreduce through the tool')
  call fyt_check(nbarrier == 2, 'the tool saw both barriers')
  call fyt_check(nallreduce == 1, 'the tool saw the allreduce')
  ! a PMPI_ name called directly (a function too)
  t = PMPI_Wtime_direct()
  call fyt_check(t > 0.0d0, 'PMPI_Wtime')
  call fyt_finish()
contains
  double precision function PMPI_Wtime_direct()
    use pmpi_f08, only : PMPI_Wtime
    PMPI_Wtime_direct = PMPI_Wtime()
  end function
end program
