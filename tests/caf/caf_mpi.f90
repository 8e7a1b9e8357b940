! A coarray program that also calls MPI, written as for OpenCoarrays: it never calls MPI_Init
! (the coarray runtime starts MPI) and expects MPI_COMM_WORLD's ranks to be the images in order.
! Checks MPI's view against the coarray one, MPI and coarray traffic in turn, and that MPI is
! still up until the end of the program.
program caf_mpi
  use mpi
  implicit none
  integer :: ierr, nranks, rank, total, expect, i
  logical :: flag
  integer :: box[*]
  integer, allocatable :: got(:)

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
  call mpi_finalized(flag, ierr)
  if (flag) error stop "MPI ended early"
  sync all
  if (this_image() == 1) print *, "caf_mpi: ok on", num_images(), "images"
end program caf_mpi
