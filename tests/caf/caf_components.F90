! Derived-type coarrays (scalar, static array, allocatable scalar) with allocatable and pointer
! components that each image allocates alone, with a size of its own: allocated(x[i]%c), reads
! and writes of x[i]%c(:) and of sections, nested components, x(2)[i]%c, reallocation of the
! left side, kind conversion, a copy between two other images, deallocation and allocation
! again, and co_broadcast of a derived type with allocatable components. Every image checks its
! own results and exits nonzero on the first mismatch.
program caf_components
  implicit none
  type inner
    real, allocatable :: r(:)
    integer :: k
  end type inner
  type t
    integer, allocatable :: c(:)
    type(inner), allocatable :: p
    integer, allocatable :: s
    integer :: a(3, 2)
    integer, pointer :: q(:) => null()
  end type t
  type msg
    integer, allocatable :: v(:)
    real, allocatable :: w
  end type msg
  type leaf
    integer :: k
    integer, allocatable :: d(:)
  end type leaf
  type tree
    type(leaf), allocatable :: l(:)
  end type tree
  type(t) :: x[*], y(3)[*]
  type(t), allocatable :: z[:]
  type(msg) :: m
  integer, allocatable :: res(:)
  real(8), allocatable :: rd(:)
  real, allocatable :: rs(:)
  integer :: me, np, right, left, i, j

  me = this_image()
  np = num_images()
  right = merge(1, me + 1, me == np)
  left = merge(np, me - 1, me == 1)

  ! Image i gives c i + 1 elements, q i and p%r 2 * i: every image a size of its own.
  allocate(x%c(me + 1))
  x%c = [(10 * me + i, i = 1, me + 1)]
  x%a = reshape([(100 * me + i, i = 1, 6)], [3, 2])
  allocate(x%s)
  x%s = 7 * me
  allocate(x%q(me))
  x%q = -me
  ! Every image allocates p and p%r: gfortran's code for a write to x[i]%p%r(1:2) also
  ! addresses this image's x%p%r.
  allocate(x%p)
  x%p%k = -10 * me
  allocate(x%p%r(2 * me))
  x%p%r = [(real(me) + 0.5 * i, i = 1, 2 * me)]
  do i = 1, 3
    y(i)%a = 10 * me + i
  end do
  allocate(y(2)%c(me))
  y(2)%c = me
  allocate(z[*])
  allocate(z%c(2 * me))
  z%c = [(i * me, i = 1, 2 * me)]
  sync all

  ! Reads: allocated(), whole components (the left side takes the other image's size),
  ! sections, kind conversion, scalar, static array and nested components.
  call check(allocated(x[right]%c), 'allocated(x[i]%c)')
  call check(allocated(x[right]%p), 'allocated(x[i]%p)')
  call check(allocated(x[right]%p%r), 'allocated(x[i]%p%r)')
  call check(.not. allocated(y(1)[right]%s), 'allocated(y(1)[i]%s)')
  call check(.not. allocated(y(1)[right]%c), 'allocated(y(1)[i]%c)')
  call check(allocated(y(2)[right]%c), 'allocated(y(2)[i]%c)')
  res = x[right]%c
  call check(size(res) == right + 1, 'x[i]%c: size of the reallocated left side')
  call check(all(res == [(10 * right + i, i = 1, right + 1)]), 'x[i]%c')
  res = x[right]%c(2::2)
  call check(all(res == [(10 * right + i, i = 2, right + 1, 2)]), 'x[i]%c(2::2)')
  res = x[right]%c(right + 1:1:-1)
  call check(all(res == [(10 * right + i, i = right + 1, 1, -1)]), 'x[i]%c(n:1:-1)')
  res = x[right]%c(:2)
  call check(all(res == [10 * right + 1, 10 * right + 2]), 'x[i]%c(:2)')
  res = x[right]%c([2, 1, 2])
  call check(all(res == [10 * right + 2, 10 * right + 1, 10 * right + 2]), 'x[i]%c([2, 1, 2])')
  rd = x[right]%c
  call check(all(rd == real([(10 * right + i, i = 1, right + 1)], 8)), 'kind conversion')
  call check(x[right]%s == 7 * right, 'x[i]%s (allocatable scalar)')
  res = x[right]%a(2, :)
  call check(all(res == [100 * right + 2, 100 * right + 5]), 'x[i]%a(2, :) (static array)')
  res = x[right]%a(1:3:2, 2)
  call check(all(res == [100 * right + 4, 100 * right + 6]), 'x[i]%a(1:3:2, 2) (static range)')
  res = x[right]%q
  call check(size(res) == right .and. all(res == -right), 'x[i]%q (pointer component)')
  call check(x[right]%p%k == -10 * right, 'x[i]%p%k (nested)')
  rs = x[right]%p%r(2::2)
  call check(size(rs) == right .and. all(rs == [(real(right) + 0.5 * i, i = 2, 2 * right, 2)]), &
             'x[i]%p%r(2::2) (nested allocatable)')
  res = y(2)[left]%c
  call check(size(res) == left .and. all(res == left), 'y(2)[i]%c')
  res = y(:)[left]%a(1, 2)
  call check(all(res == [(10 * left + i, i = 1, 3)]), 'y(:)[i]%a(1, 2)')
  res = z[right]%c(1:2 * right:right)
  call check(all(res == [1, right + 1] * right), 'z[i]%c(1:n:k) (allocatable coarray)')
  sync all

  ! Writes into the right neighbour's components.
  x[right]%c(1) = -me
  x[right]%c(2:) = real(me, 8) + 0.25d0 ! kind conversion on the write
  x[right]%s = 3 * me
  x[right]%p%r(1:2) = [1.5, 2.5]
  z[right]%c(::2) = 0
  sync all
  call check(x%c(1) == -left .and. all(x%c(2:) == left), 'write x[i]%c')
  call check(x%s == 3 * left, 'write x[i]%s')
  call check(all(x%p%r(1:2) == [1.5, 2.5]), 'write x[i]%p%r(1:2)')
  call check(all(z%c(::2) == 0) .and. all(z%c(2::2) == [(i * me, i = 2, 2 * me, 2)]), &
             'write z[i]%c(::2)')
  sync all

  ! A copy between two other images (image 1 copies its left's into its right's).
  if (me == 1) x[right]%c(1:2) = x[left]%c(1:2)
  sync all
  i = merge(np - 1, 1, np > 1) ! image 1's left holds [-i, i] there
  if (me == right) call check(all(x%c(1:2) == [-i, i]), 'copy x[j]%c(1:2) = x[k]%c(1:2)')
  sync all

  ! Deallocate and allocate again, first with the same size (the memory often comes back at the
  ! same address, under another registration), then with another: the others, which reached the
  ! old memory before, must reach the new.
  do j = 1, 2
    deallocate(x%c)
    allocate(x%c(me + 2 * j - 1))
    x%c = 1000 * me + j
    sync all
    res = x[right]%c
    call check(size(res) == right + 2 * j - 1, 'size of x[i]%c after reallocation')
    call check(all(res == 1000 * right + j), 'x[i]%c after reallocation')
    sync all
  end do

  ! A right side longer than the left side (not conforming): its leading elements are assigned,
  ! as OpenCoarrays does.
  x%c = 0
  sync all
  res = [(-me * i, i = 1, right + 3)]
  x[right]%c(1:right + 1:2) = res
  sync all
  call check(all(x%c(1:me + 1:2) == [(-left * i, i = 1, size(x%c(1:me + 1:2)))]) .and. &
             all(x%c(2:me + 1:2) == 0), 'x[i]%c(::2) = longer right side')
  sync all
  rs = [0.0, 0.0]
  rs(1:1) = x[right]%c(1:right + 1)
  call check(rs(1) == real(-me) .and. rs(2) == 0.0, 'read of a longer right side')
  sync all

  ! co_broadcast of a derived type with allocatable components (allocated alike everywhere).
  allocate(m%v(4), m%w)
  m%v = 0
  m%w = 0
  if (me == 1) then
    m%v = [4, 3, 2, 1]
    m%w = 2.5
  end if
  call co_broadcast(m, 1)
  call check(all(m%v == [4, 3, 2, 1]) .and. m%w == 2.5, 'co_broadcast of allocatable components')

  call nested_broadcast()

  deallocate(x%c, x%s, res, rd, rs)
  sync all
contains
  subroutine nested_broadcast()
    type(tree), target :: tr
    integer, allocatable :: none(:)
    integer, pointer :: own(:)
    ! A nested one: gfortran broadcasts each tr%l(i)%d, then the elements of tr%l as whole bytes,
    ! descriptors included; every image must keep its own d (and get the source's values).
    allocate(tr%l(2))
    allocate(tr%l(1)%d(3), tr%l(2)%d(2))
    tr%l(1)%k = me
    tr%l(2)%k = 2 * me
    tr%l(1)%d = me
    tr%l(2)%d = -me
    own => tr%l(1)%d
    call co_broadcast(tr, np)
    call check(tr%l(1)%k == np .and. tr%l(2)%k == 2 * np, 'nested co_broadcast: scalars')
    call check(all(tr%l(1)%d == np) .and. all(tr%l(2)%d == -np), 'nested co_broadcast: data')
    call check(associated(own, tr%l(1)%d), 'nested co_broadcast keeps the descriptor')
    tr%l(1)%d = 0 ! writes through the kept descriptor, into this image's own memory
    call check(all(own == 0), 'nested co_broadcast: own memory')
    ! Zero-sized data broadcasts nothing, and is no error.
    allocate(none(0))
    call co_broadcast(none, 1)
    call check(size(none) == 0, 'co_broadcast of zero-sized data')
  end subroutine nested_broadcast

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'caf_components FAILED on image ', this_image(), ': ', what
      error stop 1
    end if
  end subroutine check
end program caf_components
