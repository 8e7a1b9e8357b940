! Static coarrays hold their initial values on every image before the first statement runs:
! gfortran stores a static coarray's initializer only after its registration returns, so each
! image reads the others' coarrays at once, with no image control statement before, and must
! see those values (never the zeros of memory not yet initialized). The big array makes the
! initializer's copy long.
module caf_initial_data
  implicit none
  integer, parameter :: n = 262144
  type pair
    integer :: a = 11
    real(8) :: b = 2.5d0
  end type
  integer :: big(n)[*] = 7
  integer :: scalar[*] = -3
  type(pair) :: rec[*]
end module

program caf_initial
  use caf_initial_data
  implicit none
  integer :: i, errs, tail(4)
  type(pair) :: got
  errs = 0
  do i = 1, num_images()
    if (i == this_image()) cycle
    tail = big(n - 3:n)[i]
    if (any(tail /= 7)) then
      errs = errs + 1
      print *, 'image', this_image(), ': big(n-3:n)[', i, '] =', tail, 'want 7'
    end if
    if (scalar[i] /= -3) then
      errs = errs + 1
      print *, 'image', this_image(), ': scalar[', i, '] =', scalar[i], 'want -3'
    end if
    got = rec[i]
    if (got%a /= 11 .or. got%b /= 2.5d0) then
      errs = errs + 1
      print *, 'image', this_image(), ': rec[', i, '] =', got%a, got%b, 'want 11 2.5'
    end if
  end do
  if (errs /= 0) error stop 'initial values not seen'
  sync all
  if (this_image() == 1) print *, 'caf_initial passed'
end program
