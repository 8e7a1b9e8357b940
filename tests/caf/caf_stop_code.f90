! stop with a code is a normal termination: every image finishes (the implicit sync of the end)
! and the job ends with the code (checked by the launcher wrapper: 5).
program caf_stop_code
  implicit none
  integer :: total
  total = this_image()
  call co_sum(total)
  if (total /= num_images() * (num_images() + 1) / 2) error stop 1
  stop 5
end program caf_stop_code
