! Coarray micro benchmark, built against each runtime from this one source: co_sum and
! co_broadcast of one element, 1 MiB strided get and put (every other real(8) of a 2 MiB row),
! a get of 512 KiB of whole columns of a 2-D coarray into a 2-D array, from the right neighbour
! and from this image, sync images with both neighbours, and an event ping-pong between images
! 1 and 2.
! Image 1 prints one line per operation: "caf_bench <op> <images> <microseconds per call>", the
! slowest image's mean over the timed calls; every operation is run untimed first (warm-up).
! 20000 calls of the small operations: where images share cores, 2000 lasted a few scheduler
! time slices, and one placement decided the figure.
program caf_bench
  implicit none
  integer, parameter :: nstride = 131072 ! 1 MiB of real(8) taken every other element
  real(8), allocatable :: big(:)[:], cols(:, :)[:], got(:, :)
  real(8) :: buf(nstride) ! not allocatable: assignment to an allocatable goes by reference
  integer :: x, me, np, left, right, it, reps
  real(8) :: t0, t

  me = this_image()
  np = num_images()
  right = merge(1, me + 1, me == np)
  left = merge(np, me - 1, me == 1)
  allocate (big(2 * nstride)[*], cols(256, 512)[*], got(256, 256))
  big = me
  cols = me
  buf = 0

  reps = 20000
  call timed_co_sum(reps)
  call timed_co_broadcast(reps)

  reps = 20
  buf = big(1:2 * nstride:2)[right]
  big(2:2 * nstride:2)[right] = buf
  sync all
  t0 = now()
  do it = 1, reps
    buf = big(1:2 * nstride:2)[right]
  end do
  t = (now() - t0) / reps
  call report('get_strided_1MiB', t)
  if (any(buf /= right)) error stop 'caf_bench: strided get read wrong data'
  sync all
  t0 = now()
  do it = 1, reps
    big(2:2 * nstride:2)[right] = buf
  end do
  sync all
  t = (now() - t0) / reps
  call report('put_strided_1MiB', t)

  call timed_columns('get_columns_512KiB', right)
  call timed_columns('get_columns_self_512KiB', me)

  reps = 20000
  do it = 1, reps / 10 + reps
    if (it == reps / 10 + 1) then
      sync all
      t0 = now()
    end if
    if (np > 2) then
      sync images([left, right])
    else if (np == 2) then
      sync images(right)
    end if
  end do
  t = (now() - t0) / reps
  call report('sync_images', t)

  call timed_events(1000)
  if (me == 1) flush (6)
  sync all
contains
  real(8) function now()
    integer(8) :: c, r
    call system_clock(c, r)
    now = real(c, 8) / real(r, 8)
  end function now

  subroutine report(what, seconds)
    character(*), intent(in) :: what
    real(8), intent(in) :: seconds
    real(8) :: worst
    worst = seconds
    call co_max(worst)
    if (me == 1) print '(a,1x,a,1x,i0,1x,f12.3)', 'caf_bench', what, np, worst * 1d6
  end subroutine report

  subroutine timed_columns(what, image)
    character(*), intent(in) :: what
    integer, intent(in) :: image
    integer :: k
    got(:, :) = cols(:, 257:512)[image]
    sync all
    t0 = now()
    do k = 1, 20
      got(:, :) = cols(:, 257:512)[image]
    end do
    t = (now() - t0) / 20
    call report(what, t)
    if (any(got /= image)) error stop 'caf_bench: column get read wrong data'
    sync all
  end subroutine timed_columns

  subroutine timed_co_sum(n)
    integer, intent(in) :: n
    integer :: i
    do i = 1, n / 10 + n
      if (i == n / 10 + 1) then
        sync all
        t0 = now()
      end if
      x = 1
      call co_sum(x)
    end do
    if (x /= np) error stop 'caf_bench: co_sum gave a wrong result'
    call report('co_sum_1', (now() - t0) / n)
  end subroutine timed_co_sum

  subroutine timed_co_broadcast(n)
    integer, intent(in) :: n
    integer :: i
    do i = 1, n / 10 + n
      if (i == n / 10 + 1) then
        sync all
        t0 = now()
      end if
      x = me
      call co_broadcast(x, 1)
    end do
    if (x /= 1) error stop 'caf_bench: co_broadcast gave a wrong result'
    call report('co_broadcast_1', (now() - t0) / n)
  end subroutine timed_co_broadcast

  ! Event ping-pong: image 1 posts to image 2 and waits for its answer (one round trip per
  ! iteration); the time reported is per round trip.
  subroutine timed_events(n)
    use, intrinsic :: iso_fortran_env, only: event_type
    integer, intent(in) :: n
    type(event_type), allocatable :: ev(:)[:]
    integer :: i
    allocate (ev(1)[*])
    sync all
    t0 = now()
    if (np >= 2 .and. me <= 2) then
      do i = 1, n / 10 + n
        if (i == n / 10 + 1) t0 = now()
        if (me == 1) then
          event post (ev(1)[2])
          event wait (ev(1))
        else
          event wait (ev(1))
          event post (ev(1)[1])
        end if
      end do
    end if
    call report('event_pingpong', (now() - t0) / n)
    deallocate (ev)
  end subroutine timed_events
end program caf_bench
