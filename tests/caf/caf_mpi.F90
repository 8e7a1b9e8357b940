! A coarray program that also calls MPI, written as for OpenCoarrays: it never calls MPI_Init
! (the coarray runtime starts MPI) and expects MPI_COMM_WORLD's ranks to be the images in order.
! Checks MPI's view against the coarray one, MPI and coarray traffic in turn, that MPI is still
! up until the end of the program, and OpenCoarrays' get_communicator extension: the MPI
! communicator of the current team (declared here as OpenCoarrays' module opencoarrays does).
program caf_mpi
  use mpi
  use iso_c_binding, only: c_int, c_ptr, c_loc
  use iso_fortran_env, only: team_type
  implicit none
  interface
    function get_communicator(team_ptr) result(comm) bind(C, name="_gfortran_caf_get_communicator")
      import :: c_int, c_ptr
      type(c_ptr), optional :: team_ptr
      integer(c_int) :: comm
    end function get_communicator
  end interface
  integer :: ierr, nranks, rank, total, expect, i, comm, colour
  logical :: flag
  integer :: box[*]
  integer, allocatable :: got(:)
  type(team_type), target :: halves

  call mpi_initialized(flag, ierr)
  if (ierr /= MPI_SUCCESS .or. (.not. flag)) error stop "MPI is not started"
  call mpi_comm_size(MPI_COMM_WORLD, nranks, ierr)
  if (ierr /= MPI_SUCCESS .or. nranks /= num_images()) error stop "MPI_COMM_WORLD size"
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (ierr /= MPI_SUCCESS .or. rank /= this_image() - 1) error stop "MPI rank is not the image"

  ! The same sum through MPI and through a coarray collective.
  call mpi_allreduce(this_image(), total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  expect = num_images() * (num_images() + 1) / 2
  if (ierr /= MPI_SUCCESS .or. total /= expect) error stop "MPI_Allreduce"
  total = this_image()
  call co_sum(total)
  if (total /= expect) error stop "co_sum after MPI"

  ! A value written through a coarray, read back through MPI, and the other way round.
  box = 100 * this_image()
  sync all
  allocate (got(num_images()))
  call mpi_allgather(box, 1, MPI_INTEGER, got, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) error stop "MPI_Allgather"
  do i = 1, num_images()
    if (got(i) /= box[i]) error stop "MPI and coarray disagree"
  end do
  call mpi_barrier(MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) error stop "MPI_Barrier"

  deallocate (got)

  ! The initial team's communicator has the images in order.
  comm = get_communicator()
  call check_comm(comm, "initial team")

  ! Two teams, odd and even images: the team's communicator must follow the team's numbering, not
  ! the initial one's.
  colour = 2 - mod(this_image(), 2)
  form team (colour, halves)
  change team (halves)
    comm = get_communicator()
    call check_comm(comm, "child team")
    total = this_image()
    call co_sum(total)
    call mpi_allreduce(this_image(), expect, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
    if (ierr /= MPI_SUCCESS .or. total /= expect) error stop "team: MPI_Allreduce against co_sum"
  end team
#ifndef CAF_NO_COMM_AFTER_END_TEAM
  call check_comm(get_communicator(), "initial team after end team")
#endif
#ifndef CAF_NO_COMM_OF_TEAM
  ! The communicator of a team named by its argument, outside CHANGE TEAM.
  call mpi_comm_size(get_communicator(c_loc(halves)), nranks, ierr)
  if (ierr /= MPI_SUCCESS .or. nranks /= (num_images() + 2 - colour) / 2) &
    error stop "get_communicator(team): size"
#endif
  call mpi_finalized(flag, ierr)
  if (flag) error stop "MPI ended early"
  sync all
  if (this_image() == 1) print *, "caf_mpi: ok on", num_images(), "images"
contains
  ! @p comm's size and ranks are the current team's images, in order.
  subroutine check_comm(comm, what)
    integer, intent(in) :: comm
    character(*), intent(in) :: what
    integer :: n, r, e
    call mpi_comm_size(comm, n, e)
    if (e /= MPI_SUCCESS .or. n /= num_images()) then
      print *, what, ": size", n, "images", num_images()
      error stop "get_communicator: size"
    end if
    call mpi_comm_rank(comm, r, e)
    if (e /= MPI_SUCCESS .or. r /= this_image() - 1) then
      print *, what, ": rank", r, "image", this_image()
      error stop "get_communicator: rank"
    end if
  end subroutine check_comm
end program caf_mpi
