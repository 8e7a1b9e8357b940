! Collective subroutines: co_sum, co_min, co_max (to all images and to one result_image) on
! integer, real, complex and character data; co_broadcast of numeric, character and derived-type
! data; co_reduce with user operators. Each image checks the results it must see.
program caf_coll
  implicit none
  type :: pair
    integer :: key
    real(8) :: val
  end type pair
  integer :: me, np, i, iv(3), root, istat
  integer(8) :: i8
  real(8) :: rv(2)
  real :: r4
  complex(8) :: cz
  character(len=5) :: word
  character(len=20) :: msg
  type(pair) :: pr
  logical :: lg

  me = this_image()
  np = num_images()

  iv = [me, -me, 2 * me]
  call co_sum(iv)
  call check(all(iv == [np * (np + 1) / 2, -np * (np + 1) / 2, np * (np + 1)]), 'co_sum int')
  rv = [real(me, 8), 0.5d0]
  call co_sum(rv, stat=istat, errmsg=msg)
  call check(istat == 0, 'co_sum stat')
  call check(all(rv == [real(np * (np + 1) / 2, 8), 0.5d0 * np]), 'co_sum real(8)')
  cz = cmplx(me, -1, 8)
  call co_sum(cz)
  call check(cz == cmplx(np * (np + 1) / 2, -np, 8), 'co_sum complex(8)')
  i8 = me
  root = np
  call co_sum(i8, result_image=root)
  if (me == root) call check(i8 == int(np, 8) * (np + 1) / 2, 'co_sum result_image')

  iv = [me, 10 - me, 7]
  call co_min(iv)
  call check(all(iv == [1, 10 - np, 7]), 'co_min int')
  r4 = real(me) * 1.5
  call co_max(r4)
  call check(r4 == real(np) * 1.5, 'co_max real(4)')
  iv = [me, -me, 0]
  call co_max(iv, result_image=1)
  if (me == 1) call check(all(iv == [np, -1, 0]), 'co_max result_image')
#ifndef CAF_NO_CHARACTER_MINMAX
  ! OpenCoarrays 2.10 has no co_min / co_max on character data (MPI_MAX on MPI_CHARACTER)
  word = achar(iachar('a') + mod(me, 26)) // 'xyz' // achar(iachar('z') - mod(me, 26))
  call co_max(word)
  call check(word == achar(iachar('a') + mod(np, 26)) // 'xyz' // achar(iachar('z') - mod(np, 26)) &
             .or. np > 25, 'co_max character')
  word = 'm' // achar(iachar('a') + mod(me, 20)) // 'qqq'
  call co_min(word, stat=istat, errmsg=msg)
  call check(istat == 0 .and. word == 'mbqqq', 'co_min character')

#endif
  iv = 0
  if (me == np) iv = [3, 1, 4]
  call co_broadcast(iv, source_image=np)
  call check(all(iv == [3, 1, 4]), 'co_broadcast int array')
  word = 'none'
  if (me == 1) word = 'hello'
  call co_broadcast(word, 1)
  call check(word == 'hello', 'co_broadcast character')
  pr = pair(0, 0)
  if (me == min(2, np)) pr = pair(42, 2.5d0)
  call co_broadcast(pr, min(2, np))
  call check(pr%key == 42 .and. pr%val == 2.5d0, 'co_broadcast derived type')

  i = me
  call co_reduce(i, imul)
  call check(i == factorial(np), 'co_reduce integer product')
  rv = [real(me, 8), real(-me, 8)]
  call co_reduce(rv, rmax, result_image=1)
  if (me == 1) call check(all(rv == [real(np, 8), -1d0]), 'co_reduce real result_image')
  lg = me == np
  call co_reduce(lg, lor)
  call check(lg, 'co_reduce logical')
  word = achar(iachar('a') + mod(me, 26)) // 'bcd'
  call co_reduce(word, cmax)
  call check(word == achar(iachar('a') + mod(np, 26)) // 'bcd' .or. np > 25, &
             'co_reduce character')

  sync all
  if (me == 1) print '(a,i0,a)', 'caf_coll: ', np, ' images OK'
contains
  pure function imul(a, b) result(c)
    integer, value :: a, b
    integer :: c
    c = a * b
  end function imul
  pure function rmax(a, b) result(c)
    real(8), value :: a, b
    real(8) :: c
    c = max(a, b)
  end function rmax
  pure function lor(a, b) result(c)
    logical, value :: a, b
    logical :: c
    c = a .or. b
  end function lor
  pure function cmax(a, b) result(c)
    character(len=5), intent(in) :: a, b
    character(len=5) :: c
    c = max(a, b)
  end function cmax
  integer function factorial(k)
    integer, intent(in) :: k
    integer :: j
    factorial = 1
    do j = 2, k
      factorial = factorial * j
    end do
  end function factorial
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'caf_coll FAILED on image ', this_image(), ': ', what
      error stop 1
    end if
  end subroutine check
end program caf_coll
