! Coarrays larger than arbor's segment (the test runs with ARBOR_SEGMENT_SIZE=1M): allocatable
! and static ones, reached by whole and strided reads and writes, a copy between two other
! images, atomics, a component of a derived-type coarray; allocated and deallocated again;
! beside coarrays, a lock and an event that stay in the segment. An allocation no image can
! satisfy reports a status and changes nothing.
module caf_large_data
  use iso_fortran_env, only: atomic_int_kind
  implicit none
  integer, parameter :: n = 1000000, m = 300000
  type holder
    real(8) :: pad(m)
    integer, allocatable :: c(:)
  end type
  type(holder) :: y[*]
  integer :: small(8)[*]
end module

program caf_large
  use caf_large_data
  use iso_fortran_env, only: lock_type, event_type
  implicit none
  real(8), allocatable :: a(:)[:], got(:)
  integer(atomic_int_kind), allocatable :: cnt(:)[:]
  type(lock_type) :: lk[*]
  type(event_type) :: ev[*]
  integer :: me, np, right, left, round, i, errs, k
  integer(atomic_int_kind) :: v
  me = this_image()
  np = num_images()
  right = merge(1, me + 1, me == np)
  left = merge(np, me - 1, me == 1)
  errs = 0

  do round = 1, 3
    allocate (a(n)[*])
    a = [(me * 1d7 + i + round, i = 1, n)]
    small = me
    sync all
    got = a(:)[right]
    if (any(got /= [(right * 1d7 + i + round, i = 1, n)])) call fail('whole read', round)
    got = a(n:1:-7)[left]
    if (any(got /= [(left * 1d7 + i + round, i = n, 1, -7)])) call fail('strided read', round)
    if (small(8)[right] /= right) call fail('read of a coarray in the segment', round)
    sync all
    a(2:n:2)[right] = [(-me * 1d0 - i, i = 2, n, 2)]
    sync all
    if (any(a(2:n:2) /= [(-left * 1d0 - i, i = 2, n, 2)])) call fail('strided write', round)
    if (any(a(1:n:2) /= [(me * 1d7 + i + round, i = 1, n, 2)])) call fail('write beside', round)
    sync all
    if (np >= 3 .and. me == 1) a(10:20)[2] = a(30:40)[3]
    sync all
    if (np >= 3 .and. me == 2) then
      do i = 30, 40
        if (a(i - 20) /= merge(-2d0 - i, 3d7 + i + round, mod(i, 2) == 0)) &
          call fail('copy between images', i)
      end do
    end if
    deallocate (a, got) ! the main program's variables are never freed: LeakSanitizer
  end do

  allocate (cnt(m)[*])
  cnt = 0
  sync all
  do k = 1, m, 9973
    call atomic_add(cnt(k)[1], k)
  end do
  sync all
  if (me == 1) then
    do k = 1, m, 9973
      call atomic_ref(v, cnt(k))
      if (v /= k * np) call fail('atomic_add', k)
    end do
  end if
  deallocate (cnt)

  allocate (y%c(me + 2))
  y%c = me
  y%pad(m) = me + 0.5d0
  sync all
  if (size(y[right]%c) /= right + 2) call fail('component size', right)
  if (any(y[right]%c /= right)) call fail('component read', right)
  if (y[right]%pad(m) /= right + 0.5d0) call fail('static coarray read', right)

  lock (lk[1])
  small(1)[1] = small(1)[1] + 1
  unlock (lk[1])
  event post (ev[right])
  event wait (ev)
  sync all
  if (me == 1 .and. small(1) /= np + 1) call fail('lock', small(1))

#ifndef CAF_NO_HUGE_STAT
  ! OpenCoarrays 2.10 ends the job at an allocation MPI cannot make, stat= or not.
  block
    real(8), allocatable :: huge_one(:)[:]
    integer :: st
    allocate (huge_one(2_8**47)[*], stat=st)
    if (st == 0) call fail('a 1 PiB coarray was allocated', 0)
    if (allocated(huge_one)) call fail('the refused coarray is allocated', 0)
  end block
#endif
  allocate (a(n)[*])
  a = me
  sync all
  if (a(n)[right] /= right) call fail('allocation after the refusal', 0)

  sync all
  if (errs /= 0) error stop 'caf_large failed'
  if (me == 1) print *, 'caf_large passed'
contains
  subroutine fail(what, k)
    character(*), intent(in) :: what
    integer, intent(in) :: k
    errs = errs + 1
    print *, 'image', this_image(), ': ', what, k
  end subroutine
end program
