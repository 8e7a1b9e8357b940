! error stop from one image ends every image with its code: the last image stops with code 7
! while the others wait in sync all (which must not complete). The test passes when the job's
! exit code is 7 (checked by the launcher wrapper).
program caf_stop
  implicit none
  integer :: me, np
  me = this_image()
  np = num_images()
  if (me == np) then
    error stop 7
  end if
  sync all
  print '(a,i0)', 'caf_stop: sync all completed after error stop on image ', this_image()
  stop 0
end program caf_stop
