! Substrings of coindexed strings. gfortran 12 passes a substring c[i](m:n) by its start and the
! whole string's length, so its end is lost: a read into a variable no longer than the rest of
! the string takes the first characters from the start (the substring's value when the
! variable is no longer than the substring), and a write that starts inside a string is refused
! with an error termination (exit code 1), never done with the wrong length, which would blank
! the characters after the substring and the next string's first. Run at 2 images and more.
! (A read that ends at the string's end: caf_transfer, which must exit 0.)
program caf_substring
  implicit none
  character(len=8) :: ca(3)[*]
  character(len=3) :: s
  me_block: block
    integer :: me
    me = this_image()
    ca = ['ABCDEFGH', 'IJKLMNOP', 'QRSTUVWX']
    sync all
    if (me == 1) then
      s = ca(2)[2](2:4)
      if (s /= 'JKL') error stop 2
      ca(2)[2](2:4) = 'xyz' ! refused: the job ends here with exit code 1
    end if
    sync all
    if (me == 2 .and. any(ca /= ['ABCDEFGH', 'IJKLMNOP', 'QRSTUVWX'])) then
      print *, 'caf_substring: the write went through: ', ca
      error stop 3
    end if
  end block me_block
end program caf_substring
