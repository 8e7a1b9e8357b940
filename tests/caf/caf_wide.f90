! co_sum / co_min / co_max on integer(16), on every image and on one (result_image), with values
! only that kind holds.
program caf_wide
  implicit none
  integer(16) :: i(3), big, m
  integer :: me, n
  me = this_image()
  n = num_images()
  m = int(n, 16) * (n + 1) / 2
  big = 2_16**100

  i = [big + me, -int(me, 16), int(me, 16)]
  call co_sum(i)
  call expect(all(i == [n * big + m, -m, m]), 'co_sum integer(16)')
  i = [big + me, -int(me, 16), int(me, 16)]
  call co_min(i)
  call expect(all(i == [big + 1, -int(n, 16), 1_16]), 'co_min integer(16)')
  i = [big + me, -int(me, 16), int(me, 16)]
  call co_max(i, result_image=1)
  if (me == 1) call expect(all(i == [big + n, -1_16, int(n, 16)]), 'co_max integer(16) on image 1')

  if (me == 1) print '(a)', 'caf_wide: ok'
contains
  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'caf_wide: image ', this_image(), ': wrong: ', what
      error stop 3
    end if
  end subroutine expect
end program caf_wide
