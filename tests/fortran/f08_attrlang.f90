! Attributes across languages (MPI 4.1 19.3.7): an attribute Fortran sets
! is an integer that C reads through a pointer (MPI_Aint *val), also on a
! communicator duplicated with MPI_COMM_DUP_FN; one C sets is a pointer
! that Fortran gets as an integer; each language gets back what it set.
! One or more ranks.
program f08_attrlang
  use mpi_f08
  use, intrinsic :: iso_c_binding
  implicit none
  interface
    integer(c_int) function c_attr_is(comm, keyval, expected) bind(C, name='fyt_c_attr_is')
      import :: c_int, MPI_ADDRESS_KIND
      integer(c_int), value :: comm, keyval
      integer(kind=MPI_ADDRESS_KIND), value :: expected
    end function
    integer(kind=MPI_ADDRESS_KIND) function c_attr_set(comm, keyval) bind(C, name='fyt_c_attr_set')
      import :: c_int, MPI_ADDRESS_KIND
      integer(c_int), value :: comm, keyval
    end function
  end interface
  integer :: key, ierr
  integer(kind=MPI_ADDRESS_KIND) :: val, got, addr
  logical :: flag
  type(MPI_Comm) :: dup

  call MPI_Init()
  call fyt_init('f08_attrlang')
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key, 0_MPI_ADDRESS_KIND, ierr)
  call fyt_ok(ierr, 'Comm_create_keyval')

  val = 1234567_MPI_ADDRESS_KIND
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, val, ierr)
  call fyt_check(c_attr_is(MPI_COMM_WORLD%MPI_VAL, key, val) == 1, 'C reads a Fortran attribute through a pointer')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, got, flag, ierr)
  call fyt_check(flag .and. got == val, 'Fortran gets back its integer')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call fyt_check(c_attr_is(dup%MPI_VAL, key, val) == 1, 'the copy on a duplicate reads the same from C')
  call MPI_Comm_free(dup, ierr)

  addr = c_attr_set(MPI_COMM_WORLD%MPI_VAL, key)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, got, flag, ierr)
  call fyt_check(addr /= 0 .and. flag .and. got == addr, 'Fortran gets a C attribute''s pointer as an integer')

  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key, ierr)
  call MPI_Comm_free_keyval(key, ierr)
  call fyt_finish()
end program
