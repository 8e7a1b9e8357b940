! random_init(repeatable, image_distinct): repeatable seeds give the same sequence again, the
! image_distinct ones differ between images, the others agree on every image; a seed that is
! not repeatable differs from the repeatable one.
program caf_random
  implicit none
  real :: a(4), b(4), fixed(4)
  real :: x(4)[*]
  integer :: me, n
  me = this_image()
  n = num_images()

  call random_init(.true., .true.)
  call random_number(a)
  call random_init(.true., .true.)
  call random_number(b)
  call expect(all(a == b), 'repeatable: the same sequence after a second random_init')
  call compare(a, .true., 'repeatable, image_distinct')

  call random_init(.true., .false.)
  call random_number(fixed)
  call compare(fixed, .false., 'repeatable, not image_distinct')

  call random_init(.false., .false.)
  call random_number(a)
  call compare(a, .false., 'not repeatable, not image_distinct')
  call expect(any(a /= fixed), 'not repeatable: not the repeatable seed')

  call random_init(.false., .true.)
  call random_number(a)
  call compare(a, .true., 'not repeatable, image_distinct')
  if (me == 1) print '(a)', 'caf_random: ok'
contains
  ! Image 1 compares its numbers with every other image's: all different, or all equal.
  subroutine compare(v, distinct, what)
    real, intent(in) :: v(4)
    logical, intent(in) :: distinct
    character(*), intent(in) :: what
    integer :: i
    x = v
    sync all
    if (me == 1) then
      do i = 2, n
        if (distinct) then
          call expect(any(x(:)[i] /= v), what // ': image differs from image 1')
        else
          call expect(all(x(:)[i] == v), what // ': image agrees with image 1')
        end if
      end do
    end if
    sync all
  end subroutine compare

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'caf_random: image ', this_image(), ': wrong: ', what
      error stop 3
    end if
  end subroutine expect
end program caf_random
