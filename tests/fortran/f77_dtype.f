! Derived datatypes through mpif.h: MPI_TYPE_VECTOR over a column-major
! matrix, and MPI_BOTTOM with a struct type of absolute addresses from
! MPI_GET_ADDRESS. Skipped while the C datatype engine is missing.
      program f77dtype
      implicit none
      include 'mpif.h'
      integer ierr, rank, nproc, right, left, i, j, row, st
      double precision a(4, 5), b(5)
      integer n1
      double precision x1
      integer blens(2), types(2)
      integer(kind=MPI_ADDRESS_KIND) disps(2)
      integer(kind=MPI_ADDRESS_KIND) lb, ext
      integer iext, ia1, ia2, old
      call MPI_INIT(ierr)
      call fyt_init('fortran_f77_dtype')
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nproc, ierr)
      right = mod(rank + 1, nproc)
      left = mod(rank + nproc - 1, nproc)
      do j = 1, 5
        do i = 1, 4
          a(i, j) = rank * 100 + i * 10 + j
        end do
      end do
! row 2 of a 4x5 matrix: 5 elements, stride 4
      call MPI_TYPE_VECTOR(5, 1, 4, MPI_DOUBLE_PRECISION, row, ierr)
      call fyt_ok(ierr, 'MPI_TYPE_VECTOR')
      call MPI_TYPE_COMMIT(row, ierr)
      call fyt_ok(ierr, 'MPI_TYPE_COMMIT')
      call MPI_TYPE_GET_EXTENT(row, lb, ext, ierr)
      call fyt_check(lb .eq. 0 .and. ext .eq. 17 * 8, 'vector extent')
      call MPI_SENDRECV(a(2, 1), 1, row, right, 1, b, 5,
     &     MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD,
     &     MPI_STATUS_IGNORE, ierr)
      call fyt_ok(ierr, 'MPI_SENDRECV(vector)')
      call fyt_check(b(5) .eq. left * 100 + 25, 'vector row')
      call MPI_TYPE_FREE(row, ierr)
! MPI-1 procedures removed from the standard, still in mpif.h programs
      call MPI_TYPE_EXTENT(MPI_DOUBLE_PRECISION, iext, ierr)
      call fyt_ok(ierr, 'MPI_TYPE_EXTENT')
      call fyt_check(iext .eq. 8, 'MPI_TYPE_EXTENT')
      call MPI_TYPE_HVECTOR(5, 1, 32, MPI_DOUBLE_PRECISION, old, ierr)
      call fyt_ok(ierr, 'MPI_TYPE_HVECTOR')
      call MPI_TYPE_EXTENT(old, iext, ierr)
      call fyt_check(iext .eq. 4 * 32 + 8, 'hvector extent')
      call MPI_TYPE_FREE(old, ierr)
      call MPI_ADDRESS(a(1, 1), ia1, ierr)
      call MPI_ADDRESS(a(1, 2), ia2, ierr)
      if (ierr .eq. MPI_SUCCESS) call fyt_check(ia2 - ia1 .eq. 32,
     &     'MPI_ADDRESS')
! MPI_BOTTOM: absolute addresses
      n1 = rank
      x1 = rank + 0.25d0
      call MPI_GET_ADDRESS(n1, disps(1), ierr)
      call MPI_GET_ADDRESS(x1, disps(2), ierr)
      blens(1) = 1
      blens(2) = 1
      types(1) = MPI_INTEGER
      types(2) = MPI_DOUBLE_PRECISION
      call MPI_TYPE_CREATE_STRUCT(2, blens, disps, types, st, ierr)
      call fyt_ok(ierr, 'MPI_TYPE_CREATE_STRUCT')
      call MPI_TYPE_COMMIT(st, ierr)
      call MPI_SENDRECV_REPLACE(MPI_BOTTOM, 1, st, right, 2, left, 2,
     &     MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call fyt_ok(ierr, 'MPI_SENDRECV_REPLACE(MPI_BOTTOM)')
      call fyt_check(n1 .eq. left .and. x1 .eq. left + 0.25d0,
     &     'MPI_BOTTOM struct')
      call MPI_TYPE_FREE(st, ierr)
      call fyt_finish()
      end
