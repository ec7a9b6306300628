program hello_f08
  use mpi_f08
  implicit none
  integer :: version, subversion
  call MPI_Get_version(version, subversion)
  print '(a,i0,a,i0)', 'Fortran (mpi_f08): MPI ', version, '.', subversion
  if (version < 3) error stop 1
end program
