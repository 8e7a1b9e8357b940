! Without stat=, a statement that needs a stopped image is an error termination, never a hang:
! the last image ends at once while the others wait for it in a ring of sync images. The job
! must end with a nonzero code (1) within seconds. Runs at two images or more.
program caf_stopped_nostat
  implicit none
  integer :: me, n
  me = this_image()
  n = num_images()
  if (me == n) stop
  if (me > 1) sync images (me - 1)
  sync images (me + 1) ! image n never answers: the image before it fails, and the job ends
  if (me > 1) sync images (me - 1)
  print '(a,i0)', 'caf_stopped_nostat: the ring completed without the stopped image on ', me
end program caf_stopped_nostat
