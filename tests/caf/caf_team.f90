! Teams: form team (odd / even images), change team, this_image / num_images inside, sync team,
! team_number, a collective inside the team, end team.
program caf_team
  use, intrinsic :: iso_fortran_env, only: team_type
  implicit none
  type(team_type) :: parity
  integer :: me, np, tn, s, expect_np, expect_me

  me = this_image()
  np = num_images()
  call check(team_number() == -1, 'team_number of the initial team')
  tn = 2 - mod(me, 2) ! 1: odd images, 2: even images
  form team (tn, parity)
  expect_np = (np + 2 - tn) / 2
  expect_me = (me + 1) / 2
  change team (parity)
    call check(team_number() == tn, 'team_number inside')
    call check(num_images() == expect_np, 'num_images inside')
    call check(this_image() == expect_me, 'this_image inside')
    sync team (parity)
    s = me
    call co_sum(s)
    ! sum of the initial-team indices of this team's images
    if (tn == 1) then
      call check(s == expect_np * expect_np, 'co_sum over the odd images')
    else
      call check(s == expect_np * (expect_np + 1), 'co_sum over the even images')
    end if
    sync all
  end team
  call check(num_images() == np .and. this_image() == me, 'back in the initial team')
  s = 1
  call co_sum(s)
  call check(s == np, 'co_sum after end team')
  sync all
  if (me == 1) print '(a,i0,a)', 'caf_team: ', np, ' images OK'
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'caf_team FAILED on image ', this_image(), ': ', what
      error stop 1
    end if
  end subroutine check
end program caf_team
