! Collectives through mpif.h: MPI_BCAST, MPI_REDUCE, MPI_ALLREDUCE with
! MPI_IN_PLACE, MPI_GATHER, MPI_SCATTER and a user reduction written in
! Fortran (MPI_OP_CREATE). Skipped while the C collectives are missing.
      program f77coll
      implicit none
      include 'mpif.h'
      integer ierr, rank, nproc, i, op
      integer ibuf(4), isum(4), all(64)
      double precision d(3)
      external mymax
      call MPI_INIT(ierr)
      call fyt_init('fortran_f77_coll')
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nproc, ierr)
      do i = 1, 4
        ibuf(i) = 0
        if (rank .eq. 0) ibuf(i) = 10 * i
      end do
      call MPI_BCAST(ibuf, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      call fyt_ok(ierr, 'MPI_BCAST')
      call fyt_check(ibuf(4) .eq. 40, 'bcast')
      do i = 1, 4
        ibuf(i) = rank + i
      end do
      call MPI_REDUCE(ibuf, isum, 4, MPI_INTEGER, MPI_SUM, 0,
     &     MPI_COMM_WORLD, ierr)
      call fyt_ok(ierr, 'MPI_REDUCE')
      if (rank .eq. 0) call fyt_check(isum(1) .eq.
     &     nproc * (nproc - 1) / 2 + nproc, 'reduce sum')
      call MPI_ALLREDUCE(MPI_IN_PLACE, ibuf, 4, MPI_INTEGER, MPI_MAX,
     &     MPI_COMM_WORLD, ierr)
      call fyt_ok(ierr, 'MPI_ALLREDUCE(MPI_IN_PLACE)')
      call fyt_check(ibuf(2) .eq. nproc + 1, 'allreduce in place')
      call MPI_GATHER(rank, 1, MPI_INTEGER, all, 1, MPI_INTEGER, 0,
     &     MPI_COMM_WORLD, ierr)
      call fyt_ok(ierr, 'MPI_GATHER')
      if (rank .eq. 0) call fyt_check(all(nproc) .eq. nproc - 1,
     &     'gather')
      call MPI_SCATTER(all, 1, MPI_INTEGER, i, 1, MPI_INTEGER, 0,
     &     MPI_COMM_WORLD, ierr)
      call fyt_ok(ierr, 'MPI_SCATTER')
      call fyt_check(i .eq. rank, 'scatter')
! user reduction in Fortran: elementwise max of absolute values
      call MPI_OP_CREATE(mymax, .true., op, ierr)
      call fyt_ok(ierr, 'MPI_OP_CREATE')
      d(1) = -rank
      d(2) = rank * 0.5d0
      d(3) = 1d0
      call MPI_ALLREDUCE(MPI_IN_PLACE, d, 3, MPI_DOUBLE_PRECISION, op,
     &     MPI_COMM_WORLD, ierr)
      call fyt_ok(ierr, 'MPI_ALLREDUCE(user op)')
      call fyt_check(d(1) .eq. nproc - 1 .and. d(3) .eq. 1d0,
     &     'Fortran user reduction')
      call MPI_OP_FREE(op, ierr)
      call fyt_check(op .eq. MPI_OP_NULL, 'op_free')
      call fyt_finish()
      end

      subroutine mymax(invec, inoutvec, n, dtype)
      implicit none
      integer n, dtype, i
      double precision invec(n), inoutvec(n)
      do i = 1, n
        inoutvec(i) = max(abs(invec(i)), abs(inoutvec(i)))
      end do
      end
