! A stopped image: the last image takes a lock and ends while the others go on. Every statement
! that needs it reports STAT_STOPPED_IMAGE instead of hanging, the survivors still synchronise
! among themselves, its coarray stays readable, and stopped_images / image_status say so; an
! event wait that nobody is left to satisfy ends too.
! Runs at two images or more.
program caf_stopped
  use iso_fortran_env, only: event_type, lock_type, stat_stopped_image
  implicit none
  integer :: x[*], s, me, n, total
  type(lock_type) :: lck[*]
  type(event_type) :: ev[*]
#ifndef CAF_NO_STOPPED_STATUS
  integer, allocatable :: gone(:)
#endif
  me = this_image()
  n = num_images()
  x = 100 + me
  sync all
  if (me == n) then
    lock (lck[1])
    stop ! holding the lock
  end if

  ! image n never syncs: the others sync with each other and learn that it stopped
  sync images (*, stat=s)
  call expect(s == stat_stopped_image, 'sync images (*) with a stopped image')
#ifndef CAF_NO_STOPPED_STATUS
  gone = stopped_images()
  call expect(size(gone) == 1, 'stopped_images() lists one image')
  if (size(gone) == 1) call expect(gone(1) == n, 'stopped_images() names the last image')
  call expect(image_status(n) == stat_stopped_image, 'image_status of the stopped image')
  deallocate (gone) ! the main program's allocatables are not freed at its end
#endif
  call expect(image_status(me) == 0, 'image_status of this image')
  call expect(x[n] == 100 + n, 'the stopped image''s coarray stays readable')
  total = me
  call co_sum(total, stat=s)
  call expect(s == stat_stopped_image, 'co_sum with a stopped image')
#ifndef CAF_NO_LOCK_STOPPED
  lock (lck[1], stat=s)
  call expect(s == stat_stopped_image, 'lock held by a stopped image')
#endif
  x = 0
  sync all (stat=s)
  call expect(s == stat_stopped_image, 'sync all with a stopped image')
  ! the survivors did synchronise: every one of them has written its x by now
  if (me == 1) call expect(x[n - 1] == 0, 'sync all still synchronises the running images')
  sync all (stat=s)
#ifndef CAF_NO_EVENT_STOPPED
  ! the others end now: nobody is left to post image 1's event
  if (me == 1) then
    event wait (ev, stat=s)
    call expect(s == stat_stopped_image, 'event wait once every other image stopped')
  end if
#endif
  if (me == 1) print '(a)', 'caf_stopped: ok'
contains
  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'caf_stopped: image ', this_image(), ': wrong: ', what
      error stop 3
    end if
  end subroutine expect
end program caf_stopped
