! Handle conversion: mpi_f08's TYPE(MPI_Comm)%MPI_VAL is the INTEGER handle
! of mpif.h/use mpi and the C MPI_Fint (MPI_Comm_f2c/c2f in C), statuses
! convert between the three forms (MPI_Status_f082f/f2f08 in Fortran,
! MPI_Status_f2c/c2f in C), and the Fortran datatypes have the MPICH ABI
! values and sizes. 1 or more ranks.
program handles
  use mpi_f08
  implicit none
  integer :: rank, nproc, ok, fst(MPI_STATUS_SIZE), sz, ierr
  type(MPI_Status) :: st, st2
  type(MPI_Comm) :: c
  type(MPI_Datatype) :: t
  real(kind=8) :: x

  call MPI_Init()
  call fyt_init('fortran_handles')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  x = 1
  call MPI_Sendrecv(x, 1, MPI_REAL8, rank, 9, x, 1, MPI_REAL8, rank, 9, MPI_COMM_WORLD, st)
  call MPI_Status_f082f(st, fst, ierr)
  call fyt_ok(ierr, 'MPI_Status_f082f')
  call fyt_check(fst(MPI_SOURCE) == rank .and. fst(MPI_TAG) == 9, 'f08 status -> integer status')
  call MPI_Status_f2f08(fst, st2, ierr)
  call fyt_check(st2%MPI_SOURCE == rank .and. st2%MPI_TAG == 9, 'integer status -> f08 status')
  ! the C side gets INTEGER handles and the INTEGER status
  call fyt_c_side(MPI_COMM_WORLD%MPI_VAL, MPI_REAL8%MPI_VAL, fst, rank, ok)
  call fyt_check(ok == 1, 'C MPI_Comm_f2c/MPI_Type_f2c/MPI_Status_f2c of Fortran values')
  c%MPI_VAL = MPI_COMM_WORLD%MPI_VAL
  call fyt_check(c == MPI_COMM_WORLD, 'handle from its integer')
  ! Fortran datatypes: sizes and MPICH ABI values
  t = MPI_DOUBLE_COMPLEX
  call MPI_Type_size(t, sz)
  call fyt_check(sz == 16, 'MPI_DOUBLE_COMPLEX size')
  call MPI_Type_size(MPI_INTEGER, sz)
  call fyt_check(sz == 4, 'MPI_INTEGER size')
  call MPI_Type_size(MPI_LOGICAL, sz)
  call fyt_check(sz == 4, 'MPI_LOGICAL size')
  call MPI_Type_size(MPI_REAL8, sz)
  call fyt_check(sz == 8, 'MPI_REAL8 size')
  call MPI_Type_size(MPI_2INTEGER, sz)
  call fyt_check(sz == 8, 'MPI_2INTEGER size')
  call MPI_Type_size(MPI_CHARACTER, sz)
  call fyt_check(sz == 1, 'MPI_CHARACTER size')
  call fyt_check(MPI_INTEGER%MPI_VAL == 1275069467 .and. MPI_REAL8%MPI_VAL == 1275070505, 'MPICH ABI values')
  call fyt_c_ignores(MPI_STATUS_IGNORE, 1, ok)
  call fyt_check(ok == 1, 'C sees mpi_f08 MPI_STATUS_IGNORE as MPI_F08_STATUS_IGNORE')
  call MPI_Sizeof(x, sz, ierr)
  call fyt_check(sz == 8 .and. ierr == MPI_SUCCESS, 'MPI_Sizeof')
  call fyt_finish()
end program
