! Derived datatypes through mpi_f08: MPI_Type_contiguous and
! MPI_Type_vector with TYPE(MPI_Datatype), MPI_Get_elements, and
! MPI_BOTTOM with MPI_Type_create_struct on a Fortran derived type.
program f08_dtype
  use mpi_f08
  implicit none
  type particle
    integer :: id
    double precision :: x(3)
  end type
  integer :: rank, nproc, right, left, ierr, n, i
  type(MPI_Datatype) :: vec, ptype
  type(MPI_Status) :: st
  integer :: m(6, 4), col(4)
  type(particle) :: p
  integer(kind=MPI_ADDRESS_KIND) :: d(2)

  call MPI_Init()
  call fyt_init('fortran_f08_dtype')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)
  m = reshape([(rank * 100 + i, i = 1, 24)], [6, 4])
  call MPI_Type_vector(4, 1, 6, MPI_INTEGER, vec, ierr)
  call fyt_ok(ierr, 'MPI_Type_vector')
  call MPI_Type_commit(vec)
  call MPI_Sendrecv(m(3, 1), 1, vec, right, 1, col, 4, MPI_INTEGER, left, 1, MPI_COMM_WORLD, st, ierr)
  call fyt_ok(ierr, 'MPI_Sendrecv(vector)')
  call fyt_check(all(col == [(left * 100 + 3 + 6 * i, i = 0, 3)]), 'vector row of a matrix')
  call MPI_Get_elements(st, MPI_INTEGER, n)
  call fyt_check(n == 4, 'get_elements')
  call MPI_Type_free(vec)
  call fyt_check(vec == MPI_DATATYPE_NULL, 'type_free')

  p%id = rank
  p%x = [1d0, 2d0, dble(rank)]
  call MPI_Get_address(p%id, d(1))
  call MPI_Get_address(p%x, d(2))
  call MPI_Type_create_struct(2, [1, 3], d, [MPI_INTEGER, MPI_DOUBLE_PRECISION], ptype, ierr)
  call fyt_ok(ierr, 'MPI_Type_create_struct')
  call MPI_Type_commit(ptype)
  call MPI_Sendrecv_replace(MPI_BOTTOM, 1, ptype, right, 2, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call fyt_ok(ierr, 'MPI_Sendrecv_replace(MPI_BOTTOM)')
  call fyt_check(p%id == left .and. p%x(3) == dble(left), 'MPI_BOTTOM struct of a derived type')
  call MPI_Type_free(ptype)
  call fyt_finish()
end program
