! Atomics (define, ref, add / and / or / xor with and without fetch, cas), locks, critical
! sections and events, checked by counting: every image updates image 1's variables and
! image 1 verifies the totals.
program caf_sync
  use, intrinsic :: iso_fortran_env, only: atomic_int_kind, lock_type, event_type
  implicit none
  integer(atomic_int_kind) :: counter[*], bits[*], flag[*], old, val
  integer :: total[*], me, np, i, cnt
  type(lock_type) :: lck[*]
  type(event_type) :: ev[*], done[*]
  logical :: got
  integer, parameter :: rounds = 5

  me = this_image()
  np = num_images()
  call atomic_define(counter, 0)
  call atomic_define(bits, 0)
  call atomic_define(flag, -1)
  total = 0
  sync all

  ! atomic add / fetch_add on image 1
  do i = 1, rounds
    call atomic_add(counter[1], 1)
  end do
  call atomic_fetch_add(counter[1], 10, old)
#ifndef CAF_NO_FETCH_ADD_OLD
  ! This image's own adds came first; the other images add at most (np - 1) * (rounds + 10).
  ! (OpenCoarrays 2.10 returns an unrelated value in OLD here; its total below is right.)
  call check(old >= rounds .and. old <= np * (rounds + 10) - 10, 'fetch_add old value')
#endif
#ifndef CAF_NO_ATOMIC_BITWISE
  ! OpenCoarrays 2.10 (Debian) stops in atomic and / or / xor ("for MPI < 3 not implemented")
  call atomic_or(bits[1], int(ishft(1, mod(me - 1, 30)), atomic_int_kind))
#endif
  sync all
  if (me == 1) then
    call atomic_ref(val, counter)
    call check(val == np * (rounds + 10), 'atomic_add total')
#ifndef CAF_NO_ATOMIC_BITWISE
    call atomic_ref(val, bits)
    call check(val == sum([(ishft(1, mod(i - 1, 30)), i = 1, min(np, 30))]), 'atomic_or bits')
#endif
  end if
  sync all
#ifndef CAF_NO_ATOMIC_BITWISE
  ! and / xor / fetch variants
  if (me == 1) call atomic_define(bits[np], int(z'FF', atomic_int_kind))
  sync all
  if (me == np) then
    call atomic_and(bits[np], int(z'0F', atomic_int_kind))
    call atomic_fetch_xor(bits[np], int(z'03', atomic_int_kind), old)
    call check(old == int(z'0F', atomic_int_kind), 'fetch_xor old')
    call atomic_fetch_and(bits[np], int(z'0E', atomic_int_kind), old)
    call check(old == int(z'0C', atomic_int_kind), 'fetch_and old')
    call atomic_fetch_or(bits[np], int(z'01', atomic_int_kind), old)
    call atomic_ref(val, bits[np])
    call check(old == int(z'0C', atomic_int_kind) .and. val == int(z'0D', atomic_int_kind), &
               'fetch_or')
  end if
#endif
  ! compare-and-swap: exactly one image wins flag[1] from -1
  call atomic_cas(flag[1], old, -1, me)
  sync all
  call atomic_ref(val, flag[1])
  call check(val >= 1 .and. val <= np, 'cas winner')
  call check((old == -1) .eqv. (val == me), 'cas: only the winner saw -1')
  sync all

  ! lock: unprotected read-modify-write of image 1's total, serialised by the lock on image 1
  do i = 1, rounds
    lock (lck[1])
    cnt = total[1]
    total[1] = cnt + 1
    unlock (lck[1])
  end do
  sync all ! image 1's lock is free only once every image is done with it
  lock (lck[me], acquired_lock=got)
  call check(got, 'lock acquired_lock on a free lock')
  unlock (lck[me])
  ! critical: the same pattern on image np's total
  do i = 1, rounds
    critical
      cnt = total[np]
      total[np] = cnt + 100
    end critical
  end do
  sync all
  if (np == 1) then
    call check(total == rounds * 101, 'lock + critical counts at one image')
  else if (me == 1) then
    call check(total == np * rounds, 'lock count')
  else if (me == np) then
    call check(total == np * rounds * 100, 'critical count')
  end if

  ! events: every image posts to image 1 and to its right neighbour; query and wait
  event post (ev[1])
  event post (done[merge(1, me + 1, me == np)])
  event wait (done)
  if (me == 1) then
    event wait (ev, until_count=np)
    call event_query(ev, cnt)
    call check(cnt == 0, 'event count consumed')
  end if
  sync all
  event post (ev[me])
  event post (ev[me])
  call event_query(ev, cnt)
  call check(cnt == 2, 'event_query')
  event wait (ev, until_count=2)

  sync all
  if (me == 1) print '(a,i0,a)', 'caf_sync: ', np, ' images OK'
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'caf_sync FAILED on image ', this_image(), ': ', what
      error stop 1
    end if
  end subroutine check
end program caf_sync
