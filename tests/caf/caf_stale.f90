! A component that its image deallocates and allocates again, of the same size, between reads
! by another image: the address usually comes back, with another registration. The reader must
! drop what it kept of the old one (clients/caf/caf_component.c) and read the new values; where
! the transport checks registration keys (tcp;ofi_rxm between hosts) a kept one fails the read.
program caf_stale
  implicit none
  type t
    integer, allocatable :: c(:)
  end type
  type(t) :: x[*]
  integer :: i, round, errs
  integer, allocatable :: got(:)
  errs = 0
  do round = 1, 20
    if (this_image() == 1) then
      allocate(x%c(64))
      x%c = [(1000 * round + i, i = 1, 64)]
    end if
    sync all
    if (this_image() == num_images() .and. num_images() > 1) then
      got = x[1]%c
      if (any(got /= [(1000 * round + i, i = 1, 64)])) then
        errs = errs + 1
        print *, 'round', round, ': read', got(1), 'want', 1000 * round + 1
      end if
      if (x[1]%c(33) /= 1000 * round + 33) errs = errs + 1
    end if
    sync all
    if (this_image() == 1) deallocate(x%c)
    sync all
  end do
  if (allocated(got)) deallocate(got)
  if (errs /= 0) error stop 'caf_stale: stale component reads'
  if (this_image() == 1) print *, 'caf_stale: passed'
end program
