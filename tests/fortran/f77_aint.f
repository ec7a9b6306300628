! MPI_AINT_ADD and MPI_AINT_DIFF through mpif.h, which types them (MPI
! 3.1; MPICH 4.0.2's mpif.h did not, so this program is not in the
! MPICH ABI check). Addresses of two elements of one array.
      program f77aint
      implicit none
      include 'mpif.h'
      integer ierr
      integer a(10)
      integer(kind=MPI_ADDRESS_KIND) p1, p9, d
      call MPI_INIT(ierr)
      call fyt_init('fortran_f77_aint')
      call MPI_GET_ADDRESS(a(1), p1, ierr)
      call MPI_GET_ADDRESS(a(9), p9, ierr)
      d = MPI_AINT_DIFF(p9, p1)
      call fyt_check(d .eq. 32, 'MPI_AINT_DIFF')
      call fyt_check(MPI_AINT_ADD(p1, d) .eq. p9, 'MPI_AINT_ADD')
      call fyt_check(PMPI_AINT_ADD(p9, -d) .eq. p1, 'PMPI_AINT_ADD')
      call fyt_finish()
      end
