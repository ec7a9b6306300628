! Point-to-point, statuses, CHARACTER and LOGICAL arguments, predefined
! attributes, a keyval copy callback, an error handler and generalized
! request callbacks written in Fortran: mpif.h (fixed form), 2 or more
! ranks.
      program f77pt2pt
      implicit none
      include 'mpif.h'
      integer ierr, rank, nproc, right, left, i, cnt, key, dup, eh
      integer buf(10), rbuf(10), st(MPI_STATUS_SIZE), reqs(2)
      integer sts(MPI_STATUS_SIZE, 2), idx(2)
      integer(kind=MPI_ADDRESS_KIND) val, xs, gx
      logical flag, avail
      character*(MPI_MAX_OBJECT_NAME) cname
      character*(MPI_MAX_PROCESSOR_NAME) pname
      integer ncalls, lasterr
      common /f77cb/ ncalls, lasterr
      external copyfn, errfn, gquery, gfree, gcancel
      ncalls = 0
      lasterr = 0
      call MPI_INIT(ierr)
      call fyt_init('fortran_f77_pt2pt')
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nproc, ierr)
      right = mod(rank + 1, nproc)
      left = mod(rank + nproc - 1, nproc)
! blocking ring with statuses
      do i = 1, 10
        buf(i) = rank * 100 + i
      end do
      call MPI_SENDRECV(buf, 10, MPI_INTEGER, right, 5, rbuf, 10,
     &     MPI_INTEGER, left, 5, MPI_COMM_WORLD, st, ierr)
      call fyt_ok(ierr, 'MPI_SENDRECV')
      call fyt_check(rbuf(10) .eq. left * 100 + 10, 'sendrecv data')
      call fyt_check(st(MPI_SOURCE) .eq. left, 'status source')
      call fyt_check(st(MPI_TAG) .eq. 5, 'status tag')
      call MPI_GET_COUNT(st, MPI_INTEGER, cnt, ierr)
      call fyt_ok(ierr, 'MPI_GET_COUNT')
      call fyt_check(cnt .eq. 10, 'get_count')
! nonblocking, MPI_STATUSES_IGNORE and MPI_STATUS_IGNORE
      call MPI_IRECV(rbuf, 10, MPI_INTEGER, left, 6, MPI_COMM_WORLD,
     &     reqs(1), ierr)
      call MPI_ISEND(buf, 10, MPI_INTEGER, right, 6, MPI_COMM_WORLD,
     &     reqs(2), ierr)
      call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
      call fyt_ok(ierr, 'MPI_WAITALL')
      call fyt_check(reqs(1) .eq. MPI_REQUEST_NULL, 'request freed')
! which request completed: Fortran counts from 1
      call MPI_ISEND(buf, 1, MPI_INTEGER, MPI_PROC_NULL, 8,
     &     MPI_COMM_WORLD, reqs(2), ierr)
      call MPI_WAITANY(2, reqs, i, st, ierr)
      call fyt_check(ierr .eq. MPI_SUCCESS .and. i .eq. 2,
     &     'WAITANY index counted from 1')
      call MPI_WAITANY(2, reqs, i, st, ierr)
      call fyt_check(i .eq. MPI_UNDEFINED, 'WAITANY with none active')
      call MPI_ISEND(buf, 1, MPI_INTEGER, MPI_PROC_NULL, 8,
     &     MPI_COMM_WORLD, reqs(2), ierr)
      call MPI_WAITSOME(2, reqs, cnt, idx, sts, ierr)
      call fyt_check(cnt .eq. 1 .and. idx(1) .eq. 2,
     &     'WAITSOME indices counted from 1')
      call MPI_ISEND(buf, 1, MPI_INTEGER, MPI_PROC_NULL, 8,
     &     MPI_COMM_WORLD, reqs(1), ierr)
      flag = .false.
      do while (.not. flag)
        call MPI_TESTANY(2, reqs, i, flag, st, ierr)
      end do
      call fyt_check(i .eq. 1, 'TESTANY index counted from 1')
      call MPI_ISEND(buf, 3, MPI_INTEGER, right, 7, MPI_COMM_WORLD,
     &     reqs(1), ierr)
      call MPI_PROBE(left, 7, MPI_COMM_WORLD, st, ierr)
      call MPI_GET_COUNT(st, MPI_INTEGER, cnt, ierr)
      call fyt_check(cnt .eq. 3, 'probe count')
      call MPI_IPROBE(left, 7, MPI_COMM_WORLD, flag, st, ierr)
      call fyt_check(flag, 'iprobe LOGICAL flag')
      call MPI_RECV(rbuf, 3, MPI_INTEGER, left, 7, MPI_COMM_WORLD,
     &     MPI_STATUS_IGNORE, ierr)
      call MPI_WAITALL(1, reqs, sts, ierr)
      call MPI_IPROBE(left, 7, MPI_COMM_WORLD, flag, st, ierr)
      call fyt_check(.not. flag, 'iprobe false')
! C code sees MPI_STATUS_IGNORE as MPI_F_STATUS_IGNORE
      call fyt_c_ignores(MPI_STATUS_IGNORE, 0, i)
      call fyt_check(i .eq. 1, 'MPI_F_STATUS_IGNORE is mpif.h''s')
! CHARACTER in and out
      call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
      call fyt_ok(ierr, 'MPI_COMM_DUP')
      call MPI_COMM_SET_NAME(dup, 'fortran dup   ', ierr)
      call fyt_ok(ierr, 'MPI_COMM_SET_NAME')
      call MPI_COMM_GET_NAME(dup, cname, cnt, ierr)
      call fyt_ok(ierr, 'MPI_COMM_GET_NAME')
      call fyt_check(cnt .eq. 11 .and. cname .eq. 'fortran dup',
     &     'comm name round trip, trailing blanks trimmed')
      call MPI_GET_PROCESSOR_NAME(pname, cnt, ierr)
      call fyt_check(cnt .gt. 0 .and. pname(cnt+1:) .eq. ' ',
     &     'processor name blank padded')
! predefined attribute: the Fortran key value, the value not a pointer
      call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, val, flag,
     &     ierr)
      call fyt_ok(ierr, 'MPI_COMM_GET_ATTR(MPI_TAG_UB)')
      call fyt_check(flag .and. val .ge. 32767, 'MPI_TAG_UB value')
! keyval with a Fortran copy callback
      xs = 42
      call MPI_COMM_CREATE_KEYVAL(copyfn, MPI_COMM_NULL_DELETE_FN,
     &     key, xs, ierr)
      call fyt_avail(ierr, 'MPI_COMM_CREATE_KEYVAL', avail)
      if (avail) then
      val = 1234
      call MPI_COMM_SET_ATTR(dup, key, val, ierr)
      call fyt_ok(ierr, 'MPI_COMM_SET_ATTR')
      call MPI_COMM_DUP(dup, i, ierr)
      call fyt_check(ncalls .eq. 1, 'copy callback called once')
      call MPI_COMM_GET_ATTR(i, key, val, flag, ierr)
      call fyt_check(flag .and. val .eq. 1234 + 42,
     &     'attribute copied by the Fortran callback')
      call MPI_COMM_FREE(i, ierr)
      call fyt_check(i .eq. MPI_COMM_NULL, 'comm_free sets NULL')
      call MPI_COMM_FREE_KEYVAL(key, ierr)
      end if
! error handler written in Fortran
      call MPI_COMM_CREATE_ERRHANDLER(errfn, eh, ierr)
      call fyt_avail(ierr, 'MPI_COMM_CREATE_ERRHANDLER', avail)
      if (avail) then
      call MPI_COMM_SET_ERRHANDLER(dup, eh, ierr)
      call MPI_COMM_CALL_ERRHANDLER(dup, MPI_ERR_OTHER, ierr)
      call fyt_check(lasterr .eq. MPI_ERR_OTHER,
     &     'Fortran error handler called with the code')
      call MPI_ERRHANDLER_FREE(eh, ierr)
      end if
      call MPI_COMM_FREE(dup, ierr)
! a generalized request's callbacks get the program's extra_state
! variable itself (as MPICH and Open MPI pass it)
      gx = 5
      call MPI_GREQUEST_START(gquery, gfree, gcancel, gx, reqs(1),
     &     ierr)
      call MPI_GREQUEST_COMPLETE(reqs(1), ierr)
      call MPI_WAIT(reqs(1), st, ierr)
      call fyt_check(ierr .eq. MPI_SUCCESS .and. gx .eq. 4,
     &     'GREQUEST free_fn changes the extra_state variable')
      call fyt_finish()
      end

      subroutine copyfn(oldcomm, keyval, extra, valin, valout, flag,
     &     ierr)
      implicit none
      include 'mpif.h'
      integer oldcomm, keyval, ierr
      integer(kind=MPI_ADDRESS_KIND) extra, valin, valout
      logical flag
      integer ncalls, lasterr
      common /f77cb/ ncalls, lasterr
      ncalls = ncalls + 1
      valout = valin + extra
      flag = .true.
      ierr = MPI_SUCCESS
      end

      subroutine errfn(comm, code)
      implicit none
      integer comm, code
      integer ncalls, lasterr
      common /f77cb/ ncalls, lasterr
      lasterr = code
      end

      subroutine gquery(extra, status, ierr)
      implicit none
      include 'mpif.h'
      integer(kind=MPI_ADDRESS_KIND) extra
      integer status(MPI_STATUS_SIZE), ierr
      call MPI_STATUS_SET_ELEMENTS(status, MPI_BYTE, 0, ierr)
      call MPI_STATUS_SET_CANCELLED(status, .false., ierr)
      status(MPI_SOURCE) = MPI_UNDEFINED
      status(MPI_TAG) = MPI_UNDEFINED
      ierr = MPI_SUCCESS
      end

      subroutine gfree(extra, ierr)
      implicit none
      include 'mpif.h'
      integer(kind=MPI_ADDRESS_KIND) extra
      integer ierr
      extra = extra - 1
      ierr = MPI_SUCCESS
      end

      subroutine gcancel(extra, complete, ierr)
      implicit none
      include 'mpif.h'
      integer(kind=MPI_ADDRESS_KIND) extra
      logical complete
      integer ierr
      ierr = MPI_SUCCESS
      end
