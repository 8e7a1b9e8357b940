/*
 * Probe of what the triggered offload hook needs from libfabric (docs/OFFLOAD.md): the sockets
 * provider's triggered RMA write, gated on a remote-write counter, must fire while the
 * forwarding process makes no libfabric call. Process A writes 64 bytes into B's buffer; B
 * has pre-posted a triggered write of that buffer back to A at threshold 1 of its
 * remote-write counter and then computes for a second without calling libfabric; A waits
 * (reading its own counter) for the data to come back. Argument: the data progress mode to ask
 * for (1 = FI_PROGRESS_AUTO, 2 = FI_PROGRESS_MANUAL). Exit 0 when the data came back, 1 when
 * not, 2 on a libfabric error, 77 when the provider has no FI_TRIGGER. Standalone (fork and a
 * socketpair): no arbor, no launcher.
 */
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_trigger.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_cm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#define CK(x)                                                                                      \
    do {                                                                                           \
        int _r = (x);                                                                              \
        if (_r) {                                                                                  \
            printf("%s: %s -> %d %s\n", who, #x, _r, fi_strerror(-_r));                            \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)
static const char *who;
int main(int argc, char **argv)
{
    int prog = argc > 1 ? atoi(argv[1]) : FI_PROGRESS_AUTO;
    int expect = argc > 2 ? atoi(argv[2]) : 1; /* 1: the data must come back, 0: must not */
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    pid_t pid = fork();
    int me = pid == 0;
    who = me ? "B" : "A";
    int fd = sv[me];
    struct fi_info *h = fi_allocinfo(), *info;
    h->ep_attr->type = FI_EP_RDM;
    h->caps = FI_RMA | FI_TRIGGER | FI_RMA_EVENT;
    h->mode = FI_CONTEXT;
    h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    h->domain_attr->data_progress = prog;
    h->domain_attr->av_type = FI_AV_TABLE;
    h->fabric_attr->prov_name = strdup("sockets");
    if (fi_getinfo(FI_VERSION(1, 10), NULL, NULL, 0, h, &info) != 0) {
        if (!me) printf("no sockets provider with FI_TRIGGER | FI_RMA_EVENT: skipped\n");
        return 77;
    }
    if (!me)
        printf("provider %s progress data=%d ctrl=%d caps trig=%d rma_event=%d mr_mode 0x%x\n",
               info->fabric_attr->prov_name, info->domain_attr->data_progress,
               info->domain_attr->control_progress, !!(info->caps & FI_TRIGGER),
               !!(info->caps & FI_RMA_EVENT), info->domain_attr->mr_mode);
    struct fid_fabric *f;
    struct fid_domain *d;
    struct fid_av *av;
    struct fid_ep *ep;
    struct fid_cq *cq;
    struct fid_cntr *rcntr, *wcntr;
    struct fid_mr *mr;
    CK(fi_fabric(info->fabric_attr, &f, NULL));
    CK(fi_domain(f, info, &d, NULL));
    struct fi_av_attr aa = {0};
    aa.type = FI_AV_TABLE;
    CK(fi_av_open(d, &aa, &av, NULL));
    struct fi_cq_attr ca = {0};
    ca.format = FI_CQ_FORMAT_CONTEXT;
    CK(fi_cq_open(d, &ca, &cq, NULL));
    struct fi_cntr_attr ta = {0};
    ta.events = FI_CNTR_EVENTS_COMP;
    CK(fi_cntr_open(d, &ta, &rcntr, NULL));
    CK(fi_cntr_open(d, &ta, &wcntr, NULL));
    CK(fi_endpoint(d, info, &ep, NULL));
    CK(fi_ep_bind(ep, &av->fid, 0));
    CK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
    CK(fi_ep_bind(ep, &rcntr->fid, FI_REMOTE_WRITE));
    CK(fi_ep_bind(ep, &wcntr->fid, FI_WRITE));
    CK(fi_enable(ep));
    static char buf[4096] __attribute__((aligned(64)));
    CK(fi_mr_reg(d, buf, sizeof buf, FI_REMOTE_WRITE | FI_WRITE | FI_REMOTE_READ | FI_READ, 0, 0, 0,
                 &mr, NULL));
    struct {
        char name[128];
        size_t len;
        uint64_t key, addr;
    } mine = {0}, peer;
    mine.len = sizeof mine.name;
    CK(fi_getname(&ep->fid, mine.name, &mine.len));
    mine.key = fi_mr_key(mr);
    mine.addr = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)buf : 0;
    write(fd, &mine, sizeof mine);
    read(fd, &peer, sizeof peer);
    fi_addr_t pa;
    if (fi_av_insert(av, peer.name, 1, &pa, 0, NULL) != 1) {
        printf("%s av_insert failed\n", who);
        return 2;
    }
    if (me) { /* B: post a triggered write back to A, then compute */
        static struct fi_triggered_context tctx;
        tctx.event_type = FI_TRIGGER_THRESHOLD;
        tctx.trigger.threshold.cntr = rcntr;
        tctx.trigger.threshold.threshold = 1;
        struct iovec iov = {buf, 64};
        struct fi_rma_iov riov = {peer.addr + 1024, 64, peer.key};
        struct fi_msg_rma msg = {&iov, NULL, 1, pa, &riov, 1, &tctx, 0};
        CK((int)fi_writemsg(ep, &msg, FI_TRIGGER));
        char c = 1;
        write(fd, &c, 1); /* posted */
        volatile double x = 0;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
            for (int i = 0; i < 1000000; i++) x += i * 1e-9;
            clock_gettime(CLOCK_MONOTONIC, &t1);
        } while (t1.tv_sec - t0.tv_sec < 1);
        /* Still no libfabric call until A has decided (reading a counter may progress). */
        int landed = buf[0] == 1 && buf[63] == 64;
        read(fd, &c, 1);
        printf("B: computed 1 s without libfabric calls (data %s meanwhile); counters now: "
               "remote writes %lu, own writes %lu\n",
               landed ? "landed" : "did not land", (unsigned long)fi_cntr_read(rcntr),
               (unsigned long)fi_cntr_read(wcntr));
        return 0;
    }
    char c;
    read(fd, &c, 1);
    for (int i = 0; i < 64; i++) buf[i] = (char)(i + 1);
    struct fi_context ctx;
    CK((int)fi_write(ep, buf, 64, NULL, pa, peer.addr, peer.key, &ctx));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t v = 0;
    int comps = 0;
    do {
        struct fi_cq_entry e;
        ssize_t n = fi_cq_read(cq, &e, 1);
        if (n > 0) comps++;
        if (n == -FI_EAVAIL) {
            struct fi_cq_err_entry ee = {0};
            fi_cq_readerr(cq, &ee, 0);
            printf("A: cq error %s\n", fi_strerror(ee.err));
        }
        v = fi_cntr_read(rcntr);
        clock_gettime(CLOCK_MONOTONIC, &t1);
    } while (v < 1 && t1.tv_sec - t0.tv_sec < 2);
    int ok = v >= 1;
    for (int i = 0; ok && i < 64; i++) ok = buf[1024 + i] == (char)(i + 1);
    printf("A: %d own completions; remote-write counter %lu after %.3f s; data %s\n", comps,
           (unsigned long)v, (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec),
           ok ? "came back through B's triggered write" : "did NOT come back");
    c = 0;
    write(fd, &c, 1);
    waitpid(pid, NULL, 0);
    printf("A: %s\n", ok == expect ? "as expected" : "NOT as expected");
    return ok == expect ? 0 : 1;
}
