/*
 * Wake-up latency of the ways one process can wake another that sleeps (docs/PROGRESS.md, "Which
 * bell"): an abstract-namespace unix datagram socket waited on with poll() (arbor's doorbell), a
 * futex on a word of shared memory, and a pipe (which needs a descriptor inherited or passed).
 * Two processes (fork); per round the waker sleeps 5 ms, notes the time and signals each way in
 * turn, the sleeper notes when it runs again. Prints medians and minima.
 * usage: arbor-wake-bell [rounds]   (default 40)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/futex.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { WAYS = 3, MAX_ROUNDS = 1000 };
static const char *const names[WAYS] = {"unix datagram (abstract) + poll", "futex on a shared word",
                                        "pipe (inherited descriptor)"};

typedef struct {
    uint32_t word;                /* the futex */
    double sent;                  /* waker's clock at the signal */
    double lat[WAYS][MAX_ROUNDS]; /* sleeper's wake time - sent, us */
} shared_t;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void sleeper(shared_t *s, int sock, int pipe_rd, int rounds)
{
    for (int i = 0; i < rounds; i++) {
        struct pollfd p = {.fd = sock, .events = POLLIN};
        char b[8];
        poll(&p, 1, 1000);
        if (recv(sock, b, sizeof(b), MSG_DONTWAIT) < 0) perror("recv");
        s->lat[0][i] = now_us() - s->sent;
        while (__atomic_load_n(&s->word, __ATOMIC_ACQUIRE) == 0)
            syscall(SYS_futex, &s->word, FUTEX_WAIT, 0, NULL, NULL, 0);
        s->lat[1][i] = now_us() - s->sent;
        __atomic_store_n(&s->word, 0, __ATOMIC_RELEASE);
        if (read(pipe_rd, b, 1) != 1) perror("read");
        s->lat[2][i] = now_us() - s->sent;
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 40;
    if (rounds < 1 || rounds > MAX_ROUNDS) return fprintf(stderr, "rounds: 1..%d\n", MAX_ROUNDS), 2;
    shared_t *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0), tx = socket(AF_UNIX, SOCK_DGRAM, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    socklen_t len = sizeof(sa_family_t);
    int pipefd[2];
    if (s == MAP_FAILED || sock < 0 || tx < 0 || pipe(pipefd) != 0 ||
        bind(sock, (struct sockaddr *)&addr, len) != 0 ||
        (len = sizeof(addr), getsockname(sock, (struct sockaddr *)&addr, &len)) != 0)
        return perror("setup"), 1;
    pid_t child = fork();
    if (child == 0) {
        sleeper(s, sock, pipefd[0], rounds);
        _exit(0);
    }
    struct timespec gap = {0, 5000000};
    for (int i = 0; i < rounds; i++) {
        nanosleep(&gap, NULL);
        s->sent = now_us();
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        sendto(tx, "x", 1, 0, (struct sockaddr *)&addr, len);
        nanosleep(&gap, NULL);
        s->sent = now_us();
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        __atomic_store_n(&s->word, 1, __ATOMIC_RELEASE);
        syscall(SYS_futex, &s->word, FUTEX_WAKE, 1, NULL, NULL, 0);
        nanosleep(&gap, NULL);
        s->sent = now_us();
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (write(pipefd[1], "x", 1) != 1) perror("write");
    }
    waitpid(child, NULL, 0);
    for (int w = 0; w < WAYS; w++) {
        qsort(s->lat[w], (size_t)rounds, sizeof(double), cmp);
        printf("%-34s median %7.1f us  min %7.1f us  (%d rounds)\n", names[w],
               s->lat[w][rounds / 2], s->lat[w][0], rounds);
    }
    return 0;
}
