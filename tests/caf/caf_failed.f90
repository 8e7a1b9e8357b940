! A failed image: the last image executes FAIL IMAGE while the others go on. They see
! STAT_FAILED_IMAGE from the statements that involve it, failed_images / image_status /
! num_images(failed=) say so, and the survivors still synchronise and go on among themselves.
! The job ends normally (code 0). Runs at two images or more.
program caf_failed
  use iso_fortran_env, only: stat_failed_image
  implicit none
  integer :: x[*], s, me, n, total
  integer, allocatable :: gone(:)
  me = this_image()
  n = num_images()
  x = 100 + me
  sync all
  if (me == n) fail image

  sync all (stat=s)
  call expect(s == stat_failed_image, 'sync all with a failed image')
  gone = failed_images()
  call expect(size(gone) == 1, 'failed_images() lists one image')
  if (size(gone) == 1) call expect(gone(1) == n, 'failed_images() names the last image')
  gone = stopped_images()
  call expect(size(gone) == 0, 'stopped_images() lists none')
  deallocate (gone) ! the main program's allocatables are not freed at its end
  call expect(image_status(n) == stat_failed_image, 'image_status of the failed image')
  call expect(image_status(me) == 0, 'image_status of this image')
  call expect(num_images(failed=.true.) == 1, 'num_images(failed=.true.)')
  call expect(num_images(failed=.false.) == n - 1, 'num_images(failed=.false.)')
  sync images (*, stat=s)
  call expect(s == stat_failed_image, 'sync images (*) with a failed image')
  total = me
  call co_sum(total, stat=s)
  call expect(s == stat_failed_image, 'co_sum with a failed image')
  ! the survivors go on: a write and a read between them, ordered by sync images
  x = -me
  sync images (*, stat=s)
  if (me == 1) call expect(x[n - 1] == -(n - 1), 'survivors still read each other')
  sync images (*, stat=s)
  if (me == 1) print '(a)', 'caf_failed: ok'
contains
  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'caf_failed: image ', this_image(), ': wrong: ', what
      error stop 3
    end if
  end subroutine expect
end program caf_failed
