! Derived datatypes through module mpi: MPI_Type_create_subarray on a 3-D
! array, MPI_Type_indexed, MPI_Type_create_resized, MPI_Pack/MPI_Unpack
! and MPI_BOTTOM with MPI_Type_create_hindexed.
program mpi_dtype
  use mpi
  implicit none
  integer :: ierr, rank, nproc, right, left, sub, idx, pos, ht, i
  integer :: g(4, 3, 2), h(2, 2), blens(3), disp(3)
  integer(kind=MPI_ADDRESS_KIND) :: adisp(2), lb, ext
  character(len=64) :: packed
  real :: r(3), rr(3)

  call MPI_Init(ierr)
  call fyt_init('fortran_mpi_dtype')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)
  g = reshape([(rank * 1000 + i, i = 1, 24)], [4, 3, 2])
  call MPI_Type_create_subarray(3, [4, 3, 2], [2, 2, 1], [1, 1, 1], MPI_ORDER_FORTRAN, MPI_INTEGER, sub, ierr)
  call fyt_ok(ierr, 'MPI_Type_create_subarray')
  call MPI_Type_commit(sub, ierr)
  call MPI_Sendrecv(g, 1, sub, right, 1, h, 4, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call fyt_ok(ierr, 'MPI_Sendrecv(subarray)')
  call fyt_check(h(1, 1) == left * 1000 + 18 .and. h(2, 2) == left * 1000 + 23, 'subarray (Fortran order)')
  call MPI_Type_free(sub, ierr)

  blens = [1, 2, 1]
  disp = [0, 2, 5]
  call MPI_Type_indexed(3, blens, disp, MPI_REAL, idx, ierr)
  call fyt_ok(ierr, 'MPI_Type_indexed')
  call MPI_Type_create_resized(idx, 0_MPI_ADDRESS_KIND, 32_MPI_ADDRESS_KIND, ht, ierr)
  call fyt_ok(ierr, 'MPI_Type_create_resized')
  call MPI_Type_get_extent(ht, lb, ext, ierr)
  call fyt_check(ext == 32, 'resized extent')
  call MPI_Type_free(ht, ierr)
  call MPI_Type_free(idx, ierr)

  r = [1.5, 2.5, real(rank)]
  pos = 0
  call MPI_Pack(r, 3, MPI_REAL, packed, len(packed), pos, MPI_COMM_WORLD, ierr)
  call fyt_ok(ierr, 'MPI_Pack')
  call fyt_check(pos == 12, 'pack position')
  pos = 0
  call MPI_Unpack(packed, len(packed), pos, rr, 3, MPI_REAL, MPI_COMM_WORLD, ierr)
  call fyt_ok(ierr, 'MPI_Unpack')
  call fyt_check(all(rr == r), 'unpack')

  call MPI_Get_address(r(1), adisp(1), ierr)
  call MPI_Get_address(r(3), adisp(2), ierr)
  call MPI_Type_create_hindexed(2, [1, 1], adisp, MPI_REAL, ht, ierr)
  call fyt_ok(ierr, 'MPI_Type_create_hindexed')
  call MPI_Type_commit(ht, ierr)
  call MPI_Sendrecv(MPI_BOTTOM, 1, ht, right, 2, rr, 2, MPI_REAL, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call fyt_ok(ierr, 'MPI_Sendrecv(MPI_BOTTOM)')
  call fyt_check(rr(1) == 1.5 .and. rr(2) == real(left), 'MPI_BOTTOM hindexed')
  call MPI_Type_free(ht, ierr)
  call fyt_finish()
end program
